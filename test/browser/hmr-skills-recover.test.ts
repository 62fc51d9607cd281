/**
 * An invalid skill in a real Vite dev server, for each kind of skill module a
 * page can import (the registry, a skill's default import, its `?cover`): the
 * page shows the overlay, and once the file is fixed the overlay goes and the
 * page shows the fixed skill, whether the server started with the skill
 * invalid or it broke while the page ran.
 *
 * One page per module kind, each importing only that module of its own skill,
 * so that no other module's update can do a kind's recovery for it.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import type { DevPage } from '../support/dev-skills'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { openPage, startServer } from '../support/dev-skills'
import { launchChromium, repo } from '../support/knowledge-app'

const root = join(repo, 'test/.tmp/hmr-skills-recover')

/** A valid skill `name` whose body says `text`. */
const valid = (name: string, text: string) => `---\nname: ${name}\ndescription: The ${name} skill.\n---\n\n${text}\n`
/** The mistake: a name that is not kebab-case. */
const invalid = (text: string) => `---\nname: Broken_Skill\ndescription: A skill with an invalid name.\n---\n\n${text}\n`

/** Per module kind: its skill file (the registry's in its folder, the others outside it) and the page's script. */
const KINDS = {
  registry: {
    file: 'skills/broken/SKILL.md',
    name: 'broken',
    script: `import skills from 'virtual:skill-kit/skills'\nimport { onSkillUpdate } from 'unplugin-skill-kit/runtime'\nconst show = async () => { document.body.dataset.shown = (await Promise.all(skills.map(s => s.load().then(k => s.name + ': ' + k.cover)))).join('\\n') }\nawait show()\nonSkillUpdate(show)\n`,
  },
  default: {
    file: 'direct/plain/SKILL.md',
    name: 'plain',
    script: `import skill from './direct/plain/SKILL.md'\nimport { onSkillUpdate } from 'unplugin-skill-kit/runtime'\nconst show = () => { document.body.dataset.shown = skill.name + ': ' + skill.cover }\nshow()\nonSkillUpdate(show)\n`,
  },
  cover: {
    file: 'direct/covered/SKILL.md',
    name: 'covered',
    script: `import cover from './direct/covered/SKILL.md?cover'\ndocument.body.dataset.shown = cover\n`,
  },
} as const
type Kind = keyof typeof KINDS

describe('an invalid skill recovers in the Vite dev server, for every skill module kind', () => {
  let server: ViteDevServer
  let origin: string
  let browser: Browser
  /** The pages' HMR sockets still open on the server. */
  const sockets = new Set<unknown>()
  let allClosed: (() => void) | undefined

  /** Writes a file whole in one step, as editors that save by rename do. */
  const replace = (path: string, text: string) => {
    const temporary = `${root}-saving`
    writeFileSync(temporary, text)
    renameSync(temporary, join(root, path))
  }
  const overlayShown = (page: DevPage) => page.page.waitForSelector('vite-error-overlay', { state: 'attached' })
  /** Waits until the page ran with `text` in its skill and shows no overlay. */
  const shows = (page: DevPage, text: string) => page.page.waitForFunction(
    t => (document.body.dataset.shown ?? '').includes(t) && !document.querySelector('vite-error-overlay'),
    text,
    { polling: 20 },
  )
  const shown = (page: DevPage) => page.page.evaluate(() => document.body.dataset.shown)

  beforeAll(async () => {
    rmSync(root, { recursive: true, force: true })
    for (const [kind, { file, script }] of Object.entries(KINDS)) {
      mkdirSync(join(root, file, '..'), { recursive: true })
      writeFileSync(join(root, file), invalid(`Started broken (${kind}).`))
      writeFileSync(join(root, `${kind}.js`), script)
      writeFileSync(join(root, `${kind}.html`), `<!doctype html>\n<html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module" src="/${kind}.js"></script></body></html>\n`)
    }
    ;({ server, origin } = await startServer(root))
    server.ws.on('connection', (socket: { on: (event: 'close', listener: () => void) => void }) => {
      sockets.add(socket)
      socket.on('close', () => {
        sockets.delete(socket)
        if (sockets.size === 0)
          allClosed?.()
      })
    })
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(root, { recursive: true, force: true })
  })

  /** Closes the page and waits until the server has seen its socket close. */
  async function close(page: DevPage): Promise<void> {
    const closed = new Promise<void>(done => allClosed = done)
    await page.close()
    await closed
  }

  it.each(Object.keys(KINDS) as Kind[])('%s: started broken, then fixed; broke while running, then fixed', async (kind) => {
    const { file, name } = KINDS[kind]
    // Alone: Vite keeps an error for a page yet to connect only while no page is connected.
    const page = await openPage(browser, `${origin}/${kind}.html`, false)
    // Closed even when a step fails, so that the next kind's page is alone too.
    onTestFinished(() => close(page))
    await overlayShown(page)
    expect(await shown(page)).toBeUndefined()
    replace(file, valid(name, `Fixed (${kind}).`))
    await shows(page, `Fixed (${kind}).`)

    replace(file, invalid(`Broke while running (${kind}).`))
    await overlayShown(page)
    expect(await shown(page)).toContain(`Fixed (${kind}).`)
    replace(file, valid(name, `Fixed again (${kind}).`))
    await shows(page, `Fixed again (${kind}).`)

    if (kind === 'registry') {
      // A skill added invalid: no valid load of the registry ever read it.
      mkdirSync(join(root, 'skills/added'))
      replace('skills/added/SKILL.md', invalid('Added broken.'))
      await overlayShown(page)
      expect(await shown(page)).not.toContain('Added')
      replace('skills/added/SKILL.md', valid('added', 'Added fixed.'))
      await shows(page, 'added: Added fixed.')
    }
  })
})
