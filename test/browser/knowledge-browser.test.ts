/**
 * A Vite production build of an app that imports a knowledge base with
 * `includeModel: true`, run in a real headless Chromium: the page embeds
 * queries itself (the app's bundled Transformers.js, the emitted model and
 * ONNX Runtime WebAssembly files, nothing from the network) and ranks exactly
 * as Node does with the build's model.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser } from 'playwright-core'
import type { AppPage } from '../support/knowledge-app'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { autoSearch, cachedUrls, dist, expectLexicalWithoutModel, expectLocalAndQuiet, expectNodeRanking, expectSameRanking, filesOf, indexHtml, launchChromium, LEXICAL_QUERIES, lexicalSearch, nodeDefaultRankings, nodeRanking, openApp, prepareApp, repo, TINY_MODEL_ID, TRANSFORMERS_MARKERS, transformersChunks, VECTOR_QUERIES, vectorSearch } from '../support/knowledge-app'

const work = join(repo, 'test/.tmp/browser-knowledge')
const outDir = join(work, 'dist')

describe('a Vite app with includeModel, in headless Chromium', () => {
  let browser: Browser | undefined
  let app: AppPage | undefined
  let isolatedApp: AppPage | undefined
  /** The Node ranking of each of VECTOR_QUERIES, with the build's model. */
  let expected: Awaited<ReturnType<typeof nodeRanking>>

  beforeAll(async () => {
    const { options } = await prepareApp(work)
    writeFileSync(join(work, 'index.html'), indexHtml('/main.js'))

    const { build } = await import('vite')
    const skillKit = (await import(pathToFileURL(join(dist, 'vite.mjs')).href)).default
    await build({
      configFile: false,
      root: work,
      logLevel: 'silent',
      plugins: [skillKit(options)],
      build: { outDir, emptyOutDir: true, copyPublicDir: false },
    })

    expected = await nodeRanking(work)
    browser = await launchChromium()
    app = await openApp(browser, outDir, false)
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

  it('keeps the build machine\'s folders out of a browser bundle', () => {
    for (const file of filesOf(outDir).filter(f => f.endsWith('.js')))
      expect(readFileSync(join(outDir, file), 'utf8').includes(repo), file).toBe(false)
  })

  it('keeps Transformers.js and the bodies out of the entry chunk', () => {
    const html = readFileSync(join(outDir, 'index.html'), 'utf8')
    const entry = /<script type="module"[^>]*src="\/([^"]+)"/.exec(html)?.[1]
    expect(entry).toMatch(/^assets\/index-.*\.js$/)
    const code = readFileSync(join(outDir, entry!), 'utf8')
    // Transformers.js is in the bundle, in a chunk of its own.
    expect(transformersChunks(outDir)).toHaveLength(1)
    expect(transformersChunks(outDir)).not.toContain(entry)
    for (const marker of TRANSFORMERS_MARKERS)
      expect(code.includes(marker), `the entry chunk contains ${marker}`).toBe(false)
    // No document body either.
    for (const body of ['borg list', 'less crowded 5 GHz', 'keep 7 daily'])
      expect(code.includes(body), `the entry chunk contains "${body}"`).toBe(false)
  })

  it('lists the documents and searches lexically without loading the model', async () => {
    await expectLexicalWithoutModel(app!, outDir)
  })

  it('embeds queries in the page and ranks exactly as Node does', async () => {
    expectNodeRanking(await vectorSearch(app!), expected)
    // The model and the WebAssembly came from the build's assets.
    const { requests } = app!
    const modelFiles = requests.filter(u => u.endsWith(`/${TINY_MODEL_ID}/onnx/model_quantized.onnx`))
    expect(modelFiles).toHaveLength(1)
    expect(modelFiles[0]).toMatch(/\/skill-kit\/models\/[\w-]{10}\/skill-kit-test\/tiny-bert\//)
    expect(requests.some(u => /\/assets\/ort-wasm-simd-threaded\.asyncify-[^/]*\.wasm$/.test(u))).toBe(true)
    // Transformers.js keeps the model in the Cache API under its versioned URL, so a rebuild with other weights gets other URLs.
    expect((await cachedUrls(app!)).filter(u => u.includes('/skill-kit/models/'))).toContain(modelFiles[0])
  })

  it('ranks by default (vector and lexical fused) and lexically exactly as Node does', async () => {
    const node = await nodeDefaultRankings(work)
    expectSameRanking(await autoSearch(app!), node.auto)
    const lexical = []
    for (const query of LEXICAL_QUERIES)
      lexical.push(await lexicalSearch(app!, query))
    expectSameRanking(lexical, node.lexical, LEXICAL_QUERIES)
    expect(node.lexical.flat().length).toBeGreaterThan(0)
    // The typo is corrected in the page as in Node: the misspelt query finds what the right spelling does.
    const ranked = (rankings: { id: string }[][], query: string) => rankings[LEXICAL_QUERIES.indexOf(query)]!.map(r => r.id)
    expect(ranked(node.lexical, 'nightly bakcup schedule')).toEqual(ranked(node.lexical, 'nightly backup schedule'))
    // `wi fi` also searches the term `wifi` (the Wi-Fi guide's tag), as in Node.
    expect(ranked(node.lexical, 'wi fi router')[0]).toBe('network/wifi')
  })

  it('ranks the same in a cross-origin isolated page (SharedArrayBuffer available)', async () => {
    isolatedApp = await openApp(browser!, outDir, true)
    expect(await isolatedApp.page.evaluate(() => globalThis.crossOriginIsolated)).toBe(true)
    expectNodeRanking(await vectorSearch(isolatedApp), expected)
  })

  it('never reached beyond the local server, and logged no error', () => {
    expectLocalAndQuiet(app!)
    expectLocalAndQuiet(isolatedApp!)
  })
})
