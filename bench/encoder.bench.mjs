// The static query encoder against the full model, on the real corpus (the 147 Modern Web
// Guidance guides, indexed with all-MiniLM-L6-v2 q8, as bench/retrieval.bench.mjs builds
// them) and its labelled sets (short, prompts, hard, dev, descriptions; tune and report
// halves by the same fixed rule).
//
// The table is distilled from the same model for the guides (`distilQueryTable` on
// `queryTableCorpus`: the guides' texts and the snapshot's windows; the model's vectors are
// cached in .cache/models/query-table, so only the first run embeds), then every
// query is embedded both ways: by the model (as today) and by the table as users get it
// (encodeQueryTable's int8 files, read by the runtime's staticQueryEmbedder). For each
// set and half, with the default thresholds and with threshold 0:
//   vector   searchVectors on the int8 snapshot
//   auto     searchFused (the knowledge base's default ranking with a model)
// each as top-1 / recall@5 / MRR@5 for the model and for the table, and the share of the
// model's top-1 the table keeps. Also: distillation time (cold: an empty cache; cached),
// table size, microseconds to embed a query.
//
//   node bench/encoder.bench.mjs [--tune[=<label part>]] [--cold] [--phases] [--json]
//
// --tune  compares the table's choices (pieces kept, SIF weights, pooling, ridge λ, training
//         texts and windows, row training) on the tune halves only: vector-only top-1 and
//         MRR@5 (threshold 0) as shares of the model's, averaged over the sets. With a label
//         part (--tune=epochs), only the defaults and the choices whose label has it.
// --cold  also times a distillation from an empty cache (embeds every row: ~20 s on 2 cores).
// --phases prints the seconds of each phase of the cached distillation (the best of three runs)
//         and of the cold one.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { bundleSource, modelsDir } from './knowledge.mjs'
import { half, loadEvaluation } from './retrieval.bench.mjs'
import { emitResult, isMain, rankingMetrics } from './util.mjs'

/** The query table's build side and the model's vocabulary, from src/. */
export function loadTableModules() {
  return bundleSource('encoder-bench-table', [
    `export { distilQueryTable } from './src/knowledge/query-table/distil'`,
    `export { loadModelVocabulary } from './src/knowledge/query-table/vocabulary'`,
    `export { trainingTexts } from './src/knowledge/query-table/training'`,
    `export { queryTableCorpus } from './src/knowledge/query-table/corpus'`,
    `export { encodeQueryTable } from './src/knowledge/query-table/encode'`,
    `export { staticQueryEmbedder } from './src/runtime/knowledge/vector/encoder/static-embedder'`,
    '',
  ].join('\n'))
}

export const TABLE_CACHE = join(modelsDir, 'query-table')

/**
 * A query encoder over a table's files as users get them (encodeQueryTable's int8 core and
 * shards, read by the runtime's staticQueryEmbedder from memory), and the files.
 */
export function tableEncoder(T, table) {
  const files = T.encodeQueryTable(table)
  const embed = T.staticQueryEmbedder({ core: async () => files.core, shard: async i => files.shards[i] })
  return { embed, files }
}

/** Gzip bytes of the core, and raw bytes of every shard. */
function tableBytes(files) {
  return { coreGzip: gzipSync(files.core).length, shards: files.shards.length, shardBytes: files.shards.reduce((s, b) => s + b.length, 0) }
}

/** Every query's static vector, on `q.staticVector`. */
async function embedStatic(sets, embed) {
  for (const queries of Object.values(sets)) {
    for (const q of queries)
      q.staticVector = await embed(q.query)
  }
}

// ---- Measuring ----

const SETTINGS = { 'defaults': null, 'threshold 0': 0 }

/** metrics[set][half][setting][method][encoder]. */
function measure(K, snapshot, sets) {
  const out = {}
  for (const [name, queries] of Object.entries(sets)) {
    out[name] = { queries: queries.length }
    for (const [setting, t] of Object.entries(SETTINGS)) {
      const threshold = t ?? K.DEFAULT_SEARCH.threshold
      const ranked = { vector: { model: [], static: [] }, auto: { model: [], static: [] } }
      queries.forEach((q) => {
        for (const [encoder, vector] of [['model', q.vector], ['static', q.staticVector]]) {
          ranked.vector[encoder].push(K.searchVectors(snapshot, vector, { topK: 10, threshold }).map(r => r.id))
          ranked.auto[encoder].push(K.searchFused(snapshot, q.query, vector, { topK: 10, threshold }).map(r => r.id))
        }
      })
      for (const h of ['tune', 'report']) {
        const positions = queries.flatMap((q, i) => (half(q.query) === h ? [i] : []))
        const subset = positions.map(i => queries[i])
        out[name][h] ??= {}
        out[name][h][setting] = {}
        for (const method of ['vector', 'auto']) {
          out[name][h][setting][method] = {}
          for (const encoder of ['model', 'static']) {
            const { top1, recall5, mrr5 } = rankingMetrics(positions.map(i => ranked[method][encoder][i]), subset)
            out[name][h][setting][method][encoder] = { top1, recall5, mrr5 }
          }
        }
      }
    }
  }
  return out
}

/** Vector-only top-1 and MRR@5 on the tune halves, as shares of the model's, summed over sets. */
export function tuneScore(K, snapshot, sets) {
  let kept = 0
  let mrr = 0
  let n = 0
  for (const queries of Object.values(sets)) {
    const tune = queries.filter(q => half(q.query) === 'tune')
    const rank = vector => K.searchVectors(snapshot, vector, { topK: 5, threshold: 0 }).map(r => r.id)
    const model = rankingMetrics(tune.map(q => rank(q.vector)), tune)
    const mine = rankingMetrics(tune.map(q => rank(q.staticVector)), tune)
    kept += mine.top1 / model.top1
    mrr += mine.mrr5 / model.mrr5
    n++
  }
  return { top1Kept: kept / n, mrr5Kept: mrr / n }
}

export async function distil(T, embedder, vocabulary, corpus, options = {}, cacheDir = TABLE_CACHE) {
  const start = performance.now()
  const phases = {}
  const timing = (phase, ms) => { phases[phase] = ms }
  const table = await T.distilQueryTable(embedder, corpus, { vocabulary, cacheDir, timing, ...options })
  return { table, ms: performance.now() - start, phases }
}

const phaseLine = phases => Object.entries(phases).map(([p, ms]) => `${p} ${(ms / 1000).toFixed(2)} s`).join(', ')

export async function run({ tune = false, cold = false, phases = false, log = console.log } = {}) {
  const evaluation = await loadEvaluation({ log, name: 'encoder-bench' })
  const { K, snapshots, int8, sets } = evaluation
  const T = await loadTableModules()
  const vocabulary = T.loadModelVocabulary(modelsDir, K.DEFAULT_MODEL.id, K.DEFAULT_MODEL.revision)
  if (!vocabulary)
    throw new Error(`No WordPiece tokenizer.json for the model in ${modelsDir}.`)
  const embedder = await K.createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype: 'q8', maxTokens: K.DEFAULT_MODEL.maxTokens })
  const corpus = T.queryTableCorpus(int8, embedder, evaluation.chunk)
  const texts = corpus.texts
  const snapshot = snapshots.int8
  try {
    const result = { model: embedder.fingerprint }
    if (cold) {
      const empty = mkdtempSync(join(tmpdir(), 'skill-kit-encoder-bench-'))
      try {
        const coldRun = await distil(T, embedder, vocabulary, corpus, {}, empty)
        result.coldMs = coldRun.ms
        result.coldPhases = coldRun.phases
        if (phases)
          log(`  phases, empty cache: ${phaseLine(coldRun.phases)}`)
      }
      finally {
        rmSync(empty, { recursive: true, force: true })
      }
      log(`distillation, empty cache: ${(result.coldMs / 1000).toFixed(1)} s`)
    }
    await distil(T, embedder, vocabulary, corpus) // fills the shared cache
    // With --phases, the best of three runs: the machine is shared, and a phase's best time is its cost.
    const runs = []
    for (let i = 0; i < (phases ? 3 : 1); i++)
      runs.push(await distil(T, embedder, vocabulary, corpus))
    const { table } = runs[0]
    const ms = Math.min(...runs.map(r => r.ms))
    const cachedPhases = Object.fromEntries(Object.keys(runs[0].phases).map(p => [p, Math.min(...runs.map(r => r.phases[p]))]))
    result.cachedMs = ms
    result.cachedPhases = cachedPhases
    result.rows = table.vocabulary.length
    result.trainingTexts = T.trainingTexts(texts).length
    const { embed, files } = tableEncoder(T, table)
    result.bytes = tableBytes(files)
    result.windows = corpus.windows?.length ?? 0
    log(`table: ${table.vocabulary.length} pieces × ${table.dimensions}, core ${(result.bytes.coreGzip / 1024).toFixed(0)} KB gzip, ${result.bytes.shards} shards of ${(result.bytes.shardBytes / 1e6).toFixed(2)} MB in all, ${result.trainingTexts} training texts and ${result.windows} windows; distillation, cached: ${(ms / 1000).toFixed(1)} s${phases ? ' (best of 3)' : ''}`)
    if (phases)
      log(`  phases, cached: ${phaseLine(cachedPhases)}`)

    if (tune) {
      result.tune = []
      const choices = tuneChoices().filter(([label]) => tune === true || label === 'defaults' || label.includes(tune))
      for (const [label, options] of choices) {
        const { table: t } = await distil(T, embedder, vocabulary, label.includes('no windows') || label.includes('pieces alone') ? { texts } : corpus, options)
        await embedStatic(sets, tableEncoder(T, t).embed)
        const score = tuneScore(K, snapshot, sets)
        result.tune.push({ label, options, rows: t.vocabulary.length, ...score })
        log(`  tune ${label.padEnd(40)} ${t.vocabulary.length} rows: top-1 kept ${(score.top1Kept * 100).toFixed(1)} %, MRR@5 kept ${(score.mrr5Kept * 100).toFixed(1)} %`)
      }
    }

    await embedStatic(sets, embed) // loads every shard the queries need
    const all = Object.values(sets).flat()
    const start = performance.now()
    for (const q of all)
      await embed(q.query)
    result.encodeMicroseconds = (performance.now() - start) * 1000 / all.length
    result.quality = measure(K, snapshot, sets)
    return result
  }
  finally {
    await embedder.dispose()
  }
}

/** The choices compared with --tune: one change at a time from the defaults. */
function tuneChoices() {
  return [
    ['defaults', {}],
    ['no map, no training (pieces alone)', { training: { maxTexts: 0 } }],
    ['windows only (no texts)', { training: { maxTexts: 0 } }],
    ['ridge map only (no row training)', { rowTraining: { epochs: 0 } }],
    ['no windows (texts only)', {}],
    ['SIF a=1e-3', { sif: 1e-3 }],
    ['uniform weights', { sif: 0 }],
    ['pooling mean', { pooling: 'mean' }],
    ['λ 1e-3', { lambda: 1e-3 }],
    ['λ 0.1', { lambda: 0.1 }],
    ['row training 2 epochs', { rowTraining: { epochs: 2 } }],
    ['row training 3 epochs', { rowTraining: { epochs: 3 } }],
    ['row training 4 epochs', { rowTraining: { epochs: 4 } }],
    ['row training 6 epochs', { rowTraining: { epochs: 6 } }],
    ['row training 16 epochs', { rowTraining: { epochs: 16 } }],
    ['row training on texts only (windows fit the map)', { rowTraining: { windowEpochs: 0 } }],
    ['row training on windows in 2 epochs', { rowTraining: { windowEpochs: 2 } }],
    ['row training on windows in 4 epochs', { rowTraining: { windowEpochs: 4 } }],
    ['row training rate 0.25', { rowTraining: { learningRate: 0.25 } }],
    ['row training rate 1', { rowTraining: { learningRate: 1 } }],
    ['paragraphs too', { training: { paragraphs: true, maxWords: 200 } }],
    ['2,000 training texts', { training: { maxTexts: 2000 } }],
    ['3,000 training texts', { training: { maxTexts: 3000 } }],
    ['4,000 training texts', { training: { maxTexts: 4000 } }],
    ['no common pieces', { commonPieces: 0 }],
    ['whole vocabulary', { commonPieces: 40000 }],
  ]
}

const pct = x => (x * 100).toFixed(1).padStart(5)
const cell = m => `${pct(m.top1)} ${pct(m.recall5)} ${m.mrr5.toFixed(3)}`

export function printQuality(quality, log = console.log) {
  for (const setting of Object.keys(SETTINGS)) {
    log(`\n${setting}: top-1 % / recall@5 % / MRR@5, model | static (static top-1 as a share of the model's)`)
    for (const [name, q] of Object.entries(quality)) {
      for (const h of ['tune', 'report']) {
        for (const method of ['vector', 'auto']) {
          const m = q[h][setting][method]
          log(`  ${`${name} ${h}`.padEnd(20)} ${method.padEnd(7)} ${cell(m.model)} | ${cell(m.static)}  (${pct(m.static.top1 / m.model.top1)} %)`)
        }
      }
    }
  }
}

if (isMain(import.meta)) {
  const tuneArgument = process.argv.find(a => a === '--tune' || a.startsWith('--tune='))
  const result = await run({ tune: tuneArgument === '--tune' || (tuneArgument?.slice('--tune='.length) ?? false), cold: process.argv.includes('--cold'), phases: process.argv.includes('--phases') })
  console.log(`static query: ${result.encodeMicroseconds.toFixed(0)} µs once its shards are loaded (staticQueryEmbedder)`)
  printQuality(result.quality)
  emitResult(result)
}
