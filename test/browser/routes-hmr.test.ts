/**
 * Routed index pages in a real Vite dev server, with a page in headless
 * Chromium: edited, added, removed and renamed documents and an edited
 * skill-kit.json reach the page through HMR (one update message each, no
 * reload): its named imports and default export hold the new pages, objects
 * it kept are updated in place, and `onUpdate` says when. An invalid document
 * shows Vite's overlay while the last valid pages are served; its fix clears it.
 *
 * Everything waits on events: the plugin's routes rebuild events (its Vite
 * `api`), the page's `onUpdate`, the overlay element.
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser, Page } from 'playwright-core'
import type { Logger, ViteDevServer } from 'vite'
import type { SkillKitViteApi } from '../../src/plugin/vite-api'
import type { RoutesRebuildEvent } from '../../src/plugin/routes/dev-server'
import type { HmrMessage } from '../support/knowledge-app'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createLogger, createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dist, indexHtml, openHmrApp, repo } from '../support/knowledge-app'

const work = join(repo, 'test/.tmp/routes-hmr')

const MAIN_JS = `
import notes, { skill, pages, cards, onUpdate } from 'virtual:skill-kit/knowledge/notes/routes'
import handbook, { onUpdate as onHandbookUpdate } from 'virtual:skill-kit/knowledge/handbook/routes'
import { cards as padCards, onUpdate as onPadUpdate } from './pad?routes'

// Kept by the app: updates change them in place.
const keptPages = pages
const keptDefault = notes
const updates = { notes: 0, handbook: 0, pad: 0 }
onUpdate(() => { updates.notes++ })
onHandbookUpdate(() => { updates.handbook++ })
onPadUpdate(() => { updates.pad++ })

window.app = {
  updates: name => updates[name],
  ids: () => Object.keys(cards),
  summary: id => cards[id] && cards[id].summary,
  skill: () => skill,
  same: () => keptPages === pages && keptDefault.pages === pages && keptDefault.skill === skill && keptDefault.cards === cards,
  pagesText: () => Object.values(keptPages).join('\\n'),
  handbookSkill: () => handbook.skill,
  padSummaries: () => Object.values(padCards).map(card => card.summary),
}
document.body.dataset.ready = 'yes'
`

/** A page that imports routed pages that are broken when it opens. */
const BROKEN_JS = `
import { cards } from 'virtual:skill-kit/knowledge/broken/routes'
window.brokenIds = Object.keys(cards)
document.body.dataset.ready = 'yes'
`

interface PageApp {
  updates: (name: string) => number
  ids: () => string[]
  summary: (id: string) => string | undefined
  skill: () => string
  same: () => boolean
  pagesText: () => string
  handbookSkill: () => string
  padSummaries: () => string[]
}
declare const window: { app: PageApp, kept?: string, brokenIds?: string[] }


describe('routed index pages in the Vite dev server, with HMR to a page in Chromium', () => {
  let server: ViteDevServer
  let api: SkillKitViteApi
  let browser: Browser
  let page: Page
  let origin: string
  const messages: HmrMessage[] = []
  const lines: string[] = []

  /** The next routes rebuild event of `name` of type `type`. */
  const nextEvent = <T extends RoutesRebuildEvent['type']>(name: string, type: T) => new Promise<RoutesRebuildEvent & { type: T }>((resolve) => {
    const stop = api.onRoutesRebuild((event) => {
      if (event.name === name && event.type === type) {
        stop()
        resolve(event as RoutesRebuildEvent & { type: T })
      }
    })
  })
  const hmrPath = (name: string) => `\0skill-kit-routes:name:${name}`
  const updatesOf = (path: string) => messages.filter(m => m.type === 'update' && m.updates?.some(u => u.path === path))
  const app = <T>(run: (app: PageApp) => T | Promise<T>) => page.evaluate(`(${run.toString()})(window.app)`) as Promise<T>
  /** Waits until the page's `onUpdate` of `name` has run `count` times in all. */
  const pageUpdated = (name: string, count: number) => page.waitForFunction(([n, c]) => window.app.updates(n as string) === c, [name, count] as const, { timeout: 30_000 })

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(join(work, 'notes'), { recursive: true })
    writeFileSync(join(work, 'notes/alpha.md'), '# Alpha\n\nThe first note.\n')
    writeFileSync(join(work, 'notes/beta.md'), '# Beta\n\nThe second note.\n')
    mkdirSync(join(work, 'pad'))
    writeFileSync(join(work, 'pad/sketch.md'), '# Sketch\n\nGraphite lines.\n')
    mkdirSync(join(work, 'handbook/docs'), { recursive: true })
    writeFileSync(join(work, 'handbook/skill-kit.json'), JSON.stringify({ name: 'handbook', description: 'Find the handbook page on ladders.', knowledge: 'docs', model: false }))
    writeFileSync(join(work, 'handbook/docs/one.md'), '# One\n\nA handbook page about ladders.\n')
    mkdirSync(join(work, 'broken'))
    writeFileSync(join(work, 'broken/fine.md'), '---\ndescription: [not a string]\n---\nBroken from the start.\n')
    writeFileSync(join(work, 'main.js'), MAIN_JS)
    writeFileSync(join(work, 'index.html'), indexHtml('/main.js'))
    writeFileSync(join(work, 'broken.js'), BROKEN_JS)
    writeFileSync(join(work, 'broken.html'), indexHtml('/broken.js'))

    const logger: Logger = { ...createLogger('silent'), info: message => lines.push(message), warn: message => lines.push(message), error: message => lines.push(message) }
    const skillKit = (await import(pathToFileURL(join(dist, 'vite.mjs')).href)).default
    server = await createServer({
      configFile: false,
      root: work,
      customLogger: logger,
      plugins: [skillKit({ knowledge: { notes: { dir: 'notes', model: false }, handbook: 'handbook', broken: { dir: 'broken', model: false } } })],
      server: { port: 0, host: '127.0.0.1' },
    })
    await server.listen()
    origin = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
    api = (server.config.plugins.find(p => p.name === 'unplugin-skill-kit') as unknown as { api: SkillKitViteApi }).api

    ;({ browser, page } = await openHmrApp(origin, messages))
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('edits, adds, removes and renames documents: the page\'s imports hold the new pages, in place, one update message each', async () => {
    expect(await app(a => a.ids())).toEqual(['alpha', 'beta'])

    let updated = nextEvent('notes', 'update')
    writeFileSync(join(work, 'notes/alpha.md'), '# Alpha\n\nA zebra crossing.\n')
    expect((await updated).carded).toEqual(['alpha.md'])
    await pageUpdated('notes', 1)
    expect(await app(a => a.summary('alpha'))).toBe('A zebra crossing.')
    expect(await app(a => a.pagesText())).toContain('[Alpha](../references/alpha.md): A zebra crossing.')
    expect(await app(a => a.same())).toBe(true)

    updated = nextEvent('notes', 'update')
    writeFileSync(join(work, 'notes/gamma.md'), '# Gamma\n\nA giraffe.\n')
    await updated
    await pageUpdated('notes', 2)
    expect(await app(a => a.ids())).toEqual(['alpha', 'beta', 'gamma'])
    expect(await app(a => a.skill())).toContain('3 documents.')

    updated = nextEvent('notes', 'update')
    rmSync(join(work, 'notes/beta.md'))
    await updated
    await pageUpdated('notes', 3)
    expect(await app(a => a.ids())).toEqual(['alpha', 'gamma'])
    expect(await app(a => a.pagesText())).not.toContain('Beta')

    // A rename may come as one change or two (the second build then finds nothing new).
    const renamed = new Promise<number>((resolve) => {
      const changes = new Set<string>()
      let sent = 0
      const stop = api.onRoutesRebuild((event) => {
        if (event.name !== 'notes' || (event.type !== 'update' && event.type !== 'unchanged'))
          return
        sent += event.type === 'update' ? 1 : 0
        event.changes.forEach(path => changes.add(path))
        if (changes.has(join(work, 'notes/gamma.md')) && changes.has(join(work, 'notes/delta.md'))) {
          stop()
          resolve(sent)
        }
      })
    })
    renameSync(join(work, 'notes/gamma.md'), join(work, 'notes/delta.md'))
    const sent = await renamed
    await pageUpdated('notes', 3 + sent)
    expect(await app(a => a.ids())).toEqual(['alpha', 'delta'])

    expect(updatesOf(hmrPath('notes'))).toHaveLength(3 + sent)
    for (const message of updatesOf(hmrPath('notes')))
      expect(message.updates).toEqual([expect.objectContaining({ type: 'js-update', path: hmrPath('notes'), acceptedPath: hmrPath('notes') })])
    expect(messages.filter(m => m.type === 'full-reload')).toEqual([])
    expect(await app(a => a.same())).toBe(true)
    expect(await page.evaluate(() => window.kept)).toBe('yes')
    expect(lines.filter(l => l.includes('routed index pages updated')).slice(0, 3).map(l => l.replace(/\d+ ms/, 'N ms'))).toEqual([
      'skill-kit: notes: routed index pages updated in N ms (notes/alpha.md changed)',
      'skill-kit: notes: routed index pages updated in N ms (notes/gamma.md changed)',
      'skill-kit: notes: routed index pages updated in N ms (notes/beta.md changed)',
    ])
  })

  it('updates a folder import (?routes) the same way', async () => {
    expect(await app(a => a.padSummaries())).toEqual(['Graphite lines.'])
    const updated = nextEvent('pad', 'update')
    writeFileSync(join(work, 'pad/sketch.md'), '# Sketch\n\nCharcoal lines.\n')
    await updated
    await pageUpdated('pad', 1)
    expect(await app(a => a.padSummaries())).toEqual(['Charcoal lines.'])
    expect(updatesOf('\0skill-kit-routes:dir:pad')).toHaveLength(1)
    expect(await page.evaluate(() => window.kept)).toBe('yes')
  })

  it('takes an edited skill-kit.json', async () => {
    expect(await app(a => a.handbookSkill())).toContain('description: "Find the handbook page on ladders."')
    const updated = nextEvent('handbook', 'update')
    writeFileSync(join(work, 'handbook/skill-kit.json'), JSON.stringify({ name: 'handbook', description: 'Find the handbook page on ropes.', knowledge: 'docs', model: false }))
    await updated
    await pageUpdated('handbook', 1)
    expect(await app(a => a.handbookSkill())).toContain('description: "Find the handbook page on ropes."')
    expect(updatesOf(hmrPath('handbook'))).toHaveLength(1)
  })

  it('shows an invalid document in Vite\'s overlay, serves the last valid pages meanwhile, and takes the fix', async () => {
    const failed = nextEvent('notes', 'error')
    writeFileSync(join(work, 'notes/alpha.md'), '---\ndescription: [oops]\n---\n# Alpha\n\nA zebra on a bike.\n')
    const error = await failed
    expect(error.message).toBe('Routed index pages of notes: fix the invalid documents:\n\nnotes/alpha.md:2:14 error document-field-invalid: "description" must be a non-empty string.')
    await page.waitForSelector('vite-error-overlay', { state: 'attached' })
    const alpha = join(work, 'notes/alpha.md')
    expect(messages.at(-1)).toMatchObject({ type: 'error', err: { message: error.message, id: alpha, loc: { file: alpha, line: 2, column: 13 }, plugin: 'unplugin-skill-kit' } })
    expect(messages.at(-1)!.err!.frame).toContain('> 2 | description: [oops]')
    expect(lines.at(-1)).toBe(`skill-kit: ${error.message}`)
    expect(await app(a => a.summary('alpha'))).toBe('A zebra crossing.')
    // And to any page that loads the module now.
    const served = await fetch(`${origin}/@id/__x00__skill-kit-routes:name:notes`)
    expect(served.status).toBe(200)
    expect(await served.text()).toContain('A zebra crossing.')
    const notesUpdates = await app(a => a.updates('notes'))

    const updated = nextEvent('notes', 'update')
    writeFileSync(join(work, 'notes/alpha.md'), '# Alpha\n\nA zebra on a bike.\n')
    await updated
    await pageUpdated('notes', notesUpdates + 1)
    await page.waitForSelector('vite-error-overlay', { state: 'detached' })
    expect(await app(a => a.summary('alpha'))).toBe('A zebra on a bike.')
    expect(messages.filter(m => m.type === 'full-reload')).toEqual([])
    expect(await page.evaluate(() => window.kept)).toBe('yes')
  })

  it('reloads a page that opened on broken routed pages once they are fixed', async () => {
    const other = await browser.newPage()
    try {
      await other.goto(`${origin}/broken.html`)
      await other.waitForSelector('vite-error-overlay', { state: 'attached', timeout: 30_000 })
      const updated = nextEvent('broken', 'update')
      writeFileSync(join(work, 'broken/fine.md'), '---\ndescription: Fine now.\n---\nFixed.\n')
      await updated
      await other.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: 30_000 })
      expect(await other.evaluate(() => window.brokenIds)).toEqual(['fine'])
    }
    finally {
      await other.close()
    }
  })
})
