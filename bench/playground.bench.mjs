// The playground's bundle budget and cold-load latency (issue 15), on the real corpus
// (the 147 Modern Web Guidance guides) and the real model (all-MiniLM-L6-v2):
//
// - initial JavaScript: the entry chunk and what it imports statically (modulepreload),
//   gzip level 9 (since issue 29, the docs site's home page and its search); everything
//   else (the guides' page and module, skill bodies, document bodies, routed pages,
//   Markdown renderer, Transformers.js) must be lazy chunks, and the snapshot, model and
//   ONNX Runtime files assets;
// - time to the first lexical result and to the first vector (fused: the search
//   component's ranking by meaning) result of the guides' search, from the start of
//   navigation to the Guides page (`/#guides`), on a cold load: a new browser context per
//   round (empty HTTP cache and Cache Storage), the production build served by `vite
//   preview`, the query typed into the component as soon as the page is ready (since
//   issue 29 the guides' module loads with that page, not with the site's first page);
// - the bytes the page fetched before its first semantic (fused) result: every resource
//   whose response ended before it (Resource Timing), as served and gzip -9;
// - both for each query encoder (issue 27), side by side: `static` (the query table the
//   build distils from the model, a query's shards fetched) and `model` (the model and
//   ONNX Runtime's WebAssembly in the page), built with PLAYGROUND_QUERY_ENCODER.
//
//   node bench/playground.bench.mjs [--rounds 5] [--encoder static|model] [--files] [--http2]   (prepares and builds the playground first;
//   --files lists what the first round fetched before its first semantic result; --http2 serves the build over
//   HTTP/2 with a throwaway self-signed certificate, as static hosts serve it, instead of HTTP/1.1's six connections;
//   --type-in-page types the query from inside the page the moment it is ready, instead of through Playwright, whose
//   round trips (hundreds of ms on a loaded machine) otherwise count as the page's time)

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { spawnSync } from 'node:child_process'
import { chromium } from 'playwright-core'
import { build, preview } from 'vite'
import { bytesOf, pageFigures, preparePlayground, printFetches, siteBenchArgs, watchSearch, within } from './site-search-page.mjs'
import { emitResult, fmtMs, isMain, median } from './util.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const playground = join(root, 'playground')
const dist = join(playground, 'dist')
const QUERY = 'lazy load offscreen images'

const kb = bytes => `${(bytes / 1024).toFixed(1)} KB`
const gzip = file => gzipSync(readFileSync(file), { level: 9 }).length

/** The entry chunk and its static imports, from index.html; every other file by kind. */
function bundleBudget() {
  const html = readFileSync(join(dist, 'index.html'), 'utf8')
  const initial = [...html.matchAll(/<script type="module"[^>]*src="\/([^"]+)"|<link rel="modulepreload"[^>]*href="\/([^"]+)"/g)].map(m => m[1] ?? m[2])
  const files = readdirRecursive(dist)
  const js = files.filter(f => f.endsWith('.js'))
  const lazy = js.filter(f => !initial.includes(f))
  const sum = list => list.reduce((total, f) => total + statSync(join(dist, f)).size, 0)
  return {
    initial: initial.map(f => ({ file: f, bytes: statSync(join(dist, f)).size, gzip: gzip(join(dist, f)) })),
    initialGzip: initial.reduce((total, f) => total + gzip(join(dist, f)), 0),
    lazyChunks: lazy.length,
    lazyBytes: sum(lazy),
    transformers: lazy.filter(f => /transformers/.test(f)).map(f => ({ file: f, bytes: statSync(join(dist, f)).size })),
    snapshot: sum(files.filter(f => f.endsWith('.skillkit'))),
    model: sum(files.filter(f => f.startsWith('skill-kit/models/'))),
    wasm: sum(files.filter(f => f.endsWith('.wasm'))),
    queryTable: sum(files.filter(f => f.startsWith('skill-kit/query-tables/'))),
    queryTableFiles: files.filter(f => f.startsWith('skill-kit/query-tables/')).length,
  }
}

/** Whether `url` is one of a knowledge base's files: its snapshot (core or shard) or its query table. */
const isKnowledgeFile = url => /\.skillkit$|\/skill-kit\/query-tables\//.test(new URL(url).pathname)

/** Every file under `dir`, relative, with `/`. */
function readdirRecursive(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile())
    .map(entry => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
}

/**
 * One cold load of the Guides page (`/#guides`): ms from navigation start to the first lexical and the
 * first semantic result of its search (the component, mounted on #guides-search once the page's chunk and
 * the guides' module are in).
 */
async function coldLoad(browser, origin, typeInPage) {
  const context = await browser.newContext({ serviceWorkers: 'block', ignoreHTTPSErrors: origin.startsWith('https:') })
  const escaped = []
  await context.route('**/*', route => route.request().url().startsWith(`${origin}/`) ? route.continue() : (escaped.push(route.request().url()), route.abort()))
  const page = await context.newPage()
  const { firstSemantic } = await watchSearch(page, '#guides-search')
  if (typeInPage) {
    await page.addInitScript((query) => {
      const ready = new MutationObserver(() => {
        if (document.getElementById('panel-guides')?.dataset.ready !== 'yes')
          return
        ready.disconnect()
        const root = document.getElementById('guides-search').shadowRoot
        root.querySelector('button.open').click()
        const input = root.querySelector('input')
        input.value = query
        input.dispatchEvent(new InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText', data: query }))
      })
      ready.observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] })
    }, QUERY)
  }
  await page.goto(`${origin}/#guides`)
  if (!typeInPage) {
    await page.waitForSelector('#panel-guides[data-ready="yes"]', { state: 'attached' })
    await page.locator('#guides-search').getByRole('button', { name: /^Search the guides/ }).click()
    await page.getByRole('combobox', { name: 'Search the guides' }).fill(QUERY)
  }
  await within(firstSemantic, 300_000, 'No semantic result within 300 s')
  const figures = await pageFigures(page)
  await context.close()
  if (escaped.length > 0)
    throw new Error(`Requests left the origin: ${escaped.join(', ')}`)
  const before = [...new Set(figures.beforeSemantic)]
  const fetched = bytesOf(dist, before, origin)
  // What issue 27's budget counts: the knowledge base's files (snapshot core and shards, query table), not the page's own.
  const knowledge = bytesOf(dist, before.filter(isKnowledgeFile), origin)
  return { ...figures, auto: figures.semantic, bytes: fetched.raw, gzip: fetched.gzip, knowledgeGzip: knowledge.gzip, requests: figures.beforeSemantic.length, shards: before.filter(u => /\/query-table-\d+\.bin$/.test(u)).length }
}

/** A throwaway self-signed certificate for 127.0.0.1 (HTTP/2 in browsers needs TLS). */
function selfSigned() {
  const dir = mkdtempSync(join(tmpdir(), 'skill-kit-bench-tls-'))
  try {
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: ['ignore', 'ignore', 'inherit'] })
    if (made.status !== 0)
      throw new Error('--http2 needs openssl to make a self-signed certificate')
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }
  }
  finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Builds the playground with `encoder`, serves it (over HTTP/2 with `http2`), and loads it cold `rounds` times. */
async function measure(encoder, rounds, { listFiles, http2, typeInPage }) {
  process.env.PLAYGROUND_QUERY_ENCODER = encoder
  const started = performance.now()
  await build({ root: playground, configFile: join(playground, 'vite.config.ts'), logLevel: 'silent' })
  const buildMs = performance.now() - started
  const budget = bundleBudget()

  // With a certificate, Vite's preview server speaks HTTP/2 (and HTTP/1.1 to clients that ask for it).
  const server = await preview({ root: playground, configFile: join(playground, 'vite.config.ts'), logLevel: 'silent', preview: { host: '127.0.0.1', port: 0, ...(http2 && { https: selfSigned() }) } })
  const origin = `${http2 ? 'https' : 'http'}://127.0.0.1:${server.httpServer.address().port}`
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] })
  const loads = []
  try {
    for (let round = 0; round < rounds; round++)
      loads.push(await coldLoad(browser, origin, typeInPage))
  }
  finally {
    await browser.close()
    await server.close()
  }
  const figures = {
    encoder,
    initialJsGzip: budget.initialGzip,
    domContentLoaded: median(loads.map(l => l.ready)),
    firstLexical: median(loads.map(l => l.lexical)),
    firstVector: median(loads.map(l => l.auto)),
    bytesToFirstVector: median(loads.map(l => l.bytes)),
    gzipToFirstVector: median(loads.map(l => l.gzip)),
    knowledgeGzipToFirstVector: median(loads.map(l => l.knowledgeGzip)),
  }

  console.log(`\nQuery encoder: ${encoder} (build ${(buildMs / 1000).toFixed(1)} s), served over ${[...new Set(loads[0].timings.map(t => t.protocol))].join(', ')}`)
  console.log(`Initial JavaScript (gzip -9): ${kb(budget.initialGzip)} in ${budget.initial.map(f => `${f.file} (${kb(f.bytes)}, gzip ${kb(f.gzip)})`).join(', ')}`)
  console.log(`Lazy: ${budget.lazyChunks} chunks, ${kb(budget.lazyBytes)} (Transformers.js ${budget.transformers.map(t => kb(t.bytes)).join(', ') || 'none'}); assets: snapshot ${kb(budget.snapshot)}, model ${kb(budget.model)}, ONNX Runtime wasm ${kb(budget.wasm)}, query table ${kb(budget.queryTable)} in ${budget.queryTableFiles} files`)
  console.log(`Cold load, median of ${rounds} (query "${QUERY}" typed ${typeInPage ? 'by the page itself' : 'through Playwright'} once the page is ready):`)
  console.log(`  DOMContentLoaded       ${fmtMs(figures.domContentLoaded)}`)
  console.log(`  first result (lexical) ${fmtMs(figures.firstLexical)}   (rounds: ${loads.map(l => fmtMs(l.lexical)).join(', ')})`)
  console.log(`  first vector (auto)    ${fmtMs(figures.firstVector)}   (rounds: ${loads.map(l => fmtMs(l.auto)).join(', ')})`)
  console.log(`  fetched before it      ${kb(figures.bytesToFirstVector)} (gzip -9 ${kb(figures.gzipToFirstVector)}) in ${median(loads.map(l => l.requests))} requests, ${median(loads.map(l => l.shards))} of them query-table shards`)
  console.log(`    of which the knowledge base's files (snapshot core and shards, query table), gzip -9: ${kb(figures.knowledgeGzipToFirstVector)}`)
  if (listFiles) {
    console.log('  what the first round fetched before it (gzip -9; requested → received, ms after navigation start):')
    printFetches(dist, origin, { ...loads[0], semantic: loads[0].auto })
  }
  emitResult({ bench: 'playground', ...figures })
  return figures
}

export async function main(argv = process.argv.slice(2)) {
  const { rounds, encoders, flag } = siteBenchArgs(argv, ['static', 'model'])
  preparePlayground()
  for (const encoder of encoders)
    await measure(encoder, rounds, { listFiles: flag('files'), http2: flag('http2'), typeInPage: flag('type-in-page') })
}

if (isMain(import.meta))
  await main()
