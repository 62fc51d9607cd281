/**
 * A Vite production build of an app that imports a knowledge base with
 * `includeModel: true`, run in a real headless Chromium: the page embeds
 * queries itself (the app's bundled Transformers.js, the emitted model and
 * ONNX Runtime WebAssembly files, nothing from the network) and ranks exactly
 * as Node does with the build's model.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without types
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { readPublishedIndex } from '../../src/knowledge/publish'
import { decodeSnapshot, searchVectors } from '../../src/runtime'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/browser-knowledge')
const models = join(work, 'models')
const outDir = join(work, 'dist')
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/** The package under test, as `npm run build` made it. */
const dist = join(repo, 'dist')

const VECTOR_QUERIES = ['restore deleted files from a backup', 'wifi keeps dropping', 'nightly backup schedule', 'router channel']
const LEXICAL_QUERY = 'borg archive'
/** Every document of the three, whatever its score: the whole ranking is compared. */
const VECTOR_OPTIONS = { topK: 10, threshold: -1 }

/** The app: runs searches when the test asks, and reports them on `window`. */
const MAIN_JS = `
import guides, { documents, search } from 'virtual:skill-kit/knowledge/guides'

const pick = results => results.map(r => ({ id: r.id, score: r.score, heading: r.heading }))
const report = run => run().then(value => ({ ok: true, value }), error => ({ ok: false, error: String(error && error.stack || error) }))

window.skillKit = {
  name: guides.name,
  documents: documents.map(d => d.id),
  lexical: query => report(async () => pick(await search(query, { mode: 'lexical' }))),
  vector: (queries, options) => report(async () => {
    const out = []
    for (const query of queries)
      out.push(pick(await search(query, { ...options, mode: 'vector' })))
    return out
  }),
}
document.body.dataset.ready = 'yes'
`

const INDEX_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>skill-kit knowledge in a browser</title></head>
<body><script type="module" src="/main.js"></script></body></html>
`

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
}

/**
 * A static server of `dir` on 127.0.0.1, with the MIME types browsers insist
 * on (wasm, modules); `isolated` adds the headers of cross-origin isolation
 * (SharedArrayBuffer, so ONNX Runtime may use threads).
 */
async function serve(dir: string, isolated: boolean): Promise<{ origin: string, close: () => Promise<void> }> {
  const isolation = isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {}
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)
    const file = normalize(join(dir, path === '/' ? 'index.html' : path))
    if (!file.startsWith(dir + sep) || !existsSync(file)) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store', ...isolation })
    response.end(readFileSync(file))
  })
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise(done => server.close(() => done())),
  }
}

/** Strings only Transformers.js and ONNX Runtime Web carry. */
const TRANSFORMERS_MARKERS = ['huggingface.co', 'InferenceSession', 'onnxruntime']

/** Every file under `dir`, relative, with `/`. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile())
    .map(e => join(e.parentPath, e.name).slice(dir.length + 1).split(sep).join('/'))
}

/** The built JavaScript chunks that carry Transformers.js. */
function transformersChunks(): string[] {
  return filesOf(outDir).filter(f => f.endsWith('.js') && TRANSFORMERS_MARKERS.every(m => readFileSync(join(outDir, f), 'utf8').includes(m)))
}

interface Hit { id: string, score: number, heading: string[] }
type Report<T> = { ok: true, value: T } | { ok: false, error: string }
declare const window: { skillKit: { name: string, documents: string[], lexical: (q: string) => Promise<Report<Hit[]>>, vector: (q: string[], o: object) => Promise<Report<Hit[][]>> } }

function value<T>(report: Report<T>): T {
  if (!report.ok)
    throw new Error(`in the page: ${report.error}`)
  return report.value
}

/** A page of the built app, on its own server and browser context, with what it asked the network for. */
interface AppPage {
  page: Page
  origin: string
  /** Every URL the page and its workers asked for, in order. */
  requests: string[]
  /** Requests that would have left the local server: aborted, and a failure. */
  escaped: string[]
  errors: string[]
  close: () => Promise<void>
}

async function openApp(browser: Browser, isolated: boolean): Promise<AppPage> {
  const server = await serve(outDir, isolated)
  const { origin } = server
  const context = await browser.newContext({ serviceWorkers: 'block' })
  const requests: string[] = []
  const escaped: string[] = []
  const errors: string[] = []
  // Only the local server answers; anything else is recorded and aborted.
  await context.route('**/*', (route) => {
    const url = route.request().url()
    if (url.startsWith(`${origin}/`))
      return route.continue()
    escaped.push(url)
    return route.abort('blockedbyclient')
  })
  context.on('request', request => requests.push(request.url()))
  const page = await context.newPage()
  page.on('console', m => m.type() === 'error' && errors.push(m.text()))
  page.on('pageerror', error => errors.push(String(error)))
  page.on('worker', worker => worker.on('console', m => m.type() === 'error' && errors.push(m.text())))
  await page.goto(`${origin}/`)
  await page.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: 10_000 })
  return {
    page,
    origin,
    requests,
    escaped,
    errors,
    close: async () => {
      await context.close()
      await server.close()
    },
  }
}

/** What the page's search found for VECTOR_QUERIES. */
async function vectorSearch(app: AppPage): Promise<Hit[][]> {
  return value(await app.page.evaluate(([q, o]) => window.skillKit.vector(q, o), [VECTOR_QUERIES, VECTOR_OPTIONS] as const))
}

/** Every request URL kept in the page's Cache Storage. */
function cachedUrls(app: AppPage): Promise<string[]> {
  return app.page.evaluate(async () => {
    const urls: string[] = []
    for (const key of await caches.keys())
      urls.push(...(await (await caches.open(key)).keys()).map(r => r.url))
    return urls
  })
}

describe('a Vite app with includeModel, in headless Chromium', () => {
  let browser: Browser | undefined
  let app: AppPage | undefined
  let isolatedApp: AppPage | undefined
  /** The Node ranking of each of VECTOR_QUERIES, with the build's model. */
  let expected: { id: string, score: number }[][]

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`Chromium is missing at ${CHROMIUM}: install it (Debian: apt-get update && apt-get install -y chromium), or set CHROMIUM_PATH. .ci/run installs it.`)

    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    cpSync(join(repo, 'test/fixtures/knowledge/home'), join(work, 'guides'), { recursive: true })
    await buildTinyModel(models)
    writeFileSync(join(work, 'index.html'), INDEX_HTML)
    writeFileSync(join(work, 'main.js'), MAIN_JS)

    const { build } = await import('vite')
    const skillKit = (await import(pathToFileURL(join(dist, 'vite.mjs')).href)).default
    await build({
      configFile: false,
      root: work,
      logLevel: 'silent',
      plugins: [skillKit({
        root: work,
        offline: true,
        includeModel: true,
        knowledge: { guides: { dir: 'guides', model: { id: TINY_MODEL_ID, cacheDir: models } } },
      })],
      build: { outDir, emptyOutDir: true, copyPublicDir: false },
    })

    const published = readPublishedIndex(openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config.output)
    if (!published)
      throw new Error('The build published no index for the guides.')
    const snapshot = decodeSnapshot(published.snapshot)
    const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
    try {
      const vectors = await embedder.embed(VECTOR_QUERIES, 'query')
      expected = vectors.map(vector => searchVectors(snapshot, vector, VECTOR_OPTIONS).map(({ id, score }) => ({ id, score })))
    }
    finally {
      await embedder.dispose()
    }

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    })
    app = await openApp(browser, false)
  }, 60_000)

  afterAll(async () => {
    await app?.close()
    await isolatedApp?.close()
    await browser?.close()
  })

  it('emits the model and ONNX Runtime\'s WebAssembly files as assets', () => {
    const files = filesOf(outDir)
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'])
      expect(files.some(f => f.match(/^skill-kit\/models\/[\w-]{10}\/(.+)$/)?.[1] === `${TINY_MODEL_ID}/${file}`), file).toBe(true)
    expect(files.some(f => /ort-wasm-simd-threaded\.asyncify.*\.wasm$/.test(f))).toBe(true)
    expect(files.some(f => /ort-wasm-simd-threaded\.asyncify.*\.mjs$/.test(f))).toBe(true)
  })

  it('keeps Transformers.js and the bodies out of the entry chunk', () => {
    const html = readFileSync(join(outDir, 'index.html'), 'utf8')
    const entry = /<script type="module"[^>]*src="\/([^"]+)"/.exec(html)?.[1]
    expect(entry).toMatch(/^assets\/index-.*\.js$/)
    const code = readFileSync(join(outDir, entry!), 'utf8')
    // Transformers.js is in the bundle, in a chunk of its own.
    expect(transformersChunks()).toHaveLength(1)
    expect(transformersChunks()).not.toContain(entry)
    for (const marker of TRANSFORMERS_MARKERS)
      expect(code.includes(marker), `the entry chunk contains ${marker}`).toBe(false)
    // No document body either.
    for (const body of ['borg list', 'less crowded 5 GHz', 'keep 7 daily'])
      expect(code.includes(body), `the entry chunk contains "${body}"`).toBe(false)
  })

  it('lists the documents and searches lexically without loading the model', async () => {
    const { page, requests } = app!
    expect(await page.evaluate(() => window.skillKit.documents)).toEqual(['backups/schedule', 'network/wifi', 'restore-backup'])
    const lexical = value(await page.evaluate(q => window.skillKit.lexical(q), LEXICAL_QUERY))
    expect(lexical[0]).toMatchObject({ id: 'restore-backup', heading: ['Restore a backup', 'From the command line'] })
    // Only the snapshot was fetched: no model file, no WebAssembly, no Transformers.js chunk.
    expect(requests.filter(u => u.endsWith('.skillkit'))).toHaveLength(1)
    expect(requests.filter(u => /\/skill-kit\/models\/|ort-wasm|\.wasm$/.test(u))).toEqual([])
    expect(requests.filter(u => transformersChunks().some(f => u.endsWith(`/${f}`)))).toEqual([])
  })

  it('embeds queries in the page and ranks exactly as Node does', async () => {
    const found = await vectorSearch(app!)
    VECTOR_QUERIES.forEach((query, q) => {
      expect(expected[q]).toHaveLength(3)
      expect(found[q]!.map(r => r.id), query).toEqual(expected[q]!.map(r => r.id))
      found[q]!.forEach((r, i) => expect(Math.abs(r.score - expected[q]![i]!.score), `${query}: ${r.id}`).toBeLessThan(1e-4))
    })
    // The model and the WebAssembly came from the build's assets.
    const { requests } = app!
    const modelFiles = requests.filter(u => u.endsWith(`/${TINY_MODEL_ID}/onnx/model_quantized.onnx`))
    expect(modelFiles).toHaveLength(1)
    expect(modelFiles[0]).toMatch(/\/skill-kit\/models\/[\w-]{10}\/skill-kit-test\/tiny-bert\//)
    expect(requests.some(u => /\/assets\/ort-wasm-simd-threaded\.asyncify-[^/]*\.wasm$/.test(u))).toBe(true)
    // Transformers.js keeps the model in the Cache API under its versioned URL, so a rebuild with other weights gets other URLs.
    expect((await cachedUrls(app!)).filter(u => u.includes('/skill-kit/models/'))).toContain(modelFiles[0])
  })

  it('ranks the same in a cross-origin isolated page (SharedArrayBuffer available)', async () => {
    isolatedApp = await openApp(browser!, true)
    expect(await isolatedApp.page.evaluate(() => globalThis.crossOriginIsolated)).toBe(true)
    const found = await vectorSearch(isolatedApp)
    VECTOR_QUERIES.forEach((query, q) => {
      expect(found[q]!.map(r => r.id), query).toEqual(expected[q]!.map(r => r.id))
      found[q]!.forEach((r, i) => expect(Math.abs(r.score - expected[q]![i]!.score), `${query}: ${r.id}`).toBeLessThan(1e-4))
    })
  })

  it('never reached beyond the local server, and logged no error', () => {
    for (const { origin, requests, escaped, errors } of [app!, isolatedApp!]) {
      expect(escaped).toEqual([])
      expect(requests.filter(u => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([])
      expect(errors).toEqual([])
    }
  })
})
