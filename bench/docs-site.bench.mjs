// The docs site's search, cold (issue 29 §4): our docs/ built into the site
// (`npm run build:playground`), the output moved to a temporary folder and
// served from there by a plain static server (no Vite: what any static host
// does), each round in a new Chromium with a fresh profile (empty HTTP cache,
// Cache Storage and storage), the home page opened and a query typed into
// <skill-kit-search> as soon as the page is ready. Measured from the start
// of navigation: the first results ranked by words and the first ranked by
// meaning, and the bytes the page had fetched before each (as served and
// gzip -9: the site's JavaScript and CSS, the docs' snapshot core and
// postings, the query table's core and rows).
//
//   node bench/docs-site.bench.mjs [--rounds 5] [--encoder static|model] [--files] [--type-in-page]
//
// --encoder: `static` (default: the query table the build distils from the model) or `model` (the model
// and ONNX Runtime's WebAssembly in the page); --files lists what the first round fetched before its first
// semantic result; --type-in-page gives the query to the component from inside the page the moment it is
// ready (`element.open(query)`) instead of through Playwright (Ctrl+K, then typing), whose round trips
// count as the page's time on a loaded machine.

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, normalize, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { build } from 'vite'
import { bytesOf, pageFigures, preparePlayground, printFetches, siteBenchArgs, watchSearch, within } from './site-search-page.mjs'
import { emitResult, fmtMs, isMain, median } from './util.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const playground = join(root, 'playground')
/** A question a reader of our docs asks, in their words. */
const QUERY = 'export a knowledge base as a skill'

const kb = bytes => `${(bytes / 1024).toFixed(1)} KB`

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.md': 'text/markdown; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
}

/** Serves the files of `dir` on 127.0.0.1 (no compression, no fallback: a plain static host). */
async function serveStatic(dir) {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname)).replace(/^[/\\]+/, '') || 'index.html'
    const file = join(dir, path)
    let body
    try {
      if (!file.startsWith(dir + sep))
        throw new Error('outside')
      body = readFileSync(file)
    }
    catch {
      response.writeHead(404, { 'content-type': 'text/plain' })
      response.end('not found')
      return
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': body.length })
    response.end(body)
  })
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(resolve)
    }),
  }
}

/** One cold load in a new browser with a fresh profile: ms from navigation start to the first results of each ranking, and the bytes before them. */
async function coldLoad(site, origin, typeInPage) {
  const profile = mkdtempSync(join(tmpdir(), 'skill-kit-bench-profile-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    serviceWorkers: 'block',
  })
  try {
    const escaped = []
    await context.route('**/*', route => route.request().url().startsWith(`${origin}/`) ? route.continue() : (escaped.push(route.request().url()), route.abort()))
    const page = context.pages()[0] ?? await context.newPage()
    const { firstSemantic } = await watchSearch(page, 'skill-kit-search')
    if (typeInPage) {
      await page.addInitScript((query) => {
        const ready = new MutationObserver(() => {
          if (document.body?.dataset.ready !== 'yes')
            return
          ready.disconnect()
          document.querySelector('skill-kit-search').open(query)
        })
        ready.observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] })
      }, QUERY)
    }
    await page.goto(`${origin}/`)
    if (!typeInPage) {
      await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' })
      await page.keyboard.press('Control+k')
      await page.getByRole('combobox', { name: 'Search the docs' }).fill(QUERY)
    }
    await within(firstSemantic, 300_000, 'No semantic result within 300 s')
    const figures = await pageFigures(page)
    if (escaped.length > 0)
      throw new Error(`Requests left the origin: ${escaped.join(', ')}`)
    const lexicalBytes = bytesOf(site, figures.beforeLexical, origin)
    const semanticBytes = bytesOf(site, figures.beforeSemantic, origin)
    return { ...figures, bytesLexical: lexicalBytes.raw, gzipLexical: lexicalBytes.gzip, bytesSemantic: semanticBytes.raw, gzipSemantic: semanticBytes.gzip, requests: new Set(figures.beforeSemantic).size }
  }
  finally {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }
}

/** Builds the site with `encoder`, moves it to a temporary folder, serves it statically, and loads it cold `rounds` times. */
async function measure(encoder, rounds, { listFiles, typeInPage }) {
  process.env.PLAYGROUND_QUERY_ENCODER = encoder
  const started = performance.now()
  await build({ root: playground, configFile: join(playground, 'vite.config.ts'), logLevel: 'silent' })
  const buildMs = performance.now() - started
  // Served from elsewhere: nothing may depend on the repository's files.
  const site = mkdtempSync(join(tmpdir(), 'skill-kit-bench-site-'))
  cpSync(join(playground, 'dist'), site, { recursive: true })
  rmSync(join(playground, 'dist'), { recursive: true, force: true })
  const server = await serveStatic(site)
  const loads = []
  // The folder is removed once the figures are printed (--files reads its files' sizes), or when a round fails.
  try {
    for (let round = 0; round < rounds; round++)
      loads.push(await coldLoad(site, server.origin, typeInPage))
  }
  catch (error) {
    rmSync(site, { recursive: true, force: true })
    throw error
  }
  finally {
    await server.close()
  }
  const figures = {
    encoder,
    domContentLoaded: median(loads.map(l => l.ready)),
    firstLexical: median(loads.map(l => l.lexical)),
    firstSemantic: median(loads.map(l => l.semantic)),
    gzipToFirstLexical: median(loads.map(l => l.gzipLexical)),
    bytesToFirstSemantic: median(loads.map(l => l.bytesSemantic)),
    gzipToFirstSemantic: median(loads.map(l => l.gzipSemantic)),
  }
  console.log(`\nDocs site, query encoder ${encoder} (build ${(buildMs / 1000).toFixed(1)} s), served statically from a temporary folder`)
  console.log(`Cold load in a fresh profile, median of ${rounds} (query "${QUERY}" ${typeInPage ? 'given by the page itself' : 'typed through Playwright'} once the page is ready):`)
  console.log(`  DOMContentLoaded         ${fmtMs(figures.domContentLoaded)}`)
  console.log(`  first result (by words)  ${fmtMs(figures.firstLexical)}   (rounds: ${loads.map(l => fmtMs(l.lexical)).join(', ')}); fetched before it: gzip -9 ${kb(figures.gzipToFirstLexical)}`)
  console.log(`  first result by meaning  ${fmtMs(figures.firstSemantic)}   (rounds: ${loads.map(l => fmtMs(l.semantic)).join(', ')})`)
  console.log(`  fetched before it        ${kb(figures.bytesToFirstSemantic)} (gzip -9 ${kb(figures.gzipToFirstSemantic)}) in ${median(loads.map(l => l.requests))} requests`)
  if (listFiles) {
    console.log('  what the first round fetched before its first semantic result (gzip -9; requested → received, ms after navigation start):')
    printFetches(site, server.origin, loads[0])
  }
  rmSync(site, { recursive: true, force: true })
  emitResult({ bench: 'docs-site', ...figures })
  return figures
}

export async function main(argv = process.argv.slice(2)) {
  const { rounds, encoders, flag } = siteBenchArgs(argv, ['static'])
  preparePlayground()
  for (const encoder of encoders)
    await measure(encoder, rounds, { listFiles: flag('files'), typeInPage: flag('type-in-page') })
}

if (isMain(import.meta))
  await main()
