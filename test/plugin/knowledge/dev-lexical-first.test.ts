/**
 * A cold knowledge folder in a real Vite dev server, with a page in headless
 * Chromium: the module is served at once with the lexical index while the
 * embedder is held mid-build, the page searches it and is told the vectors
 * are pending; once embedding goes on, one HMR update brings the vectors
 * (no reload). A folder whose published index is fresh is served complete;
 * `vite build` waits for the vectors.
 *
 * Everything waits on events: the held embedder, the plugin's rebuild
 * events, the page's `onUpdate`. Needs Chromium at /usr/bin/chromium.
 */
import type { Browser, Page } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import type { Embedder } from '../../../src/knowledge/embedder'
import type { KnowledgeRebuildEvent } from '../../../src/plugin/knowledge/dev-server'
import type { SkillKitViteApi } from '../../../src/plugin/vite-api'
import type { HmrMessage } from '../../support/knowledge-app'
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel } from '../../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder } from '../../../src/knowledge/embedder'
import { decodeSnapshot } from '../../../src/runtime'
import { dist, indexHtml, openHmrApp, repo, TINY_MODEL_ID } from '../../support/knowledge-app'

const work = join(repo, 'test/.tmp/knowledge-dev-lexical-first')
const models = join(work, 'models')

const MAIN_JS = `
import guides from 'virtual:skill-kit/knowledge/guides'

let updates = 0
guides.onUpdate(() => { updates++ })
window.app = {
  vectors: () => guides.vectors,
  updates: () => updates,
  lexical: async query => (await guides.search(query, { mode: 'lexical' })).map(r => r.id),
  auto: async query => (await guides.search(query)).map(r => r.id),
  vectorError: query => guides.search(query, { mode: 'vector' }).then(() => 'none', error => error.code + ': ' + error.message),
}
document.body.dataset.ready = 'yes'
`

/** What SSR imports: the same knowledge base, searched in Node with the model cache. */
const SSR_JS = `export { default as guides } from 'virtual:skill-kit/knowledge/guides'\n`
const DRAFTS_JS = `export { default as drafts } from 'virtual:skill-kit/knowledge/drafts'\n`

interface PageApp {
  vectors: () => string
  updates: () => number
  lexical: (query: string) => Promise<string[]>
  auto: (query: string) => Promise<string[]>
  vectorError: (query: string) => Promise<string>
}
declare const window: { app: PageApp, kept?: string }

/** The plugin options of every server and build here: the guides (and drafts) with the tiny model. */
const options = (dir: string) => ({ offline: true, knowledge: { guides: { dir, model: { id: TINY_MODEL_ID, cacheDir: models } }, drafts: { dir: 'drafts', model: { id: TINY_MODEL_ID, cacheDir: models } } } })

/** A gate the embedder waits on: `entered` resolves when it does, `release` lets it go on. */
function gate(): { entered: Promise<void>, enter: () => void, released: Promise<void>, release: () => void } {
  let enter!: () => void
  let release!: () => void
  const entered = new Promise<void>((resolve) => {
    enter = resolve
  })
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  return { entered, enter, released, release }
}

/** A folder of the three home guides, cold: no index, no vector cache. */
function coldFolder(name: string): string {
  const dir = join(work, name)
  cpSync(join(repo, 'test/fixtures/knowledge/home'), dir, { recursive: true })
  return dir
}

describe('a cold knowledge folder in the Vite dev server: lexical at once, vectors through HMR', () => {
  let server: ViteDevServer
  let api: SkillKitViteApi
  let browser: Browser
  let page: Page
  let tiny: Embedder
  const messages: HmrMessage[] = []
  const events: KnowledgeRebuildEvent[] = []
  /** The gate the embedder waits on now. */
  let hold = gate()
  const app = <T>(run: (app: PageApp) => T | Promise<T>) => page.evaluate(`(${run.toString()})(window.app)`) as Promise<T>
  const skillKit = async () => (await import(pathToFileURL(join(dist, 'vite.mjs')).href)).default

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    coldFolder('guides')
    // Texts of its own: the guides' vectors, cached by then, would spare its build the embedder.
    mkdirSync(join(work, 'drafts/network'), { recursive: true })
    writeFileSync(join(work, 'drafts/network/wifi.md'), '# Wi-Fi\n\nMove the router to the hallway.\n')
    writeFileSync(join(work, 'drafts/printer.md'), '# Printer\n\nReplace the toner cartridge.\n')
    writeFileSync(join(work, 'drafts.js'), DRAFTS_JS)
    await buildTinyModel(models)
    tiny = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
    writeFileSync(join(work, 'main.js'), MAIN_JS)
    writeFileSync(join(work, 'ssr.js'), SSR_JS)
    writeFileSync(join(work, 'index.html'), indexHtml('/main.js'))
    server = await createServer({ configFile: false, root: work, logLevel: 'silent', plugins: [(await skillKit())(options('guides'))], server: { port: 0, host: '127.0.0.1' } })
    await server.listen()
    api = (server.config.plugins.find(p => p.name === 'unplugin-skill-kit') as unknown as { api: SkillKitViteApi }).api
    api.onKnowledgeRebuild(event => events.push(event))
    // The tiny model, held until the test releases it: embedding is still going on while the page searches.
    api.setKnowledgeEmbedder({
      ...tiny,
      embedTokens: async (windows, kind) => {
        hold.enter()
        await hold.released
        return tiny.embedTokens(windows, kind)
      },
    })
    ;({ browser, page } = await openHmrApp(`http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`, messages))
  }, 120_000)

  afterAll(async () => {
    hold.release()
    await browser?.close()
    await server?.close()
    await tiny?.dispose()
  })

  it('serves the lexical index while the documents are embedded, then the vectors in one update, without a reload', async () => {
    // The page opened while embedding is held: its module did not wait for the vectors.
    await hold.entered
    expect(await app(a => a.vectors())).toBe('pending')
    expect(await app(a => a.lexical('router channel'))).toEqual(['network/wifi'])
    // `auto` ranks by words while the vectors are pending; a vector search says why it cannot yet.
    expect((await app(a => a.auto('nightly backup schedule')))[0]).toBe('backups/schedule')
    expect(await app(a => a.vectorError('wifi keeps dropping'))).toMatch(/^vectors-pending: "guides" is still being embedded by the Vite dev server/)
    expect(events).toEqual([])

    const updated = new Promise<KnowledgeRebuildEvent>((resolve) => {
      const stop = api.onKnowledgeRebuild((event) => {
        stop()
        resolve(event)
      })
    })
    hold.release()
    expect(await updated).toMatchObject({ type: 'update', name: 'guides', changes: [] })
    await page.waitForFunction(() => window.app.updates() === 1, undefined, { timeout: 30_000 })
    expect(await app(a => a.vectors())).toBe('complete')
    expect(await app(a => a.lexical('router channel'))).toEqual(['network/wifi'])
    const hmrPath = '\0skill-kit-knowledge:name:guides'
    expect(messages.filter(m => m.type === 'update')).toEqual([expect.objectContaining({ updates: [expect.objectContaining({ type: 'js-update', path: hmrPath, acceptedPath: hmrPath })] })])
    expect(messages.filter(m => m.type === 'full-reload')).toEqual([])
    expect(await page.evaluate(() => window.kept)).toBe('yes')

    // Node, after the update: the complete index, searched by vector with the build's model cache.
    const { guides } = await server.ssrLoadModule('/ssr.js')
    expect(guides.vectors).toBe('complete')
    expect((await guides.search('wifi keeps dropping', { mode: 'vector', threshold: -1 })).map((r: { id: string }) => r.id).sort()).toEqual(['backups/schedule', 'network/wifi', 'restore-backup'])
  }, 60_000)

  it('serves an edit made during the background build after it, never before', async () => {
    hold = gate()
    const { drafts } = await server.ssrLoadModule('/drafts.js')
    expect(drafts.vectors).toBe('pending')
    await hold.entered
    const file = join(work, 'drafts/network/wifi.md')
    const edited = new Promise<KnowledgeRebuildEvent>((resolve) => {
      const stop = api.onKnowledgeRebuild((event) => {
        if (event.name === 'drafts' && event.type === 'update' && event.changes.length > 0) {
          stop()
          resolve(event)
        }
      })
    })
    const seen = new Promise<void>((resolve) => {
      const listener = (_event: string, path: string) => {
        if (path === file) {
          server.watcher.off('all', listener)
          resolve()
        }
      }
      server.watcher.on('all', listener)
    })
    writeFileSync(file, '# Wi-Fi\n\nAdd a mesh repeater upstairs.\n')
    await seen
    hold.release()
    await edited
    // The background build's update (no change: the vectors) came first; the edit's is the last word.
    const updates = events.filter(e => e.name === 'drafts' && e.type === 'update')
    expect(updates.map(e => e.type === 'update' && e.changes)).toEqual([[], [file]])
    const latest = (await server.ssrLoadModule('/drafts.js')).drafts
    expect(latest.vectors).toBe('complete')
    expect(await latest.retrieve('network/wifi')).toBe('# Wi-Fi\n\nAdd a mesh repeater upstairs.\n')
    expect((await latest.search('mesh repeater', { mode: 'lexical' }))[0].id).toBe('network/wifi')
  }, 60_000)

  it('serves a folder whose published index is fresh complete at once, with no background build', async () => {
    // A second server over the folder the first one embedded and published.
    const again = await createServer({ configFile: false, root: work, logLevel: 'silent', plugins: [(await skillKit())(options('guides'))], server: { middlewareMode: true, ws: false } })
    try {
      const seen: KnowledgeRebuildEvent[] = []
      ;(again.config.plugins.find(p => p.name === 'unplugin-skill-kit') as unknown as { api: SkillKitViteApi }).api.onKnowledgeRebuild(event => seen.push(event))
      const { guides } = await again.ssrLoadModule('/ssr.js')
      expect(guides.vectors).toBe('complete')
      expect((await guides.search('wifi keeps dropping', { mode: 'vector', threshold: -1 }))).toHaveLength(3)
      expect(seen).toEqual([])
    }
    finally {
      await again.close()
    }
  }, 60_000)

  it('makes `vite build` wait for the vectors of a cold folder', async () => {
    coldFolder('cold')
    const outDir = join(work, 'out')
    await build({ configFile: false, root: work, logLevel: 'silent', plugins: [(await skillKit())(options('cold'))], build: { outDir, ssr: 'ssr.js', emptyOutDir: true } })
    const files = readdirSync(outDir, { recursive: true }).map(String)
    const snapshot = files.find(file => file.endsWith('.skillkit'))!
    const decoded = decodeSnapshot(readFileSync(join(outDir, snapshot)))
    expect(decoded.dimensions).toBeGreaterThan(0)
    expect(decoded.vectors?.length).toBeGreaterThan(0)
    const code = files.filter(file => file.endsWith('.js') || file.endsWith('.mjs')).map(file => readFileSync(join(outDir, file), 'utf8')).join('\n')
    expect(code).not.toContain('vectorsPending: true')
  }, 60_000)
})
