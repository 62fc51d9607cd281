// The playground's bundle budget and cold-load latency (issue 15), on the real corpus
// (the 147 Modern Web Guidance guides) and the real model (all-MiniLM-L6-v2):
//
// - initial JavaScript: the entry chunk and what it imports statically (modulepreload),
//   gzip level 9; everything else (skill bodies, document bodies, routed pages, Markdown
//   renderer, Transformers.js) must be lazy chunks, and the snapshot, model and ONNX
//   Runtime files assets;
// - time to the first lexical result and to the first vector (fused) result, from the
//   start of navigation, on a cold load: a new browser context per round (empty HTTP
//   cache and Cache Storage), the production build served by `vite preview`, the query
//   typed as soon as the page is ready.
//
//   node bench/playground.bench.mjs [--rounds 5]      (prepares and builds the playground first)

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { spawnSync } from 'node:child_process'
import { chromium } from 'playwright-core'
import { build, preview } from 'vite'
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
  }
}

/** Every file under `dir`, relative, with `/`. */
function readdirRecursive(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile())
    .map(entry => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'))
}

/** One cold load: ms from navigation start to the first lexical and the first fused result. */
async function coldLoad(browser, origin) {
  const context = await browser.newContext({ serviceWorkers: 'block' })
  const escaped = []
  await context.route('**/*', route => route.request().url().startsWith(`${origin}/`) ? route.continue() : (escaped.push(route.request().url()), route.abort()))
  const page = await context.newPage()
  // Stamps the moment the results of each ranking first appear, from inside the page.
  await page.addInitScript(() => {
    window.__firsts = {}
    new MutationObserver(() => {
      const results = document.getElementById('results')
      const mode = results?.dataset.mode
      if (mode && results.querySelector('a') && !(mode in window.__firsts))
        window.__firsts[mode] = performance.now()
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-mode'] })
  })
  await page.goto(`${origin}/`)
  await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' })
  await page.fill('#q', QUERY)
  await page.waitForSelector('#results[data-mode="auto"] a', { timeout: 300_000 })
  const firsts = await page.evaluate(() => window.__firsts)
  const ready = await page.evaluate(() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd)
  await context.close()
  if (escaped.length > 0)
    throw new Error(`Requests left the origin: ${escaped.join(', ')}`)
  return { ready, lexical: firsts.lexical, auto: firsts.auto }
}

export async function main(argv = process.argv.slice(2)) {
  const roundsAt = argv.indexOf('--rounds')
  const rounds = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 5
  const prepared = spawnSync(process.execPath, [join(root, 'scripts/playground-prepare.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (prepared.status !== 0)
    throw new Error('scripts/playground-prepare.mjs failed')
  await build({ root: playground, configFile: join(playground, 'vite.config.ts'), logLevel: 'silent' })
  const budget = bundleBudget()

  const server = await preview({ root: playground, configFile: join(playground, 'vite.config.ts'), logLevel: 'silent', preview: { host: '127.0.0.1', port: 0 } })
  const origin = `http://127.0.0.1:${server.httpServer.address().port}`
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'] })
  const loads = []
  try {
    for (let round = 0; round < rounds; round++)
      loads.push(await coldLoad(browser, origin))
  }
  finally {
    await browser.close()
    await server.close()
  }
  const figures = {
    initialJsGzip: budget.initialGzip,
    domContentLoaded: median(loads.map(l => l.ready)),
    firstLexical: median(loads.map(l => l.lexical)),
    firstVector: median(loads.map(l => l.auto)),
  }

  console.log(`Initial JavaScript (gzip -9): ${kb(budget.initialGzip)} in ${budget.initial.map(f => `${f.file} (${kb(f.bytes)}, gzip ${kb(f.gzip)})`).join(', ')}`)
  console.log(`Lazy: ${budget.lazyChunks} chunks, ${kb(budget.lazyBytes)} (Transformers.js ${budget.transformers.map(t => kb(t.bytes)).join(', ')}); assets: snapshot ${kb(budget.snapshot)}, model ${kb(budget.model)}, ONNX Runtime wasm ${kb(budget.wasm)}`)
  console.log(`Cold load, median of ${rounds} (query "${QUERY}" typed once the page is ready):`)
  console.log(`  DOMContentLoaded       ${fmtMs(figures.domContentLoaded)}`)
  console.log(`  first lexical result   ${fmtMs(figures.firstLexical)}   (rounds: ${loads.map(l => fmtMs(l.lexical)).join(', ')})`)
  console.log(`  first vector (auto)    ${fmtMs(figures.firstVector)}   (rounds: ${loads.map(l => fmtMs(l.auto)).join(', ')})`)
  emitResult({ bench: 'playground', ...figures })
}

if (isMain(import.meta))
  await main()
