/**
 * Node bundles that run anywhere: each bundler builds an app that imports a
 * knowledge base for Node (with and without `includeModel`); the output is
 * copied to a fresh temporary folder, the original removed, and the copy run
 * in a child `node` process. Lexical search works; with the bundled model,
 * vector search ranks as the build-time embedder does; without one, `auto`
 * falls back to lexical with one warning and `vector` says what to do. No
 * output names the build machine's folders.
 *
 * The copies live in `<tmp>/skill-kit-moved-*` beside a `node_modules` that is
 * a symlink to this repository's, so that the moved bundle finds
 * `@huggingface/transformers` as an installed app would; one copy runs without
 * it, to show what a bundle says when Transformers.js is not installed. The
 * bundles that load a model are built with `queryEncoder: 'model'`; those of
 * the default (`auto`), with the static query encoder, run without any
 * package and search semantically all the same.
 */
import type { PluginOptions } from '../../support/build'
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder } from '../../../src/knowledge/embedder'
import { openKnowledgeProject } from '../../../src/knowledge/project'
import { readPublishedIndex, readQueryTable } from '../../../src/knowledge/publish'
import { decodeSnapshot, searchFused, searchVectors } from '../../../src/runtime'
import { staticQueryEmbedder } from '../../../src/runtime/knowledge/vector/encoder/static-embedder'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-node')
const models = join(work, 'models')
const entry = join(work, 'main.js')
const moved = mkdtempSync(join(tmpdir(), 'skill-kit-moved-'))
/** The moved builds find the repository's packages here, as an app finds its own. */
const withPackages = join(moved, 'app')
/** …and here they find none. */
const withoutPackages = join(moved, 'bare')

/** With a typo and a word written apart, which lexical search corrects and joins. */
const VECTOR_QUERIES = ['restore deleted files from a backup', 'wifi keeps dropping', 'nightly backup schedule', 'nightly bakcup schedule', 'wi fi keeps dropping']
/** Every document, whatever its score: the whole ranking is compared. */
const VECTOR_OPTIONS = { topK: 10, threshold: -1 }

type Target = 'vite-ssr' | 'vite-ssr-emit' | 'vite-lib' | 'rollup' | 'rolldown' | 'esbuild' | 'webpack' | 'rspack'
type Format = 'esm' | 'cjs'
const TARGETS: Target[] = ['vite-ssr', 'vite-ssr-emit', 'vite-lib', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack']
/** Targets also built as CommonJS (Vite's server build is ESM here, as its default). */
const CJS_TARGETS: Target[] = ['vite-lib', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack']

/** `static`: the default query encoder (`auto`) with no model in the bundle, so the query table's; else the model's. */
const pluginOptions = (includeModel: boolean | 'static'): PluginOptions => ({
  root: work,
  offline: true,
  knowledge: { guides: { dir: 'guides', model: { id: TINY_MODEL_ID, cacheDir: models }, includeModel: includeModel === true, ...(includeModel !== 'static' && { queryEncoder: 'model' as const }) } },
})

/** Runs a webpack-like compiler once, failing with the text of every error. */
function runCompiler(compiler: any): Promise<void> {
  return new Promise((done, fail) => {
    compiler.run((error: Error | null, stats: any) => {
      compiler.close(() => {
        if (error)
          return fail(error)
        if (stats.hasErrors())
          return fail(new Error(stats.toString({ all: false, errors: true })))
        done()
      })
    })
  })
}

/** Builds `entry` for Node with `target` into `outDir`; resolves with the entry file, relative to `outDir`. */
async function buildForNode(target: Target, format: Format, options: PluginOptions, outDir: string): Promise<string> {
  const bundler = target.startsWith('vite') ? 'vite' : target
  const plugin = (await import(pathToFileURL(join(repo, 'dist', `${bundler}.mjs`)).href)).default
  const file = format === 'esm' ? 'index.mjs' : 'index.cjs'
  switch (target) {
    case 'vite-ssr':
    case 'vite-ssr-emit':
    case 'vite-lib': {
      const { build } = await import('vite')
      const lib = target === 'vite-lib'
      await build({
        configFile: false,
        root: work,
        logLevel: 'silent',
        // A site's base, which Node bundles' assets are never relative to: the default root, or the relative one of the issue's SSR case.
        base: target === 'vite-ssr-emit' ? './' : '/',
        plugins: [plugin(options)],
        build: {
          outDir,
          emptyOutDir: true,
          minify: false,
          copyPublicDir: false,
          ...(lib
            ? { lib: { entry, formats: [format === 'esm' ? 'es' : 'cjs'], fileName: () => file } }
            : { ssr: entry, ssrEmitAssets: target === 'vite-ssr-emit', rolldownOptions: { output: { entryFileNames: file } } }),
        },
      })
      return file
    }
    case 'rollup':
    case 'rolldown': {
      const { rollup } = target === 'rollup' ? await import('rollup') : { rollup: (await import('rolldown')).rolldown }
      // Rolldown is told the bundle is for Node (as its CommonJS default is); Rollup has no such option.
      const bundle = await rollup({ input: entry, plugins: [plugin(options)], onLog: () => {}, ...(target === 'rolldown' ? { platform: 'node' as const } : {}) })
      try {
        await bundle.write({ dir: outDir, format: format === 'esm' ? 'es' : 'cjs', entryFileNames: file })
      }
      finally {
        await bundle.close()
      }
      return file
    }
    case 'esbuild': {
      const esbuild = await import('esbuild')
      await esbuild.build({
        entryPoints: { index: entry },
        bundle: true,
        // esbuild's default for Node is CommonJS; ESM has to be asked for.
        ...(format === 'esm' ? { format: 'esm' as const, splitting: true, outExtension: { '.js': '.mjs' } } : { outExtension: { '.js': '.cjs' } }),
        platform: 'node',
        outdir: outDir,
        logLevel: 'silent',
        plugins: [plugin(options)],
      })
      return file
    }
    case 'webpack':
    case 'rspack': {
      const esm = format === 'esm'
      const config = {
        mode: 'none' as const,
        context: work,
        entry,
        target: 'node' as const,
        devtool: false as const,
        cache: false,
        output: esm
          ? { path: outDir, filename: file, module: true, library: { type: 'module' as const }, chunkFormat: 'module' as const }
          : { path: outDir, filename: file, library: { type: 'commonjs2' as const } },
        plugins: [plugin(options)],
        infrastructureLogging: { level: 'none' as const },
      }
      const compiler = target === 'webpack'
        ? (await import('webpack')).default({ ...config, ...(esm ? { experiments: { outputModule: true } } : {}) })
        : (await import('@rspack/core')).rspack(config)
      await runCompiler(compiler)
      return file
    }
  }
}

/** What the child process reports. */
interface RunReport {
  documents: string[]
  lexical: string[]
  auto: { id: string, score: number }[][]
  /** The scores of a lexical search of each query. */
  lexicalScores: number[][]
  vector: { ok: true, value: { id: string, score: number }[][] } | { ok: false, name: string, code: string, message: string }
  retrieved: string
  warnings: string[]
  /** What the folder import found lexically. */
  folderImport: string[]
}

/** The child: imports the moved bundle, searches, and prints a report. `auto` runs twice, so a second warning would show. */
const RUNNER = `
const warnings = []
console.warn = (...args) => warnings.push(args.join(' '))
const loaded = await import(process.argv[2])
const kb = loaded.default.default ?? loaded.default
const [queries, options] = JSON.parse(process.argv[3])
const ranked = results => results.map(r => ({ id: r.id, score: r.score }))
const report = { documents: kb.documents.map(d => d.id), warnings }
report.folderImport = (await (loaded.default.docs ?? loaded.docs).search('proxy certificates', { mode: 'lexical' })).map(r => r.id)
report.lexical = (await kb.search('borg archive', { mode: 'lexical' })).map(r => r.id)
report.auto = []
report.lexicalScores = []
for (const query of queries) {
  report.auto.push(ranked(await kb.search(query, options)))
  report.lexicalScores.push((await kb.search(query, { topK: options.topK, mode: 'lexical' })).map(r => r.score))
}
try {
  const value = []
  for (const query of queries)
    value.push(ranked(await kb.search(query, { ...options, mode: 'vector' })))
  report.vector = { ok: true, value }
}
catch (error) {
  report.vector = { ok: false, name: error.name, code: error.code, message: error.message }
}
report.retrieved = await kb.retrieve('restore-backup')
process.stdout.write(JSON.stringify(report))
`

/** Runs the bundle's entry at `file` in a child `node` process, with `env` added to the environment. */
function run(file: string, env: Record<string, string> = {}): Promise<RunReport> {
  return new Promise((done, fail) => {
    execFile(process.execPath, [join(moved, 'runner.mjs'), pathToFileURL(file).href, JSON.stringify([VECTOR_QUERIES, VECTOR_OPTIONS])], { cwd: moved, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      if (error)
        return fail(new Error(`${file} failed: ${stderr || error.message}`))
      done(JSON.parse(stdout) as RunReport)
    })
  })
}

/** Every file under `dir`, relative. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter(e => e.isFile()).map(e => join(e.parentPath, e.name).slice(dir.length + 1))
}

interface Moved {
  /** The bundle's entry in its new folder. */
  file: string
  /** Its output folder there. */
  dir: string
  /** Build outputs (JavaScript) that name the build machine's folders. */
  leaks: string[]
}

/** Builds, copies the output into `parent`, removes the original. */
async function buildAndMove(target: Target, format: Format, includeModel: boolean | 'static', parent: string): Promise<Moved> {
  const name = `${target}-${format}-${includeModel === 'static' ? 'static' : includeModel ? 'model' : 'bare'}`
  const outDir = join(work, 'dist', name)
  rmSync(outDir, { recursive: true, force: true })
  const file = await buildForNode(target, format, pluginOptions(includeModel), outDir)
  const leaks = filesOf(outDir).filter(f => /\.[cm]?js$/.test(f) && readFileSync(join(outDir, f), 'utf8').includes(repo))
  const dir = join(parent, name)
  mkdirSync(parent, { recursive: true })
  cpSync(outDir, dir, { recursive: true })
  rmSync(outDir, { recursive: true, force: true })
  return { file: join(dir, file), dir, leaks }
}

/** The rankings of VECTOR_QUERIES embedded by `vectors`, over the published snapshot. */
function rankingsOf(snapshot: ReturnType<typeof decodeSnapshot>, vectors: ArrayLike<number>[]): typeof expected {
  return {
    vector: vectors.map(vector => searchVectors(snapshot, vector, VECTOR_OPTIONS).map(({ id, score }) => ({ id, score }))),
    auto: vectors.map((vector, q) => searchFused(snapshot, VECTOR_QUERIES[q]!, vector, VECTOR_OPTIONS).map(({ id, score }) => ({ id, score }))),
  }
}

/** The rankings of the build-time embedder, over the published snapshot. */
async function buildTimeRanking(): Promise<typeof expected> {
  const published = readPublishedIndex(openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config.output)!
  const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
  try {
    return rankingsOf(decodeSnapshot(published.snapshot), await embedder.embed(VECTOR_QUERIES, 'query'))
  }
  finally {
    await embedder.dispose()
  }
}

/** The rankings of the static query encoder over the published snapshot, with the published query table. */
async function staticRanking(): Promise<typeof expected> {
  const { output } = openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config
  const published = readPublishedIndex(output)!
  const table = readQueryTable(output, published.manifest)!
  const embed = staticQueryEmbedder({ core: async () => table.core, shard: async s => table.shards[s]! })
  const vectors = []
  for (const query of VECTOR_QUERIES)
    vectors.push(await embed(query))
  return rankingsOf(decodeSnapshot(published.snapshot), vectors)
}

const NO_MODEL_REASON = 'this bundle has no query model: it was built without includeModel, and no model folder was given'
const MODEL_FIX = `build with includeModel and deploy the whole output folder, or pass the folder that holds ${TINY_MODEL_ID}/ to useModel({ path }) or SKILL_KIT_MODEL_PATH`
const NO_MODEL_WARNING = `[skill-kit] Knowledge base "guides" searches lexically: ${NO_MODEL_REASON}. For vector search, ${MODEL_FIX}.`
const NO_MODEL_ERROR = `A vector search of "guides" needs its query model, but ${NO_MODEL_REASON}. B${MODEL_FIX.slice(1)}, or search with mode: 'lexical'.`

/** The build-time rankings of VECTOR_QUERIES: by mode `vector`, and by `auto` (fused). */
let expected: { vector: { id: string, score: number }[][], auto: { id: string, score: number }[][] }
let lexicalRanking: { id: string, score: number }[][]

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(work, 'guides'), { recursive: true })
  // A folder import too: its module id names the folder, which must not reach the bundle either.
  cpSync(join(repo, 'test/fixtures/knowledge-app/docs'), join(work, 'docs'), { recursive: true })
  writeFileSync(entry, `export { default } from 'virtual:skill-kit/knowledge/guides'\nexport { default as docs } from './docs?knowledge'\n`)
  await buildTinyModel(models)
  mkdirSync(withPackages, { recursive: true })
  mkdirSync(withoutPackages, { recursive: true })
  symlinkSync(join(repo, 'node_modules'), join(moved, 'app', 'node_modules'), 'dir')
  writeFileSync(join(moved, 'runner.mjs'), RUNNER)
}, 60_000)

afterAll(() => {
  rmSync(moved, { recursive: true, force: true })
})

describe.each(TARGETS)('a Node bundle of %s, moved', (target) => {
  let bare: Moved
  let model: Moved
  let bareRun: RunReport
  let modelRun: RunReport

  beforeAll(async () => {
    bare = await buildAndMove(target, 'esm', false, withPackages)
    model = await buildAndMove(target, 'esm', true, withPackages)
    ;[bareRun, modelRun] = await Promise.all([run(bare.file), run(model.file)])
    expected ??= await buildTimeRanking()
  }, 120_000)

  it('names none of the build machine\'s folders', () => {
    expect(bare.leaks).toEqual([])
    expect(model.leaks).toEqual([])
  })

  it('lists, retrieves and searches lexically', () => {
    for (const report of [bareRun, modelRun]) {
      expect(report.documents).toEqual(['backups/schedule', 'network/wifi', 'restore-backup'])
      expect(report.lexical[0]).toBe('restore-backup')
      expect(report.retrieved).toContain('borg list /mnt/backup')
      expect(report.folderImport[0]).toBe('setup/proxy')
    }
  })

  it('with includeModel, embeds queries with the bundled model and ranks as the build does', () => {
    expect(modelRun.warnings).toEqual([])
    expect(modelRun.vector.ok).toBe(true)
    expectBuildRanking(modelRun.auto)
    expectBuildRanking(modelRun.vector.ok ? modelRun.vector.value : [], 'vector')
    // The model's files came with the bundle, under their layout; for Node only, without ONNX Runtime Web.
    const files = filesOf(model.dir)
    expect(files.some(f => f.endsWith(join(TINY_MODEL_ID, 'onnx/model_quantized.onnx')))).toBe(true)
    // A library (Vite's library mode, Rollup) may run in browsers too, so it carries ONNX Runtime Web as well.
    expect(files.some(f => f.endsWith('.wasm'))).toBe(target === 'vite-lib' || target === 'rollup')
  })

  it('without a model, searches lexically in auto mode and says so once; vector search says what to do', () => {
    lexicalRanking ??= bareRun.auto
    expect(bareRun.warnings).toEqual([NO_MODEL_WARNING])
    expect(bareRun.auto).toEqual(lexicalRanking)
    expect(bareRun.auto[0]![0]!.id).toBe('restore-backup')
    expect(bareRun.vector).toEqual({ ok: false, name: 'KnowledgeError', code: 'model-unavailable', message: NO_MODEL_ERROR })
  })
})

describe.each(TARGETS)('a Node bundle of %s with the static query encoder, moved to a folder with no node_modules', (target) => {
  let moved: Moved
  let report: RunReport
  let fromTable: typeof expected
  beforeAll(async () => {
    moved = await buildAndMove(target, 'esm', 'static', withoutPackages)
    report = await run(moved.file)
    fromTable = await staticRanking()
  }, 120_000)

  it('searches semantically with no model and no Transformers.js: auto fuses the table\'s query vectors, not lexical', () => {
    expect(moved.leaks).toEqual([])
    expect(report.warnings).toEqual([])
    expect(filesOf(moved.dir).filter(f => /\.(?:onnx|wasm)$/.test(f))).toEqual([])
    expectRanking(report.auto, fromTable.auto)
    expect(report.vector.ok).toBe(true)
    expectRanking(report.vector.ok ? report.vector.value : [], fromTable.vector)
    // The lexical fallback ranks by normalised BM25: other scores.
    expect(report.auto.map(r => r.map(hit => hit.score))).not.toEqual(report.lexicalScores)
  })
})

describe.each(CJS_TARGETS)('a CommonJS Node bundle of %s, moved', (target) => {
  let bare: Moved
  let report: RunReport
  beforeAll(async () => {
    bare = await buildAndMove(target, 'cjs', false, withPackages)
    report = await run(bare.file)
  }, 120_000)

  it('names none of the build machine\'s folders, reads its snapshot and falls back to lexical', () => {
    expect(bare.leaks).toEqual([])
    expect(report.lexical[0]).toBe('restore-backup')
    expect(report.retrieved).toContain('borg list /mnt/backup')
    expect(report.warnings).toEqual([NO_MODEL_WARNING])
  })

  it('with the static query encoder, reads the query table beside it and searches semantically, with no packages', async () => {
    const moved = await buildAndMove(target, 'cjs', 'static', withoutPackages)
    const staticReport = await run(moved.file)
    expect(moved.leaks).toEqual([])
    expect(staticReport.warnings).toEqual([])
    expectRanking(staticReport.auto, (await staticRanking()).auto)
  }, 120_000)
})

/** The same ranking as the build's in that mode, scores within 1e-5. */
function expectBuildRanking(ranking: { id: string, score: number }[][], mode: 'auto' | 'vector' = 'auto'): void {
  expectRanking(ranking, expected[mode])
}

/** The same ranking as `wanted`, scores within 1e-5. */
function expectRanking(ranking: { id: string, score: number }[][], wanted: { id: string, score: number }[][]): void {
  VECTOR_QUERIES.forEach((query, q) => {
    expect(ranking[q]!.map(r => r.id), query).toEqual(wanted[q]!.map(r => r.id))
    ranking[q]!.forEach((r, i) => expect(Math.abs(r.score - wanted[q]![i]!.score), `${query}: ${r.id}`).toBeLessThan(1e-5))
  })
}

describe('where a moved Node bundle finds its model', () => {
  beforeAll(async () => {
    expected ??= await buildTimeRanking()
  }, 60_000)

  it('takes the folder SKILL_KIT_MODEL_PATH names, when built without includeModel', async () => {
    const bare = await buildAndMove('rollup', 'esm', false, join(withPackages, 'env'))
    const report = await run(bare.file, { SKILL_KIT_MODEL_PATH: models })
    expect(report.warnings).toEqual([])
    expectBuildRanking(report.auto)
  }, 60_000)

  it('names the folder and the files it lacks when the model was not deployed with the bundle', async () => {
    const model = await buildAndMove('rollup', 'esm', true, join(withPackages, 'partial'))
    const [version] = readdirSync(join(model.dir, 'skill-kit/models'))
    rmSync(join(model.dir, 'skill-kit'), { recursive: true })
    const report = await run(model.file)
    const reason = `${join(model.dir, 'skill-kit/models', version!, TINY_MODEL_ID)} lacks config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx`
    expect(report.warnings).toEqual([`[skill-kit] Knowledge base "guides" searches lexically: ${reason}. For vector search, ${MODEL_FIX}.`])
    expect(report.auto[0]![0]!.id).toBe('restore-backup')
    expect(report.vector).toMatchObject({ ok: false, code: 'model-unavailable', message: `A vector search of "guides" needs its query model, but ${reason}. B${MODEL_FIX.slice(1)}, or search with mode: 'lexical'.` })
  }, 60_000)

  it('says where the snapshot belongs when it was not deployed with the bundle', async () => {
    const bare = await buildAndMove('webpack', 'esm', false, join(withPackages, 'no-snapshot'))
    const [snapshot] = filesOf(bare.dir).filter(f => f.endsWith('.skillkit'))
    rmSync(join(bare.dir, snapshot!))
    const failure = await run(bare.file).catch((error: Error) => error.message)
    expect(failure).toContain(`KnowledgeError: Cannot read the knowledge snapshot ${join(bare.dir, snapshot!)} (ENOENT): it belongs beside the bundle; deploy the bundle's whole output folder.`)
  }, 60_000)

  it('says Transformers.js is not installed where the bundle runs, and searches lexically', async () => {
    const model = await buildAndMove('webpack', 'esm', true, withoutPackages)
    const report = await run(model.file)
    const reason = 'Transformers.js (@huggingface/transformers) is not installed where this bundle runs'
    expect(report.warnings).toEqual([`[skill-kit] Knowledge base "guides" searches lexically: ${reason}. For vector search, install it there: npm i @huggingface/transformers.`])
    expect(report.auto[0]![0]!.id).toBe('restore-backup')
    expect(report.vector).toEqual({ ok: false, name: 'KnowledgeError', code: 'model-unavailable', message: `A vector search of "guides" needs its query model, but ${reason}. Install it there: npm i @huggingface/transformers, or search with mode: 'lexical'.` })
  }, 60_000)
})
