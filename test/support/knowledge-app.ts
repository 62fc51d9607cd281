/**
 * The app of the browser tests, built with any bundler: a page that imports a
 * knowledge base with `includeModel: true` and searches it when the test asks;
 * a static server for the build; Chromium pages that record what they fetch;
 * and the ranking Node gives with the build's model, which pages must match.
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
import { expect } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { readPublishedIndex } from '../../src/knowledge/publish'
import { decodeSnapshot, searchFused, searchLexical, searchVectors } from '../../src/runtime'

export { TINY_MODEL_ID }

export const repo = resolve(import.meta.dirname, '../..')
/** The package under test, as `npm run build` made it. */
export const dist = join(repo, 'dist')
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** The last with a typo (`bakcup`), which lexical search corrects (in `auto` too). */
export const VECTOR_QUERIES = ['restore deleted files from a backup', 'wifi keeps dropping', 'nightly backup schedule', 'router channel', 'nightly bakcup schedule']
/** Searched lexically too: the last with words written apart that the index holds as one term (`wi fi`). */
export const LEXICAL_QUERIES = [...VECTOR_QUERIES, 'wi fi router']
export const LEXICAL_QUERY = 'borg archive'
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
  auto: (queries, options) => report(async () => {
    const out = []
    for (const query of queries)
      out.push(pick(await search(query, options)))
    return out
  }),
}
document.body.dataset.ready = 'yes'
`

/** The entry of builds by {@link buildBrowserApp}, as its index.html loads it. */
export const BROWSER_ENTRY = 'js/main.js'

/** Runs a webpack-like compiler once, failing with the text of every error. */
function runCompiler(compiler: any): Promise<void> {
  return new Promise((resolve, reject) => {
    compiler.run((err: Error | null, stats: any) => {
      compiler.close(() => {
        if (err)
          return reject(err)
        if (stats.hasErrors())
          return reject(new Error(stats.toString({ all: false, errors: true })))
        resolve()
      })
    })
  })
}

/**
 * Builds the app for browsers with webpack, rspack or esbuild, minified, into `outDir`, its
 * entry in `js/` (not the output folder's root, so the page finds the assets from the output
 * folder, not from the script), with an index.html that loads it.
 */
export async function buildBrowserApp(bundler: 'webpack' | 'rspack' | 'esbuild', entry: string, options: object, work: string, outDir: string): Promise<void> {
  const plugin = (await import(pathToFileURL(join(dist, `${bundler}.mjs`)).href)).default
  if (bundler === 'esbuild') {
    const esbuild = await import('esbuild')
    await esbuild.build({
      entryPoints: { main: entry },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      splitting: true,
      minify: true,
      outdir: outDir,
      entryNames: 'js/[name]',
      chunkNames: 'js/[name]-[hash]',
      // Assets in a folder of their own: the model is found from the snapshot's URL, whatever the folder.
      assetNames: 'assets/[name]-[hash]',
      logLevel: 'silent',
      plugins: [plugin(options)],
    })
  }
  else {
    const config = {
      mode: 'production' as const,
      context: work,
      entry,
      target: 'web' as const,
      devtool: false as const,
      cache: false,
      // publicPath is webpack's default 'auto': computed at run time, from the script's URL.
      output: { path: outDir, filename: BROWSER_ENTRY, chunkFilename: 'js/[name].[contenthash].js', module: true, chunkFormat: 'module' as const },
      performance: false as const,
      plugins: [plugin(options)],
      infrastructureLogging: { level: 'none' as const },
    }
    const compiler = bundler === 'webpack'
      ? (await import('webpack')).default({ ...config, experiments: { outputModule: true } })
      : (await import('@rspack/core')).rspack({
          ...config,
          // The README's advice: no second, unused copy of ONNX Runtime's WebAssembly (nor its worker script).
          module: { rules: [{ test: /[\\/]onnxruntime-web[\\/]/, parser: { url: false, worker: false } }] },
        })
    await runCompiler(compiler)
  }
  writeFileSync(join(outDir, 'index.html'), indexHtml(`/${BROWSER_ENTRY}`))
}

/** A page that loads `script` as a module. */
export function indexHtml(script: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>skill-kit knowledge in a browser</title></head>
<body><script type="module" src="${script}"></script></body></html>
`
}

/** The app's sources in `work` (main.js, the guides), and the tiny model; the plugin options that import the guides with their model. */
export async function prepareApp(work: string): Promise<{ entry: string, options: object }> {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(work, 'guides'), { recursive: true })
  const models = join(work, 'models')
  await buildTinyModel(models)
  writeFileSync(join(work, 'main.js'), MAIN_JS)
  return {
    entry: join(work, 'main.js'),
    options: {
      root: work,
      offline: true,
      includeModel: true,
      knowledge: { guides: { dir: 'guides', model: { id: TINY_MODEL_ID, cacheDir: models } } },
    },
  }
}

interface Ranked { id: string, score: number }

/** The Node ranking of each of VECTOR_QUERIES, with the model and snapshot a build of `prepareApp(work)` published. */
export async function nodeRanking(work: string): Promise<Ranked[][]> {
  const published = readPublishedIndex(openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config.output)
  if (!published)
    throw new Error('The build published no index for the guides.')
  const snapshot = decodeSnapshot(published.snapshot)
  const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: join(work, 'models'), offline: true })
  try {
    const vectors = await embedder.embed(VECTOR_QUERIES, 'query')
    return vectors.map(vector => searchVectors(snapshot, vector, VECTOR_OPTIONS).map(({ id, score }) => ({ id, score })))
  }
  finally {
    await embedder.dispose()
  }
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is missing at ${CHROMIUM}: install it (Debian: apt-get update && apt-get install -y chromium), or set CHROMIUM_PATH. .ci/run installs it.`)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  })
}

/** What the dev server sent a page over its HMR WebSocket (pings and the greeting left out). */
export interface HmrMessage {
  type: string
  updates?: { type: string, path: string, acceptedPath: string }[]
  err?: { message: string, frame?: string, loc?: unknown, id?: string }
}

/**
 * Opens the dev server's app at `origin` in a fresh Chromium, pushes every HMR
 * message the page receives to `messages`, waits for `body[data-ready="yes"]`,
 * then marks the page with `window.kept = 'yes'`: a reload would lose it, so
 * tests can tell an update in place from a reload.
 */
export async function openHmrApp(origin: string, messages: HmrMessage[]): Promise<{ browser: Browser, page: Page }> {
  const browser = await launchChromium()
  const page = await browser.newPage()
  page.on('websocket', socket => socket.on('framereceived', ({ payload }) => {
    const message = JSON.parse(String(payload)) as HmrMessage
    if (message.type !== 'ping' && message.type !== 'connected')
      messages.push(message)
  }))
  await page.goto(`${origin}/`)
  await page.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: 30_000 })
  await page.evaluate(() => {
    (window as unknown as { kept: string }).kept = 'yes'
  })
  return { browser, page }
}

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
export const TRANSFORMERS_MARKERS = ['huggingface.co', 'InferenceSession', 'onnxruntime']

/** Every file under `dir`, relative, with `/`. */
export function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile())
    .map(e => join(e.parentPath, e.name).slice(dir.length + 1).split(sep).join('/'))
}

/** The built JavaScript files under `dir` that carry Transformers.js. */
export function transformersChunks(dir: string): string[] {
  return filesOf(dir).filter(f => f.endsWith('.js') && TRANSFORMERS_MARKERS.every(m => readFileSync(join(dir, f), 'utf8').includes(m)))
}

interface Hit { id: string, score: number, heading: string[] }
type Report<T> = { ok: true, value: T } | { ok: false, error: string }
declare const window: { skillKit: { name: string, documents: string[], lexical: (q: string) => Promise<Report<Hit[]>>, vector: (q: string[], o: object) => Promise<Report<Hit[][]>>, auto: (q: string[], o: object) => Promise<Report<Hit[][]>> } }

function value<T>(report: Report<T>): T {
  if (!report.ok)
    throw new Error(`in the page: ${report.error}`)
  return report.value
}

/** A page of the built app, on its own server and browser context, with what it asked the network for. */
export interface AppPage {
  page: Page
  origin: string
  /** Every URL the page and its workers asked for, in order. */
  requests: string[]
  /** Requests that would have left the local server: aborted, and a failure. */
  escaped: string[]
  errors: string[]
  close: () => Promise<void>
}

/** Opens the app built into `dir` (its `index.html`). */
export async function openApp(browser: Browser, dir: string, isolated: boolean): Promise<AppPage> {
  return openServedApp(browser, await serve(dir, isolated))
}

/** Opens the app a server at `origin` serves (its `/`); closing the page closes the server. */
export async function openServedApp(browser: Browser, server: { origin: string, close: () => Promise<void> }): Promise<AppPage> {
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

export function documentIds(app: AppPage): Promise<string[]> {
  return app.page.evaluate(() => window.skillKit.documents)
}

/** What the page's lexical search found for `query`. */
export async function lexicalSearch(app: AppPage, query: string): Promise<Hit[]> {
  return value(await app.page.evaluate(q => window.skillKit.lexical(q), query))
}

/**
 * Node's default (fused) rankings of each of VECTOR_QUERIES, and lexical
 * rankings of each of LEXICAL_QUERIES, over the snapshot a build of
 * `prepareApp(work)` published: what a page's `auto` and `lexical` searches
 * must return.
 */
export async function nodeDefaultRankings(work: string): Promise<{ auto: Ranked[][], lexical: Ranked[][] }> {
  const published = readPublishedIndex(openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config.output)!
  const snapshot = decodeSnapshot(published.snapshot)
  const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: join(work, 'models'), offline: true })
  try {
    const vectors = await embedder.embed(VECTOR_QUERIES, 'query')
    return {
      auto: vectors.map((vector, q) => searchFused(snapshot, VECTOR_QUERIES[q]!, vector, VECTOR_OPTIONS).map(({ id, score }) => ({ id, score }))),
      lexical: LEXICAL_QUERIES.map(query => searchLexical(snapshot, query).map(({ id, score }) => ({ id, score }))),
    }
  }
  finally {
    await embedder.dispose()
  }
}

/** What the page's default (`auto`) search found for VECTOR_QUERIES. */
export async function autoSearch(app: AppPage): Promise<Hit[][]> {
  return value(await app.page.evaluate(([q, o]) => window.skillKit.auto(q, o), [VECTOR_QUERIES, VECTOR_OPTIONS] as const))
}

/** The same IDs in the same order as Node's, and the same scores (the same code on the same numbers). */
export function expectSameRanking(found: Hit[][], expected: Ranked[][], queries: readonly string[] = VECTOR_QUERIES): void {
  expect(found).toHaveLength(queries.length)
  queries.forEach((query, q) => {
    expect(found[q]!.map(r => r.id), query).toEqual(expected[q]!.map(r => r.id))
    found[q]!.forEach((r, i) => expect(Math.abs(r.score - expected[q]![i]!.score), `${query}: ${r.id}`).toBeLessThan(1e-4))
  })
}

/** What the page's search found for VECTOR_QUERIES. */
export async function vectorSearch(app: AppPage): Promise<Hit[][]> {
  return value(await app.page.evaluate(([q, o]) => window.skillKit.vector(q, o), [VECTOR_QUERIES, VECTOR_OPTIONS] as const))
}

/** The page ranked every query as Node does: the same IDs in the same order, scores within 1e-4. */
export function expectNodeRanking(found: Hit[][], expected: Ranked[][]): void {
  VECTOR_QUERIES.forEach((query, q) => {
    expect(expected[q]).toHaveLength(3)
    expect(found[q]!.map(r => r.id), query).toEqual(expected[q]!.map(r => r.id))
    found[q]!.forEach((r, i) => expect(Math.abs(r.score - expected[q]![i]!.score), `${query}: ${r.id}`).toBeLessThan(1e-4))
  })
}

/** Every request URL kept in the page's Cache Storage. */
export function cachedUrls(app: AppPage): Promise<string[]> {
  return app.page.evaluate(async () => {
    const urls: string[] = []
    for (const key of await caches.keys())
      urls.push(...(await (await caches.open(key)).keys()).map(r => r.url))
    return urls
  })
}

/** Nothing left the local server, and the page logged no error. */
export function expectLocalAndQuiet({ origin, requests, escaped, errors }: AppPage): void {
  expect(escaped).toEqual([])
  expect(requests.filter(u => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([])
  expect(errors).toEqual([])
}

/** The page lists the documents and searches lexically having fetched the snapshot only: no model, no WebAssembly, no Transformers.js chunk. */
export async function expectLexicalWithoutModel(app: AppPage, outDir: string): Promise<void> {
  expect(await documentIds(app)).toEqual(['backups/schedule', 'network/wifi', 'restore-backup'])
  const lexical = await lexicalSearch(app, LEXICAL_QUERY)
  expect(lexical[0]).toMatchObject({ id: 'restore-backup', heading: ['Restore a backup', 'From the command line'] })
  expect(app.requests.filter(u => u.endsWith('.skillkit'))).toHaveLength(1)
  expect(app.requests.filter(u => /\/skill-kit\/|ort-wasm|\.wasm$/.test(u))).toEqual([])
  expect(app.requests.filter(u => transformersChunks(outDir).some(f => u.endsWith(`/${f}`)))).toEqual([])
}
