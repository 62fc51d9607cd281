/**
 * Skills and the registry in a real Vite dev server, with pages in headless
 * Chromium: every edit, added, removed or renamed skill and bundled file
 * reaches the pages in exactly one HMR message; pages that hold the registry
 * (with or without `onSkillUpdate`) keep their state; a page of plain
 * `?cover`/`?meta` imports reloads itself with the new values; an invalid
 * skill shows the overlay and keeps the last valid modules until it is fixed.
 *
 * "Exactly one message" is checked with a probe: after a change shows in the
 * pages, a CSS file they import is edited, and its update is awaited; every
 * message between the change and the probe's is the change's.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import type { DevPage, Message } from '../support/dev-skills'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPage, skillSource, startServer, writeApp } from '../support/dev-skills'
import { launchChromium, repo } from '../support/knowledge-app'

const root = join(repo, 'test/.tmp/hmr-skills')
const REGISTRY_URL = '\0virtual:skill-kit/skills'

interface View {
  names: string[]
  descriptions: string[]
  covers: string[]
  usage: string[]
  tool: string
  loaded: string
  active: string[]
}
declare const window: { marker: number, view: () => Promise<View>, listing: () => { names: string[], tool: string } }

describe('skills in the Vite dev server, in headless Chromium', () => {
  let server: ViteDevServer
  let origin: string
  let browser: Browser
  let registry: DevPage
  let helper: DevPage
  let cover: DevPage
  let probes = 0

  beforeAll(async () => {
    writeApp(root)
    ;({ server, origin } = await startServer(root))
    browser = await launchChromium()
    registry = await openPage(browser, `${origin}/registry.html`)
    helper = await openPage(browser, `${origin}/helper.html`)
    cover = await openPage(browser, `${origin}/cover.html`)
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(root, { recursive: true, force: true })
  })

  const write = (path: string, text: string) => writeFileSync(join(root, path), text)
  /** Writes a file whole in one step, as editors that save by rename do (the temporary file outside the watched root). */
  const replace = (path: string, text: string) => {
    const temporary = `${root}-saving`
    writeFileSync(temporary, text)
    renameSync(temporary, join(root, path))
  }
  const marker = (page: DevPage) => page.page.evaluate(() => window.marker)
  const loads = (page: DevPage) => page.page.evaluate(() => Number(sessionStorage.loads))
  const view = (page: DevPage) => page.page.evaluate(() => window.view())
  /** Waits until the registry page's view passes `test`. */
  const registryShows = (test: (view: View) => boolean) =>
    registry.page.waitForFunction(`window.view().then(v => (${test.toString()})(v))`, undefined, { polling: 20 })
  const dataset = (page: DevPage, key: string) => page.page.evaluate(k => document.body.dataset[k] ?? '', key)
  const datasetIncludes = (page: DevPage, key: string, text: string) =>
    page.page.waitForFunction(([k, t]) => (document.body.dataset[k!] ?? '').includes(t!), [key, text] as const, { polling: 20 })

  /** Edits the probe and waits for every page to apply it: messages sent before it have arrived. */
  async function probe(): Promise<void> {
    const value = String(++probes)
    write('probe.css', `:root { --probe: "${value}"; }\n`)
    for (const page of [registry, helper, cover])
      await page.page.waitForFunction(v => getComputedStyle(document.documentElement).getPropertyValue('--probe').trim() === `"${v}"`, value, { polling: 20 })
  }
  const isProbe = (m: Message) => m.type === 'update' && m.paths.length > 0 && m.paths.every(p => p === '/probe.css')

  /** Runs a change, waits until `shown`, probes, and gives each page's messages of the change. */
  async function change(run: () => void, shown: () => Promise<unknown>): Promise<Message[][]> {
    const pages = [registry, helper, cover]
    const start = pages.map(p => p.messages.length)
    run()
    await shown()
    await probe()
    // `prune` only tells the client which modules nothing imports any more (a removed file): no update, no reload.
    const got = pages.map((p, i) => p.messages.slice(start[i]).filter(m => !isProbe(m) && m.type !== 'prune'))
    return got
  }

  it('an edit updates the registry in place, the helper page through onSkillUpdate, and reloads the cover page only', async () => {
    const kept = [await marker(registry), await marker(helper)]
    const coverLoads = await loads(cover)
    // The registry page loads alpha's body, so alpha's skill module is in use too.
    expect((await view(registry)).covers[0]).toContain('Always first.')

    const messages = await change(() => replace('skills/alpha/SKILL.md', skillSource('alpha', 'edited')), async () => {
      await registryShows(v => v.covers[0]!.includes('Always edited.') && v.usage[0]!.includes('alpha: edited') && v.tool.includes('The alpha skill. edited') && v.loaded.includes('Always edited.'))
      await datasetIncludes(helper, 'names', 'alpha: The alpha skill. edited')
      await datasetIncludes(cover, 'cover', 'Always edited.')
    })

    // One message, the same for every page: the registry and alpha's modules accept it.
    for (const received of messages) {
      expect(received).toHaveLength(1)
      expect(received[0]!.type).toBe('update')
      expect(received[0]!.paths).toContain(REGISTRY_URL)
      expect(received[0]!.paths.some(p => p.includes('/skills/beta/'))).toBe(false)
    }
    expect([await marker(registry), await marker(helper)]).toEqual(kept)
    expect(await loads(registry)).toBe(1)
    expect(await loads(helper)).toBe(1)
    expect(await loads(cover)).toBe(coverLoads + 1)
  })

  it('an edit of another skill leaves the cover page of alpha alone', async () => {
    const coverMarker = await marker(cover)
    const messages = await change(() => replace('skills/beta/SKILL.md', skillSource('beta', 'changed')), async () => {
      await registryShows(v => v.descriptions[1] === 'The beta skill. changed')
      await datasetIncludes(helper, 'names', 'beta: The beta skill. changed')
    })
    for (const received of messages)
      expect(received.map(m => m.type)).toEqual(['update'])
    expect(messages[0]![0]!.paths.some(p => p.includes('/skills/alpha/'))).toBe(false)
    expect(await marker(cover)).toBe(coverMarker)
  })

  it('a bundled file added or removed updates the cover and meta of its skill', async () => {
    expect(await dataset(cover, 'resources')).toBe('scripts/run.py')
    let messages = await change(() => write('skills/alpha/scripts/setup.sh', 'echo setup\n'), async () => {
      await datasetIncludes(cover, 'resources', 'scripts/run.py,scripts/setup.sh')
      await datasetIncludes(cover, 'cover', '- scripts/setup.sh')
      await registryShows(v => v.covers[0]!.includes('- scripts/setup.sh'))
    })
    for (const received of messages)
      expect(received.map(m => m.type)).toEqual(['update'])

    messages = await change(() => rmSync(join(root, 'skills/alpha/scripts/run.py')), async () => {
      await cover.page.waitForFunction(() => document.body.dataset.resources === 'scripts/setup.sh', undefined, { polling: 20 })
      await registryShows(v => !v.covers[0]!.includes('run.py'))
    })
    for (const received of messages)
      expect(received.map(m => m.type)).toEqual(['update'])
    expect(await dataset(cover, 'cover')).not.toContain('run.py')
  })

  it('a skill added, renamed and removed updates the registry pages without a reload', async () => {
    const kept = [await marker(registry), await marker(helper)]
    mkdirSync(join(root, 'skills/gamma'))
    let messages = await change(() => replace('skills/gamma/SKILL.md', skillSource('gamma', 'third')), async () => {
      await registryShows(v => v.names.join() === 'alpha,beta,gamma' && v.covers[2]!.includes('Always third.'))
      await datasetIncludes(helper, 'names', 'gamma: The gamma skill. third')
    })
    for (const received of messages)
      expect(received.map(m => m.type)).toEqual(['update'])

    // Renamed in its frontmatter: the same registry object, under its new name.
    messages = await change(() => replace('skills/gamma/SKILL.md', skillSource('gamma-renamed', 'third').replace('name: gamma-renamed', 'name: gamma2')), async () => {
      await registryShows(v => v.names.join() === 'alpha,beta,gamma2' && v.tool.includes('- gamma2:'))
    })
    for (const received of messages)
      expect(received.map(m => m.type)).toEqual(['update'])

    messages = await change(() => rmSync(join(root, 'skills/gamma'), { recursive: true }), async () => {
      await registry.page.waitForFunction(() => window.listing().names.join() === 'alpha,beta' && !window.listing().tool.includes('gamma'), undefined, { polling: 20 })
      await helper.page.waitForFunction(() => !(document.body.dataset.names ?? '').includes('gamma'), undefined, { polling: 20 })
    })
    for (const received of messages)
      expect(received.map(m => m.type)).toEqual(['update'])
    expect([await marker(registry), await marker(helper)]).toEqual(kept)
    expect(await loads(registry)).toBe(1)
    expect(await loads(helper)).toBe(1)
  })

  it('an invalid skill shows the overlay and keeps the last valid modules; the fix updates the pages', async () => {
    const kept = await marker(registry)
    const before = await view(registry)
    let overlay = ''
    let messages = await change(() => replace('skills/alpha/SKILL.md', skillSource('alpha', 'broken', 'missing')), async () => {
      for (const page of [registry, helper, cover])
        await page.page.waitForSelector('vite-error-overlay', { state: 'attached' })
      // Read before the probe: any update clears the overlay.
      overlay = await registry.page.evaluate(() => document.querySelector('vite-error-overlay')!.shadowRoot!.querySelector('.message')!.textContent!)
    })
    for (const received of messages)
      expect(received.map(m => m.type)).toEqual(['error'])
    expect(overlay).toMatch(/^\[plugin:unplugin-skill-kit\] Invalid skill skills\/alpha\/SKILL\.md \(1 error\)\. Fix them, or set onInvalid: 'fallback' to load it whole:/)
    expect(await view(registry)).toEqual(before)
    expect(await marker(registry)).toBe(kept)

    // A page opened now gets the last valid modules.
    const late = await openPage(browser, `${origin}/cover.html`)
    expect(await dataset(late, 'cover')).toContain('Always edited.')
    await late.close()

    messages = await change(() => replace('skills/alpha/SKILL.md', skillSource('alpha', 'fixed')), async () => {
      await registryShows(v => v.covers[0]!.includes('Always fixed.'))
      await datasetIncludes(cover, 'cover', 'Always fixed.')
      await datasetIncludes(helper, 'names', 'alpha: The alpha skill. fixed')
      // Cleared by the fix itself, before the probe.
      expect(await registry.page.$('vite-error-overlay')).toBeNull()
      expect(await helper.page.$('vite-error-overlay')).toBeNull()
    })
    for (const received of messages)
      expect(received.map(m => m.type)).toEqual(['update'])
    expect(await marker(registry)).toBe(kept)
  })
})

describe('a page opened while a skill is invalid', () => {
  const brokenRoot = join(repo, 'test/.tmp/hmr-skills-broken')
  let server: ViteDevServer
  let browser: Browser

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    rmSync(brokenRoot, { recursive: true, force: true })
  })

  it('shows the error, then the fixed skills once the file is fixed', async () => {
    writeApp(brokenRoot)
    writeFileSync(join(brokenRoot, 'skills/alpha/SKILL.md'), skillSource('alpha', 'broken', 'missing'))
    const started = await startServer(brokenRoot)
    server = started.server
    browser = await launchChromium()
    const registry = await openPage(browser, `${started.origin}/registry.html`, false)
    const cover = await openPage(browser, `${started.origin}/cover.html`, false)
    // The overlay shows where the client was connected when the module failed (Vite sends the error once).
    await registry.page.waitForSelector('vite-error-overlay', { state: 'attached' })
    for (const page of [registry, cover])
      expect(await page.page.evaluate(() => document.body.dataset.ready)).toBeUndefined()

    writeFileSync(join(brokenRoot, 'skills/alpha/SKILL.md'), skillSource('alpha', 'fixed'))
    await registry.page.waitForFunction(() => document.body.dataset.ready === 'yes' && !document.querySelector('vite-error-overlay'), undefined, { polling: 20 })
    await cover.page.waitForFunction(() => (document.body.dataset.cover ?? '').includes('Always fixed.'), undefined, { polling: 20 })
    expect((await registry.page.evaluate(() => window.view())).covers[0]).toContain('Always fixed.')
  })
})
