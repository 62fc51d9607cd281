// The static query encoder in builds: every bundler emits the query table the
// project published (its core and every shard, byte for byte, under one
// folder), and the module, run from disk in Node with no embedQuery, ranks
// `auto` searches by the fused scores of the table's query vectors, not
// lexically; the Vite dev server serves the published table, and its SSR
// reads it in place. `queryEncoder: 'model'` emits no table; `static` with no
// way to write it fails the build.

import type { Bundler, BuildResult, Settled } from '../../support/build'
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder } from '../../../src/knowledge/embedder'
import { openKnowledgeProject } from '../../../src/knowledge/project'
import { readPublishedIndex, readQueryTable } from '../../../src/knowledge/publish'
import { decodeSnapshot, searchFused } from '../../../src/runtime'
import { staticQueryEmbedder } from '../../../src/runtime/knowledge/vector/encoder/static-embedder'
import { build, BUNDLERS, settle, unwrap } from '../../support/build'
import { prepareDocsApp } from '../../support/docs-app'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-query-table')
const entry = join(work, 'main.js')
const options = (queryEncoder?: string) => ({ root: work, offline: true, knowledge: { docs: { dir: 'docs', ...(queryEncoder && { queryEncoder }) } } }) as Parameters<typeof build>[2]

const QUERIES = ['proxy', 'install the tool', 'How do I use the tool behind a corporate proxy?', 'troubleshooting errors', 'upgrade to the latest version']
const SEARCH = { topK: 5, threshold: -1 }

/** Every file under `dir`, relative, with `/`. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter(e => e.isFile()).map(e => join(e.parentPath, e.name).slice(dir.length + 1).split('\\').join('/'))
}

/** The published table and the rankings its query vectors give, by `searchFused` over the published snapshot. */
let published: { files: Map<string, Buffer>, auto: { id: string, score: number }[][] }

async function publishedRankings(): Promise<typeof published> {
  const project = openKnowledgeProject(join(work, 'docs'), { root: work }).project!
  const index = readPublishedIndex(project.config.output)!
  const table = readQueryTable(project.config.output, index.manifest)!
  const snapshot = decodeSnapshot(index.snapshot)
  const embed = staticQueryEmbedder({ core: async () => table.core, shard: async s => table.shards[s]! })
  const auto = []
  for (const query of QUERIES)
    auto.push(searchFused(snapshot, query, await embed(query), SEARCH).map(({ id, score }) => ({ id, score })))
  const folder = join(project.config.output, index.manifest.queryTable!.folder)
  return {
    files: new Map(filesOf(folder).map(f => [f, readFileSync(join(folder, f))])),
    auto,
  }
}

beforeAll(async () => {
  await prepareDocsApp(work, entry)
}, 60_000)

describe.each(BUNDLERS)('a knowledge base with the static query encoder, with %s', (bundler: Bundler) => {
  let built: Settled<BuildResult>
  beforeAll(async () => {
    built = await settle(build(bundler, entry, options(), 'query-table'))
    published ??= await publishedRankings()
  }, 120_000)

  it('emits the published table, core and every shard byte for byte, in one folder, without a warning', () => {
    const { warnings, outDir } = unwrap(built)
    expect(warnings).toEqual([])
    const emitted = filesOf(outDir).filter(f => f.startsWith('skill-kit/query-tables/'))
    const folders = new Set(emitted.map(f => f.split('/').slice(0, 3).join('/')))
    expect(folders.size).toBe(1)
    const [folder] = folders
    expect(published.files.size).toBeGreaterThan(2)
    expect(emitted.map(f => f.slice(folder!.length + 1)).sort()).toEqual([...published.files.keys()].sort())
    for (const [name, bytes] of published.files)
      expect(readFileSync(join(outDir, folder!, name)).equals(bytes), name).toBe(true)
  })

  it('ranks auto searches by the table\'s fused scores, with no embedQuery and no model', async () => {
    const docs = unwrap(built).module.docs
    for (const [q, query] of QUERIES.entries()) {
      const results = await docs.search(query, SEARCH)
      expect(results.map((r: { id: string }) => r.id), query).toEqual(published.auto[q]!.map(r => r.id))
      results.forEach((r: { score: number }, i: number) => expect(Math.abs(r.score - published.auto[q]![i]!.score), query).toBeLessThan(1e-5))
      // Not lexical: its scores are BM25's, normalised.
      const lexical = await docs.search(query, { topK: 5, threshold: 0, mode: 'lexical' })
      expect(results.map((r: { score: number }) => r.score), query).not.toEqual(lexical.map((r: { score: number }) => r.score))
    }
    // A vector search needs an embedder: the table is one.
    expect((await docs.search('proxy', { ...SEARCH, mode: 'vector' })).length).toBeGreaterThan(0)
  })
})

describe('the static query encoder in the Vite dev server', () => {
  it('serves the published table to browsers, and embeds SSR queries with it in place', async () => {
    const { createServer } = await import('vite')
    const skillKit = (await import(pathToFileURL(join(repo, 'dist/vite.mjs')).href)).default
    const server = await createServer({ configFile: false, root: work, logLevel: 'silent', plugins: [skillKit(options())], server: { port: 0, host: '127.0.0.1' } })
    try {
      await server.listen()
      const { docs } = await server.ssrLoadModule('/main.js')
      published ??= await publishedRankings()
      const origin = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
      const code = await (await fetch(`${origin}/@id/__x00__skill-kit-knowledge:name:docs`)).text()
      const core = /"(\/@skill-kit\/knowledge\/query-table-[\w-]{16}\/)query-table\.json"/.exec(code)?.[1]
      expect(core).toBeDefined()
      for (const [name, bytes] of published.files) {
        const response = await fetch(`${origin}${core}${name}`)
        expect(response.status, name).toBe(200)
        expect(Buffer.from(await response.arrayBuffer()).equals(bytes), name).toBe(true)
      }
      for (const [q, query] of QUERIES.entries())
        expect((await docs.search(query, SEARCH)).map((r: { id: string }) => r.id), query).toEqual(published.auto[q]!.map(r => r.id))
    }
    finally {
      await server.close()
    }
  }, 60_000)
})

describe('the queryEncoder option', () => {
  it('"model" emits no table, and the module embeds with the model', async () => {
    const { outDir, module } = await build('rollup', entry, options('model'), 'query-table-model')
    expect(filesOf(outDir).filter(f => f.includes('query-table'))).toEqual([])
    // No model for this Node bundle: a vector search says so.
    await expect(module.docs.search('proxy', { mode: 'vector' })).rejects.toMatchObject({ code: 'model-unavailable' })
  }, 120_000)

  it('"auto" switches to the model when the app names it with useModel', async () => {
    const { module } = await build('rollup', entry, options(), 'query-table-use-model')
    published ??= await publishedRankings()
    const query = QUERIES[2]!
    const fromTable = await module.docs.search(query, SEARCH)
    expect(fromTable.map((r: { id: string }) => r.id)).toEqual(published.auto[2]!.map(r => r.id))
    module.docs.useModel({ path: join(work, 'models') })
    const project = openKnowledgeProject(join(work, 'docs'), { root: work }).project!
    const snapshot = decodeSnapshot(readPublishedIndex(project.config.output)!.snapshot)
    const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: join(work, 'models'), offline: true })
    const fromModel = searchFused(snapshot, query, (await embedder.embed([query], 'query'))[0]!, SEARCH)
    await embedder.dispose()
    const switched = await module.docs.search(query, SEARCH)
    switched.forEach((r: { id: string, score: number }, i: number) => {
      expect(r.id).toBe(fromModel[i]!.id)
      expect(Math.abs(r.score - fromModel[i]!.score)).toBeLessThan(1e-5)
    })
    expect(switched.map((r: { score: number }) => r.score)).not.toEqual(fromTable.map((r: { score: number }) => r.score))
  }, 120_000)

  it('refuses a table distilled from another model than the snapshot\'s, naming both, and never searches with it', async () => {
    const { outDir, module } = await build('rollup', entry, options(), 'query-table-other-model')
    const [core] = filesOf(outDir).filter(f => f.endsWith('/query-table.json'))
    const table = JSON.parse(readFileSync(join(outDir, core!), 'utf8'))
    const snapshotModel = table.model
    // The table of another model deployed over this build's: same pieces, same shards, another fingerprint.
    writeFileSync(join(outDir, core!), JSON.stringify({ ...table, model: 'other-model@0123456789ab/q8/0123456789abcdef01234567' }))
    for (const mode of ['auto', 'vector'] as const) {
      const failed = await module.docs.search('proxy', { ...SEARCH, mode }).catch((error: unknown) => error)
      expect(failed, mode).toMatchObject({ name: 'KnowledgeError', code: 'snapshot-mismatch' })
      expect((failed as Error).message).toBe(`The query table ${join(outDir, core!)} was distilled from another model than the knowledge snapshot's ("other-model@0123456789ab/q8/0123456789abcdef01234567", not ${JSON.stringify(snapshotModel)}): they come from different builds. Deploy the build's whole output folder again, so that all of its files match.`)
    }
  }, 120_000)

  it('"static" refuses useModel: the model is never loaded', async () => {
    const { module } = await build('rollup', entry, options('static'), 'query-table-static')
    expect(() => module.docs.useModel({ path: join(work, 'models') })).toThrow('"docs" was built with queryEncoder "static", whose queries never load the model: build it with queryEncoder "auto" to switch to the model with useModel().')
    expect((await module.docs.search('proxy', SEARCH)).length).toBeGreaterThan(0)
  }, 120_000)

  it('"static" with esbuild and no outdir fails the build, saying what to set', async () => {
    const esbuild = await import('esbuild')
    const plugin = (await import(pathToFileURL(join(repo, 'dist/esbuild.mjs')).href)).default
    const failed = await esbuild.build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', outfile: join(work, 'out/index.mjs'), logLevel: 'silent', plugins: [plugin(options('static'))] }).catch((e: { errors: { text: string }[] }) => e)
    expect((failed as { errors: { text: string }[] }).errors.map(e => e.text)).toEqual(['docs: esbuild writes the query table (queryEncoder "auto" or "static") into the output folder: set outdir, or set queryEncoder to "model".'])
  }, 120_000)

  it('fails the build on a skill-kit.json whose queryEncoder is none of the three, at its place', async () => {
    const dir = join(work, 'bad')
    cpSync(join(work, 'docs'), dir, { recursive: true })
    const config = JSON.parse(readFileSync(join(dir, 'skill-kit.json'), 'utf8'))
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ ...config, queryEncoder: 'table' }, null, 2))
    writeFileSync(join(work, 'bad.js'), 'export { default } from \'./bad?knowledge\'\n')
    const failed = await settle(build('rollup', join(work, 'bad.js'), { root: work, offline: true }, 'query-table-bad'))
    expect(failed.ok).toBe(false)
    expect(String((failed as { error: Error }).error.message)).toContain('bad/skill-kit.json:16:19 error config-invalid: "queryEncoder" must be "auto" (a static table distilled from the model, unless the app loads the model), "static" (the table only: no model at run time) or "model" (the model embeds every query).')
  }, 120_000)
})
