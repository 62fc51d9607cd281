/**
 * Production builds (Vite, webpack, esbuild) of an app that imports a knowledge
 * base without `includeModel`, run in a real headless Chromium: the default query encoder
 * (`auto`) embeds queries with the query table the build emitted, so `auto`
 * searches are semantic (the table's query vectors fused with lexical, as
 * Node ranks them) with the model, ONNX Runtime and Transformers.js never
 * fetched, and only the shards of the queries' pieces asked for.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser } from 'playwright-core'
import type { AppPage } from '../support/knowledge-app'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { readPublishedIndex, readQueryTable } from '../../src/knowledge/publish'
import { decodeSnapshot, searchFused, searchVectors } from '../../src/runtime'
import { staticQueryEmbedder } from '../../src/runtime/knowledge/vector/encoder/static-embedder'
import { autoSearch, buildBrowserApp, dist, expectLocalAndQuiet, expectSameRanking, filesOf, indexHtml, launchChromium, openApp, prepareApp, repo, transformersChunks, VECTOR_QUERIES, vectorSearch } from '../support/knowledge-app'

const work = join(repo, 'test/.tmp/browser-knowledge-static')
const BUNDLERS = ['vite', 'webpack', 'esbuild'] as const
const outDirOf = (bundler: typeof BUNDLERS[number]) => join(work, `dist-${bundler}`)
const OPTIONS = { topK: 10, threshold: -1 }

interface Ranked { id: string, score: number }

/** Node's rankings of VECTOR_QUERIES with the published query table: `auto` (fused) and `vector`. */
async function nodeStaticRankings(): Promise<{ auto: Ranked[][], vector: Ranked[][], shards: number }> {
  const { output } = openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config
  const published = readPublishedIndex(output)!
  const table = readQueryTable(output, published.manifest)!
  const snapshot = decodeSnapshot(published.snapshot)
  const embed = staticQueryEmbedder({ core: async () => table.core, shard: async s => table.shards[s]! })
  const auto: Ranked[][] = []
  const vector: Ranked[][] = []
  for (const query of VECTOR_QUERIES) {
    const v = await embed(query)
    auto.push(searchFused(snapshot, query, v, OPTIONS).map(({ id, score }) => ({ id, score })))
    vector.push(searchVectors(snapshot, v, OPTIONS).map(({ id, score }) => ({ id, score })))
  }
  return { auto, vector, shards: table.shards.length }
}

let browser: Browser | undefined
let expected: Awaited<ReturnType<typeof nodeStaticRankings>>

beforeAll(async () => {
  const { entry, options } = await prepareApp(work)
  const settings = { ...options, includeModel: false }
  writeFileSync(join(work, 'index.html'), indexHtml('/main.js'))
  const { build } = await import('vite')
  const skillKit = (await import(pathToFileURL(join(dist, 'vite.mjs')).href)).default
  await build({
    configFile: false,
    root: work,
    logLevel: 'silent',
    plugins: [skillKit(settings)],
    build: { outDir: outDirOf('vite'), emptyOutDir: true, copyPublicDir: false },
  })
  for (const bundler of ['webpack', 'esbuild'] as const)
    await buildBrowserApp(bundler, entry, settings, work, outDirOf(bundler))
  expected = await nodeStaticRankings()
  browser = await launchChromium()
}, 120_000)

afterAll(async () => {
  await browser?.close()
})

describe.each(BUNDLERS)('a %s app with the static query encoder, in headless Chromium', (bundler) => {
  const outDir = outDirOf(bundler)
  let app: AppPage | undefined

  beforeAll(async () => {
    app = await openApp(browser!, outDir, false)
  })

  afterAll(async () => {
    await app?.close()
  })

  it('emits the query table and neither the model nor ONNX Runtime', () => {
    const files = filesOf(outDir)
    expect(files.filter(f => /^skill-kit\/query-tables\/[\w-]{16}\/query-table\.json$/.test(f))).toHaveLength(1)
    expect(files.filter(f => /^skill-kit\/query-tables\/[\w-]{16}\/query-table-\d+\.bin$/.test(f))).toHaveLength(expected.shards)
    expect(files.filter(f => /\.(?:onnx|wasm)$|\/models\//.test(f))).toEqual([])
  })

  it('ranks auto searches semantically, as Node does with the table, having never fetched the model', async () => {
    expectSameRanking(await autoSearch(app!), expected.auto)
    expectSameRanking(await vectorSearch(app!), expected.vector)
    const { requests } = app!
    expect(requests.filter(u => /\/skill-kit\/models\/|\.onnx$|ort-wasm|\.wasm$/.test(u))).toEqual([])
    expect(requests.filter(u => transformersChunks(outDir).some(f => u.endsWith(`/${f}`)))).toEqual([])
    // The core once, and the shards of the queries' pieces: a few of the table's.
    expect(requests.filter(u => u.endsWith('/query-table.json'))).toHaveLength(1)
    const shards = requests.filter(u => /\/query-table-\d+\.bin$/.test(u))
    expect(new Set(shards).size).toBe(shards.length)
    expect(shards.length).toBeGreaterThan(0)
    expect(shards.length).toBeLessThan(expected.shards)
  })

  it('never reached beyond the local server, and logged no error', () => {
    expectLocalAndQuiet(app!)
  })
})
