/**
 * Knowledge bases in a real Vite dev server, with a page in headless
 * Chromium: edits, added and deleted documents, a burst of files, an edit
 * during embedding, a folder swapped in by rename, and invalid input reach
 * the page through HMR (one update message each, the page keeps its state),
 * or show Vite's overlay while the last valid index is served.
 *
 * Everything waits on events: the plugin's rebuild events (its Vite `api`),
 * the dev server's file watcher, the page's `onUpdate`, WebSocket frames.
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser, Page } from 'playwright-core'
import type { Logger, ViteDevServer } from 'vite'
import type { Embedder } from '../../src/knowledge/embedder'
import type { SkillKitViteApi } from '../../src/plugin/vite-api'
import type { KnowledgeRebuildEvent } from '../../src/plugin/knowledge/dev-server'
import type { HmrMessage } from '../support/knowledge-app'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createLogger, createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { readPublishedIndex } from '../../src/knowledge/publish'
import { dist, indexHtml, openHmrApp, repo, TINY_MODEL_ID } from '../support/knowledge-app'
import { buildTinyModel } from '../../scripts/models/tiny-bert.mjs'

const work = join(repo, 'test/.tmp/knowledge-hmr')

const MAIN_JS = `
import notes from 'virtual:skill-kit/knowledge/notes'
import shelf from 'virtual:skill-kit/knowledge/shelf'
import handbook from 'virtual:skill-kit/knowledge/handbook'
import guides from 'virtual:skill-kit/knowledge/guides'
import pad, { documents as padDocuments, search as padSearch } from './pad?knowledge'

const bases = { notes, shelf, handbook, guides, pad }
const updates = { notes: 0, shelf: 0, handbook: 0, guides: 0, pad: 0 }
for (const [name, base] of Object.entries(bases))
  base.onUpdate(() => { updates[name]++ })

window.app = {
  updates: name => updates[name],
  ids: name => bases[name].documents.map(d => d.id),
  lexical: async (name, query) => (await bases[name].search(query, { mode: 'lexical', threshold: 0 })).map(r => r.id),
  retrieve: (name, id) => bases[name].retrieve(id).catch(error => 'error: ' + error.message),
  // The named exports of a folder import, as an app that never touches the default export uses them.
  padExports: async query => ({ descriptions: padDocuments.map(d => d.description), found: (await padSearch(query, { mode: 'lexical', threshold: 0 })).map(r => r.id) }),
}
document.body.dataset.ready = 'yes'
`

/** A page that imports a knowledge base that is broken when it opens. */
const BROKEN_JS = `
import broken from 'virtual:skill-kit/knowledge/broken'
window.brokenIds = broken.documents.map(d => d.id)
document.body.dataset.ready = 'yes'
`

const doc = (description: string, body: string) => `---\ndescription: ${description}\n---\n${body}\n`

interface PageApp {
  ids: (name: string) => string[]
  updates: (name: string) => number
  lexical: (name: string, query: string) => Promise<string[]>
  retrieve: (name: string, id: string) => Promise<string>
  padExports: (query: string) => Promise<{ descriptions: string[], found: string[] }>
}
declare const window: { app: PageApp, kept?: string, brokenIds?: string[] }


describe('knowledge bases in the Vite dev server, with HMR to a page in Chromium', () => {
  let server: ViteDevServer
  let origin: string
  let api: SkillKitViteApi
  let browser: Browser
  let page: Page
  const events: KnowledgeRebuildEvent[] = []
  const messages: HmrMessage[] = []
  const lines: string[] = []
  /** While set, the instrumented embedder waits on it; `entered` resolves when it does. */
  let hold: { entered: () => void, release: Promise<void> } | undefined
  let tiny: Embedder

  const moduleUrl = (name: string) => `/@id/__x00__skill-kit-knowledge:name:${name}`
  /** The next rebuild event of `name` that `accept` takes. */
  const nextEvent = (name: string, type: KnowledgeRebuildEvent['type']) => new Promise<KnowledgeRebuildEvent>((resolve) => {
    const stop = api.onKnowledgeRebuild((event) => {
      if (event.name === name && event.type === type) {
        stop()
        resolve(event)
      }
    })
  })
  /** Resolves once the dev server's watcher has reported `path` (so the plugin, which listens first, has seen it). */
  const watcherSaw = (path: string) => new Promise<void>((resolve) => {
    const listener = (_event: string, seen: string) => {
      if (seen === path) {
        server.watcher.off('all', listener)
        resolve()
      }
    }
    server.watcher.on('all', listener)
  })
  /** The module id HMR messages name. */
  const hmrPath = (name: string) => `\0skill-kit-knowledge:name:${name}`
  const updatesOf = (name: string) => messages.filter(m => m.type === 'update' && m.updates?.some(u => u.path === hmrPath(name)))
  const app = <T>(run: (app: PageApp) => T | Promise<T>) => page.evaluate(`(${run.toString()})(window.app)`) as Promise<T>
  /** Waits until the page's `onUpdate` of `name` has run `count` times in all. */
  const pageUpdated = (name: string, count: number) => page.waitForFunction(([n, c]) => window.app.updates(n as string) === c, [name, count] as const, { timeout: 30_000 })

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(join(work, 'notes'), { recursive: true })
    writeFileSync(join(work, 'notes/alpha.md'), doc('Alpha notes.', '# Alpha\n\nThe first note.'))
    writeFileSync(join(work, 'notes/beta.md'), doc('Beta notes.', '# Beta\n\nThe second note.'))
    mkdirSync(join(work, 'pad'))
    writeFileSync(join(work, 'pad/sketch.md'), doc('A pencil sketch.', '# Sketch\n\nGraphite lines.'))
    mkdirSync(join(work, 'shelf'))
    writeFileSync(join(work, 'shelf/old-book.md'), doc('An old book.', '# Old book\n\nDusty pages.'))
    mkdirSync(join(work, 'handbook/docs'), { recursive: true })
    writeFileSync(join(work, 'handbook/skill-kit.json'), JSON.stringify({ name: 'handbook', knowledge: 'docs', model: false, search: { topK: 1 } }))
    writeFileSync(join(work, 'handbook/docs/one.md'), doc('Page one.', '# One\n\nA handbook page about ladders.'))
    writeFileSync(join(work, 'handbook/docs/two.md'), doc('Page two.', '# Two\n\nAnother handbook page about ladders.'))
    mkdirSync(join(work, 'broken'))
    writeFileSync(join(work, 'broken/fine.md'), doc('[not a string]', 'Broken from the start.'))
    mkdirSync(join(work, 'guides/network'), { recursive: true })
    writeFileSync(join(work, 'guides/network/wifi.md'), doc('Fix a Wi-Fi connection.', '# Wi-Fi\n\nRestart the router.'))
    const models = join(work, 'models')
    await buildTinyModel(models)
    tiny = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
    writeFileSync(join(work, 'main.js'), MAIN_JS)
    writeFileSync(join(work, 'index.html'), indexHtml('/main.js'))
    writeFileSync(join(work, 'broken.js'), BROKEN_JS)
    writeFileSync(join(work, 'broken.html'), indexHtml('/broken.js'))

    const logger: Logger = { ...createLogger('silent'), info: message => lines.push(message), error: message => lines.push(message) }
    const skillKit = (await import(pathToFileURL(join(dist, 'vite.mjs')).href)).default
    server = await createServer({
      configFile: false,
      root: work,
      customLogger: logger,
      plugins: [skillKit({
        offline: true,
        knowledge: {
          notes: { dir: 'notes', model: false },
          shelf: { dir: 'shelf', model: false },
          handbook: 'handbook',
          broken: { dir: 'broken', model: false },
          guides: { dir: 'guides', model: { id: TINY_MODEL_ID, cacheDir: models } },
        },
      })],
      server: { port: 0, host: '127.0.0.1' },
    })
    await server.listen()
    origin = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
    api = (server.config.plugins.find(p => p.name === 'unplugin-skill-kit') as unknown as { api: SkillKitViteApi }).api
    api.onKnowledgeRebuild(event => events.push(event))
    // The tiny model, with a gate: a test holds a build in the middle of embedding.
    api.setKnowledgeEmbedder({
      ...tiny,
      embedTokens: async (windows, kind) => {
        if (hold) {
          hold.entered()
          await hold.release
        }
        return tiny.embedTokens(windows, kind)
      },
    })

    // The guides and the pad (a folder import with the default model) are cold: the page gets their lexical
    // index at once, and their vectors in one update each.
    const guidesEmbedded = nextEvent('guides', 'update')
    const padEmbedded = nextEvent('pad', 'update')
    ;({ browser, page } = await openHmrApp(origin, messages))
    await Promise.all([guidesEmbedded, padEmbedded])
    await pageUpdated('guides', 1)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await tiny?.dispose()
  })

  it('edits, adds and deletes documents: the page searches the new index, keeps its state, one update message each', async () => {
    expect(await app(a => a.ids('notes'))).toEqual(['alpha', 'beta'])

    let updated = nextEvent('notes', 'update')
    writeFileSync(join(work, 'notes/alpha.md'), doc('Alpha notes.', '# Alpha\n\nA zebra crossing.'))
    await updated
    await pageUpdated('notes', 1)
    expect(await app(a => a.lexical('notes', 'zebra crossing'))).toEqual(['alpha'])
    expect(await app(a => a.retrieve('notes', 'alpha'))).toBe('# Alpha\n\nA zebra crossing.\n')

    updated = nextEvent('notes', 'update')
    writeFileSync(join(work, 'notes/gamma.md'), doc('Gamma notes.', '# Gamma\n\nA giraffe.'))
    await updated
    await pageUpdated('notes', 2)
    expect(await app(a => a.ids('notes'))).toEqual(['alpha', 'beta', 'gamma'])
    expect(await app(a => a.lexical('notes', 'giraffe'))).toEqual(['gamma'])

    updated = nextEvent('notes', 'update')
    rmSync(join(work, 'notes/beta.md'))
    await updated
    await pageUpdated('notes', 3)
    expect(await app(a => a.ids('notes'))).toEqual(['alpha', 'gamma'])
    expect(await app(a => a.retrieve('notes', 'beta'))).toBe('error: "beta" is not a document of "notes". Search first, and retrieve an ID from the results.')

    expect(updatesOf('notes')).toHaveLength(3)
    for (const message of updatesOf('notes'))
      expect(message.updates).toEqual([expect.objectContaining({ type: 'js-update', path: hmrPath('notes'), acceptedPath: hmrPath('notes') })])
    expect(messages.filter(m => m.type === 'full-reload')).toEqual([])
    expect(await page.evaluate(() => window.kept)).toBe('yes')
    expect(lines.filter(l => l.includes('skill-kit: notes: updated')).map(l => l.replace(/\d+ ms/, 'N ms'))).toEqual([
      'skill-kit: notes: updated in N ms (notes/alpha.md changed)',
      'skill-kit: notes: updated in N ms (notes/gamma.md changed)',
      'skill-kit: notes: updated in N ms (notes/beta.md changed)',
    ])
  })

  it('updates a folder import (?knowledge) the same way, named exports included', async () => {
    expect(await app(a => a.padExports('charcoal'))).toEqual({ descriptions: ['A pencil sketch.'], found: [] })
    // After the update with the pad's vectors (beforeAll).
    const seen = await app(a => a.updates('pad'))
    const from = messages.length
    const updated = nextEvent('pad', 'update')
    writeFileSync(join(work, 'pad/sketch.md'), doc('A charcoal sketch.', '# Sketch\n\nCharcoal lines.'))
    await updated
    await pageUpdated('pad', seen + 1)
    expect(await app(a => a.padExports('charcoal'))).toEqual({ descriptions: ['A charcoal sketch.'], found: ['sketch'] })
    const folderModule = '\0skill-kit-knowledge:dir:pad'
    expect(messages.slice(from).filter(m => m.type === 'update' && m.updates?.some(u => u.path === folderModule))).toHaveLength(1)
    expect(await page.evaluate(() => window.kept)).toBe('yes')
  })

  it('builds a burst of 60 added files once, and never for hidden entries', async () => {
    const before = events.length
    const updated = nextEvent('notes', 'update')
    // Hidden: not a document, so no change to build for.
    mkdirSync(join(work, 'notes/.drafts'), { recursive: true })
    writeFileSync(join(work, 'notes/.drafts/later.md'), doc('Later.', 'Not yet.'))
    for (let i = 0; i < 60; i++)
      writeFileSync(join(work, `notes/burst-${String(i).padStart(2, '0')}.md`), doc(`Burst ${i}.`, `# Burst ${i}\n\nPacket number ${i}.`))
    const update = await updated
    expect(events.slice(before).filter(e => e.name === 'notes').map(e => e.type)).toEqual(['start', 'update'])
    expect(update.type === 'update' && update.changes).toHaveLength(60)
    await pageUpdated('notes', 4)
    expect(await app(a => a.ids('notes'))).toHaveLength(62)
    expect(updatesOf('notes')).toHaveLength(4)
    expect(lines.filter(l => l.includes('skill-kit: notes: updated')).at(-1)).toMatch(/^skill-kit: notes: updated in \d+ ms \(60 changes\)$/)
  })

  it('never publishes a build that a change made stale during embedding, and serves the final one', async () => {
    const file = join(work, 'guides/network/wifi.md')
    const before = events.length
    let entered!: () => void
    const embedding = new Promise<void>((resolve) => {
      entered = resolve
    })
    let release!: () => void
    hold = { entered, release: new Promise<void>((resolve) => {
      release = resolve
    }) }
    const updated = nextEvent('guides', 'update')
    writeFileSync(file, doc('Fix a Wi-Fi connection.', '# Wi-Fi\n\nAdd a mesh repeater, first try.'))
    await embedding
    // The build embeds the first edit; a second one comes, and the watcher reports it, before the build may end.
    hold = undefined
    const seen = watcherSaw(file)
    writeFileSync(file, doc('Fix a Wi-Fi connection.', '# Wi-Fi\n\nAdd a mesh repeater, second try.'))
    await seen
    release()
    await updated
    expect(events.slice(before).filter(e => e.name === 'guides').map(e => e.type)).toEqual(['start', 'discard', 'start', 'update'])
    expect(lines).toContain('skill-kit: guides: files changed during the build; building again')
    // After the update with the vectors of the cold folder (beforeAll).
    await pageUpdated('guides', 2)
    expect(await app(a => a.retrieve('guides', 'network/wifi'))).toBe('# Wi-Fi\n\nAdd a mesh repeater, second try.\n')
    expect(updatesOf('guides')).toHaveLength(2)
    // The first try was never published either.
    const published = readPublishedIndex(openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config.output)!
    expect(published.documents.find(d => d.id === 'network/wifi')!.body).toBe('# Wi-Fi\n\nAdd a mesh repeater, second try.\n')
    expect(await page.evaluate(() => window.kept)).toBe('yes')
  })

  it('takes a folder swapped in by rename', async () => {
    mkdirSync(join(work, 'shelf.new'))
    writeFileSync(join(work, 'shelf.new/new-book.md'), doc('A new book.', '# New book\n\nCrisp pages.'))
    writeFileSync(join(work, 'shelf.new/second-book.md'), doc('Another new book.', '# Second book\n\nMore crisp pages.'))
    const updated = nextEvent('shelf', 'update')
    renameSync(join(work, 'shelf'), join(work, 'shelf.old'))
    renameSync(join(work, 'shelf.new'), join(work, 'shelf'))
    await updated
    await pageUpdated('shelf', 1)
    expect(await app(a => a.ids('shelf'))).toEqual(['new-book', 'second-book'])
    expect(await app(a => a.lexical('shelf', 'crisp'))).toEqual(['new-book', 'second-book'])
    expect(updatesOf('shelf')).toHaveLength(1)
    expect(await page.evaluate(() => window.kept)).toBe('yes')
  })

  it('shows an invalid document in Vite\'s overlay, serves the last valid index meanwhile, and takes the fix', async () => {
    const failed = nextEvent('notes', 'error')
    writeFileSync(join(work, 'notes/alpha.md'), '---\ndescription: [oops]\n---\n# Alpha\n\nA zebra on a bike.\n')
    const error = await failed
    expect(error.type === 'error' && error.message).toBe('Knowledge base "notes" (notes) has 1 invalid document. Fix it:\n\nnotes/alpha.md:2:14 error document-field-invalid: "description" must be a non-empty string.')
    await page.waitForSelector('vite-error-overlay', { state: 'attached' })
    // At the file, line and 0-based column, with one code frame.
    const alpha = join(work, 'notes/alpha.md')
    expect(messages.at(-1)).toMatchObject({ type: 'error', err: { message: error.type === 'error' && error.message, id: alpha, loc: { file: alpha, line: 2, column: 13 }, plugin: 'unplugin-skill-kit' } })
    expect(messages.at(-1)!.err!.frame).toContain('> 2 | description: [oops]')
    // The last valid index, to this page and to any that loads the module now.
    expect(await app(a => a.retrieve('notes', 'alpha'))).toBe('# Alpha\n\nA zebra crossing.\n')
    const served = await fetch(`${origin}${moduleUrl('notes')}`)
    expect(served.status).toBe(200)
    const body = /import\("([^"]+:alpha\.js)"\)/.exec(await served.text())![1]
    expect(await (await fetch(`${origin}${body}`)).text()).toMatch(/^export default "# Alpha\\n\\nA zebra crossing\.\\n"\n/)
    expect(lines.at(-1)).toBe(`skill-kit: ${error.type === 'error' && error.message}`)
    // A page that opens now gets the last valid index, and the overlay.
    const other = await browser.newPage()
    try {
      await other.goto(`${origin}/`)
      await other.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: 30_000 })
      await other.waitForSelector('vite-error-overlay', { state: 'attached', timeout: 30_000 })
      expect(await other.evaluate(() => window.app.retrieve('notes', 'alpha'))).toBe('# Alpha\n\nA zebra crossing.\n')
    }
    finally {
      await other.close()
    }

    const updated = nextEvent('notes', 'update')
    writeFileSync(join(work, 'notes/alpha.md'), doc('Alpha notes.', '# Alpha\n\nA zebra on a bike.'))
    await updated
    await pageUpdated('notes', 5)
    await page.waitForSelector('vite-error-overlay', { state: 'detached' })
    expect(await app(a => a.retrieve('notes', 'alpha'))).toBe('# Alpha\n\nA zebra on a bike.\n')
    expect(await page.evaluate(() => window.kept)).toBe('yes')
  })

  it('shows an invalid skill-kit.json in the overlay and takes its fix', async () => {
    expect(await app(a => a.lexical('handbook', 'ladders'))).toHaveLength(1)
    const failed = nextEvent('handbook', 'error')
    writeFileSync(join(work, 'handbook/skill-kit.json'), JSON.stringify({ name: 'handbook', knowledge: 'docs', model: false, search: { topK: 'two' } }))
    const error = await failed
    expect(error.type === 'error' && error.message).toBe('Knowledge base "handbook" (handbook) cannot be built. Fix its settings:\n\nhandbook/skill-kit.json:1:70 error config-invalid: "search.topK" must be a positive integer.')
    await page.waitForSelector('vite-error-overlay', { state: 'attached' })
    expect(await app(a => a.lexical('handbook', 'ladders'))).toHaveLength(1)

    const updated = nextEvent('handbook', 'update')
    writeFileSync(join(work, 'handbook/skill-kit.json'), JSON.stringify({ name: 'handbook', knowledge: 'docs', model: false, search: { topK: 2 } }))
    await updated
    await pageUpdated('handbook', 1)
    await page.waitForSelector('vite-error-overlay', { state: 'detached' })
    expect(await app(a => a.lexical('handbook', 'ladders'))).toHaveLength(2)
    expect(await page.evaluate(() => window.kept)).toBe('yes')
  })

  it('reloads a page that opened on a broken knowledge base once it is fixed', async () => {
    const other = await browser.newPage()
    try {
      await other.goto(`${origin}/broken.html`)
      await other.waitForSelector('vite-error-overlay', { state: 'attached', timeout: 30_000 })
      const updated = nextEvent('broken', 'update')
      writeFileSync(join(work, 'broken/fine.md'), doc('Fine now.', 'Fixed.'))
      await updated
      await other.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: 30_000 })
      expect(await other.evaluate(() => window.brokenIds)).toEqual(['fine'])
    }
    finally {
      await other.close()
    }
  })
})
