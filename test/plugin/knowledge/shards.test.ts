// The `shards` option: every bundler emits the core and the shards of a
// knowledge base's snapshot as assets, and its module, run from disk in Node,
// ranks exactly as the module of one snapshot does, in every mode.

import type { Bundler, BuildResult, Settled } from '../../support/build'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { rng, unitVector } from '../../support/random'
import { build, settle, unwrap } from '../../support/build'
import { prepareDocsApp } from '../../support/docs-app'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-shards')
const entry = join(work, 'main.js')
const SIZES = { lexicalBytes: 64, vectorBytes: 512 }
const options = (shards?: unknown) => ({ root: work, offline: true, knowledge: { docs: { dir: 'docs', ...(shards === undefined ? {} : { shards }) } } }) as Parameters<typeof build>[2]

const QUERIES = ['proxy', 'install the tool', 'How do I use the tool behind a corporate proxy?', 'troubleshooting errors', 'certificate', 'instal', 'nothing matches this zebra']

/** Every file under `dir`, relative. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter(e => e.isFile()).map(e => join(e.parentPath, e.name).slice(dir.length + 1))
}

/** A query embedder of the snapshot's dimensions (seeded by the query): the ranking code is the same whatever the vectors. */
function embedderOf(dims: number) {
  return async (query: string) => unitVector(dims, rng(query.length * 7919 + query.charCodeAt(0)))
}

/** Every ranking of `docs` (a knowledge module) for {@link QUERIES}, in every mode. */
async function rankings(docs: any, dims: number) {
  const embedQuery = embedderOf(dims)
  const out: unknown[] = []
  for (const mode of ['lexical', 'vector', 'hybrid', 'auto']) {
    for (const query of QUERIES)
      out.push([mode, query, await docs.search(query, { mode, embedQuery, topK: 5 })])
  }
  return out
}

beforeAll(async () => {
  await prepareDocsApp(work, entry)
}, 60_000)

describe.each(['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack'] as Bundler[])('a knowledge base with shards, with %s', (bundler) => {
  let one: Settled<BuildResult>
  let split: Settled<BuildResult>
  beforeAll(async () => {
    one = await settle(build(bundler, entry, options(), 'knowledge-shards-one'))
    split = await settle(build(bundler, entry, options(SIZES), 'knowledge-shards'))
  }, 120_000)

  it('emits a core and several shards, without a warning', async () => {
    const { warnings, outDir } = unwrap(split)
    expect(warnings).toEqual([])
    const snapshots = filesOf(outDir).filter(f => f.endsWith('.skillkit')).map(f => readFileSync(join(outDir, f)))
    // Header flags: 2 marks the core, 4 a shard; esbuild also copies the whole snapshot, the anchor of the other files' URLs.
    const flags = snapshots.map(bytes => bytes.readUInt16LE(10))
    expect(flags.filter(f => f === 2)).toHaveLength(1)
    expect(flags.filter(f => f === 4).length).toBeGreaterThan(3)
    expect(flags.filter(f => f === 0)).toHaveLength(bundler === 'esbuild' ? 1 : 0)
    const whole = filesOf(unwrap(one).outDir).filter(f => f.endsWith('.skillkit')).map(f => readFileSync(join(unwrap(one).outDir, f)))
    expect(whole).toHaveLength(1)
    const core = snapshots[flags.indexOf(2)]!
    expect(core.length).toBeLessThan(whole[0]!.length)
  })

  it('ranks every query exactly as the module of one snapshot, in every mode', async () => {
    const docs = unwrap(one).module.docs
    const dims = (await docs.snapshot()).dimensions
    expect(dims).toBeGreaterThan(0)
    const expected = await rankings(docs, dims)
    expect((expected as [string, string, unknown[]][]).filter(([, , r]) => r.length > 0).length).toBeGreaterThan(QUERIES.length * 2)
    expect(await rankings(unwrap(split).module.docs, dims)).toEqual(expected)
  })
})

describe('the shards option', () => {
  it('is checked: a wrong key or size fails the build, saying what to write', async () => {
    // Checked with the plugin's options: the build fails before reading anything.
    const wrongKey = await settle(build('rollup', entry, options({ lexicalByte: 100 }), 'knowledge-shards-invalid'))
    expect(String((wrongKey as { error: Error }).error.message)).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.shards.lexicalByte: unknown option. Did you mean "lexicalBytes"? The options here are lexicalBytes, vectorBytes, refinementBytes, cells, probe.`)
    const wrongSize = await settle(build('rollup', entry, options({ vectorBytes: 0 }), 'knowledge-shards-invalid'))
    expect(String((wrongSize as { error: Error }).error.message)).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.shards.vectorBytes: expected a positive integer (bytes a shard), got 0.`)
    const wrongType = await settle(build('rollup', entry, options('yes'), 'knowledge-shards-invalid'))
    expect(String((wrongType as { error: Error }).error.message)).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.shards: expected true, false or { lexicalBytes, vectorBytes, refinementBytes, cells, probe }, got "yes".`)
    const wrongCells = await settle(build('rollup', entry, options({ cells: -1, probe: 'all' }), 'knowledge-shards-invalid'))
    expect(String((wrongCells as { error: Error }).error.message)).toBe(`Invalid unplugin-skill-kit options (2 problems):
- knowledge.docs.shards.cells: expected "auto" or a number of vector cells (0: exact search only), got -1.
- knowledge.docs.shards.probe: expected a positive integer (vector cells a search reads), got "all".`)
  }, 120_000)

  it('says which shard is missing from a deployment, and what to deploy', async () => {
    const { outDir, module } = await build('rollup', entry, options(SIZES), 'knowledge-shards-missing')
    const shard = filesOf(outDir).filter(f => f.endsWith('.skillkit') && readFileSync(join(outDir, f)).readUInt16LE(10) === 4).sort()[0]!
    rmSync(join(outDir, shard))
    const error = await module.docs.snapshot().catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'KnowledgeError', code: 'snapshot-unavailable' })
    expect((error as Error).message).toBe(`Cannot read the knowledge snapshot shard ${join(outDir, shard)} (ENOENT): it belongs beside the bundle; deploy the bundle's whole output folder.`)
  }, 120_000)

  it('with esbuild, needs outdir: the core and the shards are written there', async () => {
    const esbuild = await import('esbuild')
    const plugin = (await import(pathToFileURL(join(repo, 'dist/esbuild.mjs')).href)).default
    const failed = await esbuild.build({ entryPoints: [entry], bundle: true, format: 'esm', platform: 'node', outfile: join(work, 'out/index.mjs'), logLevel: 'silent', plugins: [plugin(options(SIZES))] }).catch((e: { errors: { text: string }[] }) => e)
    expect((failed as { errors: { text: string }[] }).errors.map(e => e.text)).toEqual(['docs: shards with esbuild writes the core and its shards into the output folder: set outdir.'])
  }, 120_000)

  it('fails loading with a KnowledgeError when a shard of the deployment is another build\'s', async () => {
    const { outDir, module } = await build('rollup', entry, options(SIZES), 'knowledge-shards-mixed')
    const shards = filesOf(outDir).filter(f => f.endsWith('.skillkit') && readFileSync(join(outDir, f)).readUInt16LE(10) === 4).sort()
    // Two shards swapped: each is intact, but not the one the core lists under its name.
    const [a, b] = [readFileSync(join(outDir, shards[0]!)), readFileSync(join(outDir, shards[1]!))]
    writeFileSync(join(outDir, shards[0]!), b)
    writeFileSync(join(outDir, shards[1]!), a)
    const error = await module.docs.snapshot().catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'KnowledgeError', code: 'snapshot-mismatch' })
    expect((error as Error).message).toMatch(/^The knowledge snapshot shard .+\.skillkit does not belong to its core \(\d+ bytes with CRC-32 [\da-f]{8}; the core lists \d+ bytes with [\da-f]{8}\): the core and its shards come from different builds, or the shard was damaged in transfer\. Deploy the build's whole output folder again, so that all of its files match\.$/)
  }, 120_000)
})
