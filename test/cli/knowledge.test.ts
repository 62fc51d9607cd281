import type { CliRun } from '../support/cli'
import type { ProjectBuild } from '../../src/knowledge/project'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { buildProgress, progressBar } from '../../src/cli/knowledge/progress'
import { DEFAULT_MODEL, defaultProjectConfig } from '../../src/knowledge/config'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { buildKnowledgeProject, disposeProjectEmbedders, openKnowledgeProject } from '../../src/knowledge/project'
import { readManifest, readPublishedIndex, readQueryTable } from '../../src/knowledge/publish'
import { decodeSnapshot, searchFused } from '../../src/runtime'
import { staticQueryEmbedder } from '../../src/runtime/knowledge/vector/encoder/static-embedder'
import { bundleCli, runCli } from '../support/cli'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/cli-knowledge')
const models = join(work, 'models')
/** The project most tests use: `skill-kit init home`, then the tiny model and the home fixtures. */
const home = join(work, 'home')
const output = join(home, '.skill-kit/index')
let script: string

/** Runs `skill-kit …args` from the work folder. */
const skillKit = (...args: string[]): Promise<CliRun> => runCli(script, work, args)
/** Runs a command that must succeed and print JSON. */
async function jsonOf<T = any>(...args: string[]): Promise<T> {
  const run = await skillKit(...args)
  expect(run.stderr).toBe('')
  expect(run.code).toBe(0)
  return JSON.parse(run.stdout) as T
}

/** Runs `skill-kit build …args`, which must succeed: its JSON summary, and the lines it printed on stderr (a pipe, not a terminal). */
async function buildOf(...args: string[]): Promise<{ summary: any, progress: string[] }> {
  const run = await skillKit('build', ...args)
  expect(run.code, run.stderr).toBe(0)
  return { summary: JSON.parse(run.stdout), progress: run.stderr.split('\n').filter(Boolean) }
}

/** The throttled lines between the first and the last: windows embedded, with a rate and an estimate (their values depend on the machine). */
const EMBEDDED = /^skill-kit: home: embedded \d+\/\d+ windows \(\d+(?:\.\d)?\/s, about \d+ (?:s|min) left\)$/
const BUILT = /^skill-kit: home: built in \d+\.\d s$/

const RESULT_KEYS = ['id', 'title', 'description', 'category', 'categories', 'tags', 'path', 'tokenCount', 'score', 'heading']
/** A stack trace line, which an expected failure must never print. */
const STACK = /^\s+at /m

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  ;[script] = await Promise.all([bundleCli(work), buildTinyModel(models)])
}, 60_000)

afterAll(async () => {
  await disposeProjectEmbedders()
})

describe('skill-kit init', () => {
  it('creates a project with every default and an example document, and refuses an existing one', async () => {
    const run = await skillKit('init', 'home')
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({ project: 'home', created: ['home/skill-kit.json', 'home/knowledge/example.md', 'home/.gitignore'] })
    expect(run.stderr).toBe('Next: add Markdown documents to home/knowledge, then run "skill-kit model --project home" (once, to download the embedding model) and "skill-kit build --project home".\n')
    expect(readFileSync(join(home, '.gitignore'), 'utf8')).toBe('.skill-kit/\n')
    const text = readFileSync(join(home, 'skill-kit.json'), 'utf8')
    expect(JSON.parse(text)).toEqual(defaultProjectConfig('home'))
    const opened = openKnowledgeProject(home)
    expect(opened.diagnostics).toEqual([])
    expect(opened.project?.config.model && opened.project.config.model.id).toBe('Xenova/all-MiniLM-L6-v2')

    const again = await skillKit('init', 'home')
    expect(again.code).toBe(1)
    expect(again.stdout).toBe('')
    expect(again.stderr).toBe('skill-kit init: home/skill-kit.json already exists; init leaves an existing project alone.\n')
    expect(readFileSync(join(home, 'skill-kit.json'), 'utf8')).toBe(text)
    expect(readFileSync(join(home, '.gitignore'), 'utf8')).toBe('.skill-kit/\n')

    // From here on: the tiny model, small windows, and search defaults that show they are read.
    const config = { ...defaultProjectConfig('home'), model: { id: TINY_MODEL_ID, cacheDir: '../models' }, chunk: { maxTokens: 48, overlapTokens: 8 }, search: { topK: 2, threshold: -1 } }
    writeFileSync(join(home, 'skill-kit.json'), JSON.stringify(config, null, 2))
    rmSync(join(home, 'knowledge/example.md'))
    cpSync(join(repo, 'test/fixtures/knowledge/home'), join(home, 'knowledge'), { recursive: true })
  })
})

describe('skill-kit build', () => {
  let bundlerBuild: ProjectBuild

  it('requires a skill-kit.json project', async () => {
    const run = await skillKit('build')
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('skill-kit build: . is not a knowledge project: it has no skill-kit.json. Create one with "skill-kit init .",')
  })

  it('after a bundler build of the same project, embeds nothing and publishes the same snapshot', async () => {
    // What the plugin does in a bundler: open the folder and build through the same function.
    const opened = openKnowledgeProject(home)
    const built = await buildKnowledgeProject(opened.project!, { offline: true })
    await disposeProjectEmbedders()
    if (!('snapshot' in built))
      throw new Error(built.diagnostics.map(d => d.message).join('\n'))
    bundlerBuild = built
    expect(built.stats.embedded).toBe(built.stats.windows)

    const { summary, progress } = await buildOf('--offline', '--project', 'home')
    // Nothing to embed: quiet, but for the time it took when that was 2 s or more (a loaded machine).
    expect(progress.length).toBeLessThanOrEqual(1)
    progress.forEach(line => expect(line).toMatch(BUILT))
    expect(summary).toEqual({
      name: 'home',
      documents: 3,
      chunks: built.chunks.length,
      windows: built.stats.windows,
      embedded: 0,
      cached: built.stats.windows,
      snapshot: relative(work, built.snapshotFile),
      bytes: built.snapshot.byteLength,
      warnings: 0,
      ms: expect.any(Number),
    })
    expect(Buffer.compare(readFileSync(built.snapshotFile), Buffer.from(built.snapshot))).toBe(0)
    expect(readManifest(output)?.snapshot).toBe(relative(output, built.snapshotFile))
  })

  it('--force embeds every window again, into the same bytes, with progress lines on stderr', async () => {
    const { summary, progress } = await buildOf('--force', '--offline', '--project', 'home')
    expect(summary).toMatchObject({ embedded: bundlerBuild.stats.windows, cached: 0, snapshot: relative(work, bundlerBuild.snapshotFile) })
    const { windows } = bundlerBuild.stats
    expect(progress[0]).toBe(`skill-kit: home: 3 documents, ${windows} windows (0 cached, ${windows} to embed)`)
    expect(progress.at(-1)).toMatch(BUILT)
    progress.slice(1, -1).forEach(line => expect(line).toMatch(EMBEDDED))
  })

  it('reports every invalid document with file:line:col and keeps the published index', async () => {
    const manifest = readManifest(output)
    writeFileSync(join(home, 'knowledge/broken.md'), '---\nid: broken\ntags: [a, b\n---\n\n# Broken\n\nText.\n')
    writeFileSync(join(home, 'knowledge/twin.md'), '---\nid: restore-backup\n---\n\n# Twin\n\nText.\n')
    try {
      const run = await skillKit('build', '--offline', '--project', 'home')
      expect(run.code).toBe(1)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain('home/knowledge/broken.md:3:12 error yaml-syntax: ')
      expect(run.stderr).toContain('> 3 | tags: [a, b\n    |            ^')
      expect(run.stderr).toContain('home/knowledge/twin.md:1:1 error document-id-duplicate: The ID "restore-backup" is already used by backups/restore.md.')
      expect(run.stderr.trimEnd().split('\n').at(-1)).toBe('skill-kit build: The build failed (2 errors, 0 warnings); the published index is unchanged.')
      expect(run.stderr).not.toMatch(STACK)
      expect(readManifest(output)).toEqual(manifest)
      expect(existsSync(join(output, manifest!.snapshot))).toBe(true)

      // The folder no longer matches the index: status says so, search and retrieve refuse it.
      expect((await jsonOf('status', '--project', 'home')).index).toMatchObject({ state: 'stale', reason: 'documents changed' })
      for (const args of [['search', 'backup', '--mode', 'lexical'], ['retrieve', 'restore-backup']]) {
        const stale = await skillKit(...args, '--project', 'home')
        expect(stale.code).toBe(1)
        expect(stale.stderr).toContain('is stale: documents changed since it was built. Run "skill-kit build" to update it.')
      }
    }
    finally {
      rmSync(join(home, 'knowledge/broken.md'))
      rmSync(join(home, 'knowledge/twin.md'))
    }
    expect((await jsonOf('status', '--project', 'home')).index.state).toBe('fresh')
  })

  it('fails at once with --offline when the model is missing, trying no network, without a stack trace', async () => {
    await skillKit('init', 'no-model')
    const run = await runCli(script, work, ['build', '--offline', '--project', 'no-model'], ['--import', join(import.meta.dirname, '../support/no-network.mjs')])
    expect(run.stderr).not.toContain('NETWORK ATTEMPT')
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(`skill-kit build: The embedding model Xenova/all-MiniLM-L6-v2 is not available offline: ${join(work, 'no-model/.skill-kit/models/Xenova/all-MiniLM-L6-v2')} lacks config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx. `
      + 'Run "skill-kit model --project no-model" to put it there (it downloads the model; see "skill-kit model --help" for ways without network).\n')
    expect(run.stderr).not.toMatch(STACK)
    expect(existsSync(join(work, 'no-model/.skill-kit/index'))).toBe(false)
  })
})

describe('skill-kit search', () => {
  it('ranks with the project\'s defaults, exactly as the runtime does, without bodies', async () => {
    const results = await jsonOf<Record<string, unknown>[]>('search', 'restore', 'a', 'deleted', 'file', '--offline', '--project', 'home')
    // search.topK 2 and threshold -1 from skill-kit.json.
    expect(results).toHaveLength(2)
    for (const result of results)
      expect(Object.keys(result)).toEqual(RESULT_KEYS)
    const snapshot = decodeSnapshot(readPublishedIndex(output)!.snapshot)
    const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
    try {
      // The default mode, auto: vector and lexical scores fused.
      const expected = searchFused(snapshot, 'restore a deleted file', (await embedder.embed(['restore a deleted file'], 'query'))[0]!, { topK: 2, threshold: -1 })
      expect(results.map(r => [r.id, r.heading])).toEqual(expected.map(r => [r.id, r.heading]))
      results.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i]!.score, 6))
    }
    finally {
      await embedder.dispose()
    }
    const more = await jsonOf<{ score: number }[]>('search', 'restore', '--top-k', '3', '--threshold', '-0.5', '--project', 'home')
    expect(more).toHaveLength(3)
    expect(more.map(r => r.score)).toEqual(more.map(r => r.score).sort((a, b) => b - a))
  })

  it('searches lexically (BM25, 0.25 threshold by default) and in hybrid', async () => {
    const lexical = await jsonOf<{ id: string, score: number, heading: string[] }[]>('search', 'borg list', '--mode', 'lexical', '--project', 'home')
    expect(lexical).toHaveLength(1)
    expect(lexical[0]).toMatchObject({ id: 'restore-backup', path: 'backups/restore.md', heading: ['Restore a backup', 'From the command line'] })
    expect(lexical[0]!.score).toBeGreaterThan(0.25)
    expect(await jsonOf('search', 'zebra', '--mode', 'lexical', '--project', 'home')).toEqual([])
    const hybrid = await jsonOf<{ id: string }[]>('search', 'borg list', '--mode', 'hybrid', '--offline', '--project', 'home')
    expect(hybrid).toHaveLength(2)
    expect(hybrid[0]!.id).toBe('restore-backup')
  })

  it('rejects a missing index, then a stale one after a document is edited', async () => {
    const missing = await skillKit('search', 'backup', '--project', 'no-model')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('skill-kit search: No index is published in no-model/.skill-kit/index. Run "skill-kit build" first.\n')

    writeFileSync(join(home, 'knowledge/backups/schedule.md'), '# Schedule backups\n\nRun a nightly backup at 03:00 instead.\n')
    const stale = await skillKit('search', 'backup', '--project', 'home')
    expect(stale.code).toBe(1)
    expect(stale.stdout).toBe('')
    expect(stale.stderr).toContain('Run "skill-kit build" to update it.')
    const { summary: rebuilt, progress } = await buildOf('--offline', '--project', 'home')
    expect(rebuilt.embedded).toBeGreaterThan(0)
    expect(rebuilt.embedded).toBeLessThan(rebuilt.windows)
    expect(progress[0]).toBe(`skill-kit: home: 3 documents, ${rebuilt.windows} windows (${rebuilt.cached} cached, ${rebuilt.embedded} to embed)`)
    expect(progress.at(-1)).toMatch(BUILT)
    expect(await jsonOf('search', 'backup', '--mode', 'lexical', '--project', 'home')).not.toEqual([])
  })
})

describe('skill-kit search --encoder', () => {
  /** A copy of the home project, with `queryEncoder`. */
  async function encoderProject(name: string, queryEncoder?: string): Promise<string> {
    const dir = join(work, name)
    cpSync(join(repo, 'test/fixtures/knowledge/home'), join(dir, 'knowledge'), { recursive: true })
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ model: { id: TINY_MODEL_ID, cacheDir: '../models' }, chunk: { maxTokens: 48, overlapTokens: 8 }, search: { topK: 3, threshold: -1 }, ...(queryEncoder && { queryEncoder }) }))
    await buildOf('--offline', '--project', name)
    return dir
  }

  it('embeds the query with the model where its files are, with the published query table on --encoder static or where they are not', async () => {
    const dir = await encoderProject('encoder')
    const published = readPublishedIndex(join(dir, '.skill-kit/index'))!
    const table = readQueryTable(join(dir, '.skill-kit/index'), published.manifest)!
    const snapshot = decodeSnapshot(published.snapshot)
    const query = 'restore a deleted file'
    const embed = staticQueryEmbedder({ core: async () => table.core, shard: async s => table.shards[s]! })
    const fromTable = searchFused(snapshot, query, await embed(query), { topK: 3, threshold: -1 })
    const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
    const fromModel = searchFused(snapshot, query, (await embedder.embed([query], 'query'))[0]!, { topK: 3, threshold: -1 })
    await embedder.dispose()
    const expectRanking = async (args: readonly string[], expected: typeof fromTable) => {
      const results = await jsonOf<{ id: string, score: number }[]>('search', query, '--offline', '--project', 'encoder', ...args)
      expect(results.map(r => r.id), args.join(' ')).toEqual(expected.map(r => r.id))
      results.forEach((r, i) => expect(r.score, args.join(' ')).toBeCloseTo(expected[i]!.score, 6))
    }
    for (const [args, expected] of [[[], fromModel], [['--encoder', 'static'], fromTable], [['--encoder', 'model'], fromModel]] as const)
      await expectRanking(args, expected)
    expect(fromTable.map(r => r.score)).not.toEqual(fromModel.map(r => r.score))
    // The model's folder moved away (the cache folder is not part of the index's settings): auto uses the table, offline.
    const config = JSON.parse(readFileSync(join(dir, 'skill-kit.json'), 'utf8'))
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ ...config, model: { ...config.model, cacheDir: '../no-models' } }))
    await expectRanking([], fromTable)
    await expectRanking(['--encoder', 'static'], fromTable)
  })

  it('says there is no table for --encoder static where queryEncoder is "model", and what to do', async () => {
    await encoderProject('encoder-model', 'model')
    const run = await skillKit('search', 'backup', '--encoder', 'static', '--project', 'encoder-model')
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'skill-kit search: "encoder-model" has no query table to embed the query with ("queryEncoder": "model" in skill-kit.json): search with --encoder model, or set "queryEncoder" to "auto" or "static" and run "skill-kit build".\n' })
    const usage = await skillKit('search', 'backup', '--encoder', 'table', '--project', 'encoder-model')
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('--encoder must be static or model, got "table".')
  })
})

describe('skill-kit retrieve, status and model', () => {
  it('retrieve prints a published body, and suggests IDs for an unknown one', async () => {
    const run = await skillKit('retrieve', 'restore-backup', '--project', 'home')
    expect(run).toEqual({ code: 0, stderr: '', stdout: readPublishedIndex(output)!.documents.find(d => d.id === 'restore-backup')!.body })
    expect(run.stdout).toContain('borg list /mnt/backup')
    const typo = await skillKit('retrieve', 'restore-backp', '--project', 'home')
    expect(typo).toEqual({ code: 1, stdout: '', stderr: 'skill-kit retrieve: "restore-backp" is not a document of "home". Did you mean "restore-backup"?\n' })
    const segment = await skillKit('retrieve', 'wifi', '--project', 'home')
    expect(segment).toEqual({ code: 1, stdout: '', stderr: 'skill-kit retrieve: "wifi" is not a document of "home". Did you mean "network/wifi"?\n' })
    // One document matches ignoring case: it is the one.
    expect(await skillKit('retrieve', 'Network/WiFi', '--project', 'home')).toEqual({ code: 0, stderr: '', stdout: readPublishedIndex(output)!.documents.find(d => d.id === 'network/wifi')!.body })
  })

  it('status reports paths, the index (counted as build counts it), the model files and the vector cache', async () => {
    const { summary } = await buildOf('--offline', '--project', 'home')
    // Small windows: chunks are cut into more windows, so the two counts differ.
    expect(summary.windows).toBeGreaterThan(summary.chunks)
    const manifest = readManifest(output)!
    expect(await jsonOf('status', '--project', 'home')).toEqual({
      name: 'home',
      paths: { knowledge: 'knowledge', output: '.skill-kit/index', cache: '.skill-kit/cache', models: '../models' },
      index: { state: 'fresh', reason: null, documents: summary.documents, chunks: summary.chunks, windows: summary.windows, model: manifest.model, snapshot: `.skill-kit/index/${manifest.snapshot}` },
      model: {
        id: TINY_MODEL_ID,
        revision: DEFAULT_MODEL.revision,
        dtype: 'q8',
        folder: '../models/skill-kit-test/tiny-bert',
        present: ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'],
        missing: [],
      },
      queryTable: {
        state: 'fresh',
        reason: null,
        model: manifest.model,
        folder: `.skill-kit/index/${manifest.queryTable!.folder}`,
        files: manifest.queryTable!.shards + 1,
        bytes: readdirSync(join(output, manifest.queryTable!.folder)).reduce((sum, name) => sum + statSync(join(output, manifest.queryTable!.folder, name)).size, 0),
      },
      cache: { bytes: expect.any(Number) },
    })
    const noModel = await jsonOf('status', '--project', 'no-model')
    expect(noModel.index).toEqual({ state: 'missing', reason: null, documents: null, chunks: null, windows: null, model: null, snapshot: null })
    expect(noModel.queryTable).toEqual({ state: 'missing', reason: null, model: null, folder: null, files: null, bytes: null })
  })

  it('status says when the query table is stale (kept for earlier documents, or of another model) or damaged, and none for queryEncoder "model"', async () => {
    const project = openKnowledgeProject(home).project!
    const folder = join(output, readManifest(output)!.queryTable!.folder)
    const core = readFileSync(join(folder, 'query-table.json'))
    const tableOf = async () => (await jsonOf('status', '--project', 'home')).queryTable
    try {
      writeFileSync(join(folder, 'query-table.json'), JSON.stringify({ ...JSON.parse(core.toString()), model: 'another-model' }))
      expect(await tableOf()).toMatchObject({ state: 'stale', reason: 'distilled from another model than the index\'s', model: 'another-model' })
      writeFileSync(join(folder, 'query-table.json'), core.subarray(0, 100))
      expect(await tableOf()).toMatchObject({ state: 'damaged', reason: `Cannot read the query table file ${relative(home, folder)}/query-table.json: it is not UTF-8 JSON. Rebuild the project, and deploy its whole output folder.`, model: null })
    }
    finally {
      writeFileSync(join(folder, 'query-table.json'), core)
    }
    // An edit built as skill-kit watch builds it: the published table is the earlier one until a build makes it again.
    const file = join(project.config.knowledge, 'backups/restore.md')
    const text = readFileSync(file, 'utf8')
    try {
      writeFileSync(file, `${text}\nCheck the archive with borg check first.\n`)
      await buildKnowledgeProject(project, { offline: true, reuseQueryTable: true })
      expect(await tableOf()).toMatchObject({ state: 'stale', reason: 'made for earlier documents', folder: relative(home, folder) })
    }
    finally {
      writeFileSync(file, text)
      await disposeProjectEmbedders()
    }
    const { summary } = await buildOf('--offline', '--project', 'home')
    expect(summary.documents).toBeGreaterThan(0)
    expect((await tableOf()).state).toBe('fresh')

    const config = JSON.parse(readFileSync(join(home, 'skill-kit.json'), 'utf8'))
    try {
      writeFileSync(join(home, 'skill-kit.json'), JSON.stringify({ ...config, queryEncoder: 'model' }))
      expect(await tableOf()).toBe(false)
    }
    finally {
      writeFileSync(join(home, 'skill-kit.json'), JSON.stringify(config, null, 2))
    }
  })

  it('model loads the files already there, without the network', async () => {
    // Every file is there, so the model loads offline: this made-up model exists nowhere to download from.
    const run = await skillKit('model', '--project', 'home')
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual({
      model: TINY_MODEL_ID,
      revision: DEFAULT_MODEL.revision,
      dtype: 'q8',
      fingerprint: readManifest(output)!.model,
      folder: '../models/skill-kit-test/tiny-bert',
      files: ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'],
    })
  })
})

describe('usage', () => {
  it('prints each command\'s help', async () => {
    const runs = await Promise.all(['init', 'build', 'search', 'retrieve', 'status', 'model'].map(async name => [name, await skillKit(name, '--help')] as const))
    for (const [name, run] of runs) {
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(new RegExp(`^Usage: skill-kit ${name}`))
    }
    expect((await skillKit('--help')).stdout).toContain('  search "<query>"')
  })

  it('init adds .skill-kit/ to an existing .gitignore once, and says to run the commands from the project itself', async () => {
    mkdirSync(join(work, 'own'))
    writeFileSync(join(work, 'own/.gitignore'), 'node_modules')
    const run = await runCli(script, join(work, 'own'), ['init'])
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({ project: '.', created: ['skill-kit.json', 'knowledge/example.md'] })
    expect(run.stderr).toBe('Next: add Markdown documents to knowledge, then run "skill-kit model" (once, to download the embedding model) and "skill-kit build".\n')
    expect(readFileSync(join(work, 'own/.gitignore'), 'utf8')).toBe('node_modules\n.skill-kit/\n')
    mkdirSync(join(work, 'ignored'))
    writeFileSync(join(work, 'ignored/.gitignore'), '/.skill-kit\r\n')
    expect((await skillKit('init', 'ignored')).code).toBe(0)
    expect(readFileSync(join(work, 'ignored/.gitignore'), 'utf8')).toBe('/.skill-kit\r\n')
  })

  it('search --help says what the default mode does', async () => {
    const run = await skillKit('search', '--help')
    expect(run.stdout).toContain(`
  --mode <m>            auto (the default): vector and lexical scores fused,
                        or lexical for a project whose skill-kit.json has
                        "model": false. vector: the query embedded with the
                        project's model (Transformers.js and the model files
                        must be installed; auto and vector fail rather than
                        fall back to lexical). lexical: BM25 over the same
                        chunks, no model. hybrid: both, fused by reciprocal rank
`)
  })

  it('exits 2 with the usage on a command line that makes no sense', async () => {
    const cases: [string[], string][] = [
      [['search', 'x', '--top-k', '0'], '--top-k must be a positive integer, got "0".'],
      [['search', 'x', '--top-k', '1.5'], '--top-k must be a positive integer, got "1.5".'],
      [['search', 'x', '--threshold', '2'], '--threshold must be a number from -1 to 1, got "2".'],
      [['search', 'x', '--threshold', 'high'], '--threshold must be a number from -1 to 1, got "high".'],
      [['search', 'x', '--mode', 'fuzzy'], '--mode must be auto, vector, lexical or hybrid, got "fuzzy".'],
      [['search', '--project', 'home'], 'search needs a query'],
      [['search', 'x', '--top'], 'Unknown option \'--top\''],
      [['build', '--fast'], 'Unknown option \'--fast\''],
      [['build', 'home'], 'Unexpected argument "home".'],
      [['retrieve'], 'retrieve needs a document ID'],
      [['status', '--project'], '--project'],
      [['init', 'a', 'b'], 'Unexpected argument "b".'],
    ]
    const runs = await Promise.all(cases.map(([args]) => skillKit(...args)))
    runs.forEach((run, i) => {
      const [args, message] = cases[i]!
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain(message)
      expect(run.stderr).toContain(`Usage: skill-kit ${args[0]}`)
    })
  })
})

describe('buildProgress', () => {
  const io = (errIsTTY: boolean, written: string[]) => ({ out: () => {}, err: (s: string) => written.push(s), errIsTTY })

  it('draws the bar on a terminal, and nothing else', () => {
    const written: string[] = []
    const progress = buildProgress(io(true, written), 'home')
    progress.onProgress({ phase: 'read', documents: 3, chunks: 9, windows: 128, cached: 0 })
    progress.onProgress({ phase: 'embed', done: 64, total: 128 })
    progress.onProgress({ phase: 'done' })
    progress.done()
    expect(written).toEqual([`\rEmbedding [${'#'.repeat(15)}${'-'.repeat(15)}] 64/128`, '\r\x1B[2K'])
  })

  it('writes the reporter\'s lines, one per line, elsewhere', () => {
    const written: string[] = []
    const progress = buildProgress(io(false, written), 'home')
    progress.onProgress({ phase: 'read', documents: 3, chunks: 9, windows: 1_280, cached: 1_000 })
    progress.onProgress({ phase: 'done' })
    progress.done()
    expect(written).toHaveLength(2)
    expect(written[0]).toBe('skill-kit: home: 3 documents, 1,280 windows (1,000 cached, 280 to embed)\n')
    expect(written[1]).toMatch(/^skill-kit: home: built in \d+\.\d s\n$/)
  })
})

describe('progressBar', () => {
  it('draws on a terminal only, and erases itself', () => {
    const written: string[] = []
    const io = (errIsTTY: boolean) => ({ out: () => {}, err: (s: string) => written.push(s), errIsTTY })
    const piped = progressBar(io(false), 'Embedding')
    piped.update(1, 2)
    piped.done()
    expect(written).toEqual([])
    const tty = progressBar(io(true), 'Embedding')
    tty.update(64, 128)
    tty.done()
    expect(written).toEqual([`\rEmbedding [${'#'.repeat(15)}${'-'.repeat(15)}] 64/128`, '\r\x1B[2K'])
  })
})
