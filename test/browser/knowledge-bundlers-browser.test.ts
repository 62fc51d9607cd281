/**
 * The app of knowledge-browser.test.ts built with webpack, rspack and esbuild
 * for browsers, run in headless Chromium: with `includeModel`, each build
 * emits the model under its layout and ONNX Runtime's files, and its page
 * embeds queries with its own bundled Transformers.js, fetching those files from
 * the build and nothing from the network, and ranks exactly as Node does.
 *
 * The entries are built into `js/`, not the output folder's root, so the
 * pages find the model from the output folder, not from the script.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser } from 'playwright-core'
import type { AppPage } from '../support/knowledge-app'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildBrowserApp, BROWSER_ENTRY, expectLexicalWithoutModel, expectLocalAndQuiet, expectNodeRanking, filesOf, launchChromium, nodeRanking, openApp, prepareApp, repo, TINY_MODEL_ID, TRANSFORMERS_MARKERS, transformersChunks, vectorSearch } from '../support/knowledge-app'

const work = join(repo, 'test/.tmp/browser-knowledge-bundlers')
const outDirOf = (bundler: string) => join(work, `dist-${bundler}`)

let expected: Awaited<ReturnType<typeof nodeRanking>>
let browser: Browser | undefined

beforeAll(async () => {
  const { entry, options } = await prepareApp(work)
  for (const bundler of ['webpack', 'rspack', 'esbuild'] as const)
    await buildBrowserApp(bundler, entry, options, work, outDirOf(bundler))
  expected = await nodeRanking(work)
  browser = await launchChromium()
// Three bundlers each copy the model's 23 MB: on two cores shared with other test files, a minute is not always enough.
}, 180_000)

afterAll(async () => {
  await browser?.close()
})

describe.each(['webpack', 'rspack', 'esbuild'] as const)('a %s app with includeModel, in headless Chromium', (bundler) => {
  const outDir = outDirOf(bundler)
  let app: AppPage | undefined

  beforeAll(async () => {
    app = await openApp(browser!, outDir, false)
  })

  afterAll(async () => {
    await app?.close()
  })

  it('emits the model under its layout, and ONNX Runtime\'s WebAssembly files', () => {
    const files = filesOf(outDir)
    for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'])
      expect(files.some(f => f.match(/^skill-kit\/models\/[\w-]{10}\/(.+)$/)?.[1] === `${TINY_MODEL_ID}/${file}`), file).toBe(true)
    for (const file of ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'])
      expect(files.some(f => f.match(/^skill-kit\/ort\/[\w-]{10}\/(.+)$/)?.[1] === file), file).toBe(true)
    // webpack also copies the WebAssembly that onnxruntime-web names with `new URL(…, import.meta.url)`; the rule of rspack's build avoids it.
    expect(files.filter(f => f.endsWith('.wasm'))).toHaveLength(bundler === 'webpack' ? 2 : 1)
  })

  it('keeps Transformers.js and the bodies out of the entry', () => {
    const code = readFileSync(join(outDir, BROWSER_ENTRY), 'utf8')
    expect(transformersChunks(outDir)).toHaveLength(1)
    expect(transformersChunks(outDir)).not.toContain(BROWSER_ENTRY)
    for (const marker of TRANSFORMERS_MARKERS)
      expect(code.includes(marker), `the entry contains ${marker}`).toBe(false)
    for (const body of ['borg list', 'less crowded 5 GHz', 'keep 7 daily'])
      expect(code.includes(body), `the entry contains "${body}"`).toBe(false)
  })

  it('lists the documents and searches lexically without loading the model', async () => {
    await expectLexicalWithoutModel(app!, outDir)
  })

  it('embeds queries in the page with the build\'s files and ranks exactly as Node does', async () => {
    expectNodeRanking(await vectorSearch(app!), expected)
    const { origin, requests } = app!
    const versioned = String.raw`[\w-]{10}`
    const modelFile = new RegExp(`^${origin}/skill-kit/models/${versioned}/${TINY_MODEL_ID}/onnx/model_quantized\\.onnx$`)
    expect(requests.filter(u => modelFile.test(u))).toHaveLength(1)
    // ONNX Runtime from the emitted files only, never a copy of the bundler's.
    const runtime = requests.filter(u => /ort-wasm|\.wasm$/.test(u))
    expect(runtime.map(u => u.replace(new RegExp(`/ort/${versioned}/`), '/ort/<hash>/')).sort()).toEqual([
      `${origin}/skill-kit/ort/<hash>/ort-wasm-simd-threaded.asyncify.mjs`,
      `${origin}/skill-kit/ort/<hash>/ort-wasm-simd-threaded.asyncify.wasm`,
    ])
  })

  it('never reached beyond the local server, and logged no error', () => {
    expectLocalAndQuiet(app!)
  })
})
