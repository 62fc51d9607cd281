// The static query encoder against the full model, on the real corpus (the 147 Modern Web
// Guidance guides, indexed with all-MiniLM-L6-v2 q8, as bench/retrieval.bench.mjs builds
// them) and its labelled sets (short, prompts, hard, dev, descriptions; tune and report
// halves by the same fixed rule).
//
// The table is distilled from the same model for the guides (`distilQueryTable`, its model
// vectors cached in .cache/models/query-table, so only the first run embeds), then every
// query is embedded both ways: by the model (as today) and by the table (int8 rows, as
// shipped: the runtime's tokenizer over the table's pieces, pooled, plus the bias). For each
// set and half, with the default thresholds and with threshold 0:
//   vector   searchVectors on the int8 snapshot
//   auto     searchFused (the knowledge base's default ranking with a model)
// each as top-1 / recall@5 / MRR@5 for the model and for the table, and the share of the
// model's top-1 the table keeps. Also: distillation time (cold: an empty cache; cached),
// table size, microseconds to embed a query.
//
//   node bench/encoder.bench.mjs [--tune] [--cold] [--json]
//
// --tune  compares the table's choices (pieces kept, SIF weights, pooling, ridge λ, training
//         texts) on the tune halves only, vector-only top-1 and MRR@5 summed over sets.
// --cold  also times a distillation from an empty cache (embeds every row: ~20 s on 2 cores).

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bundleSource, modelsDir } from './knowledge.mjs'
import { half, loadEvaluation } from './retrieval.bench.mjs'
import { emitResult, isMain, rankingMetrics } from './util.mjs'

/** The query table's build side and the model's vocabulary, from src/. */
function loadTableModules() {
  return bundleSource('encoder-bench-table', [
    `export { distilQueryTable } from './src/knowledge/query-table/distil'`,
    `export { loadModelVocabulary } from './src/knowledge/query-table/vocabulary'`,
    `export { trainingTexts } from './src/knowledge/query-table/training'`,
    '',
  ].join('\n'))
}

export const TABLE_CACHE = join(modelsDir, 'query-table')

// ---- The table's query encoder, in the bench until the runtime's is merged ----

const PUNCTUATION = /[!-/:-@[-`{-~]|\p{P}/u
const CJK = /[\u4E00-\u9FFF\u3400-\u4DBF\uF900-\uFAFF\u{20000}-\u{2A6DF}\u{2A700}-\u{2CEAF}\u{2F800}-\u{2FA1F}]/u

/** BERT's basic tokenizer (clean, lowercase, strip accents, split CJK and punctuation), then WordPiece over `vocabulary`. */
export function wordPieces(text, tokenizer, rowOf) {
  let t = text.replace(/[\0\uFFFD]|[\p{Cc}\p{Cf}]/gu, c => (/\s/.test(c) ? ' ' : ''))
  if (tokenizer.lowercase)
    t = t.toLowerCase()
  if (tokenizer.stripAccents)
    t = t.normalize('NFD').replace(/\p{Mn}/gu, '')
  const words = []
  for (const chunk of t.split(/\s+/)) {
    let word = ''
    for (const c of chunk) {
      if (PUNCTUATION.test(c) || CJK.test(c)) {
        if (word)
          words.push(word)
        words.push(c)
        word = ''
      }
      else {
        word += c
      }
    }
    if (word)
      words.push(word)
  }
  const rows = []
  for (const word of words) {
    const chars = [...word]
    if (chars.length > tokenizer.maxCharsPerWord)
      continue
    const found = []
    let start = 0
    let ok = true
    while (start < chars.length) {
      let end = chars.length
      let row
      while (start < end) {
        const piece = (start > 0 ? tokenizer.continuingPrefix : '') + chars.slice(start, end).join('')
        row = rowOf.get(piece)
        if (row !== undefined)
          break
        end--
      }
      if (row === undefined) {
        ok = false
        break
      }
      found.push(row)
      start = end
    }
    if (ok)
      rows.push(...found)
    if (rows.length >= tokenizer.maxPieces)
      break
  }
  return rows.slice(0, tokenizer.maxPieces)
}

/** Rows quantized as the files store them: int8 with one scale per row. */
function quantizeRows(table) {
  const { rows, dimensions } = table
  const out = new Float32Array(rows.length)
  for (let r = 0; r < rows.length / dimensions; r++) {
    let max = 0
    for (let d = 0; d < dimensions; d++)
      max = Math.max(max, Math.abs(rows[r * dimensions + d]))
    const scale = max / 127 || 1
    for (let d = 0; d < dimensions; d++)
      out[r * dimensions + d] = Math.round(rows[r * dimensions + d] / scale) * scale
  }
  return out
}

/** A query encoder of a table: text → unit vector (zero when no piece is in the table). */
export function tableEncoder(table, { int8 = true } = {}) {
  const rows = int8 ? quantizeRows(table) : table.rows
  const rowOf = new Map(table.vocabulary.map((piece, row) => [piece, row]))
  const D = table.dimensions
  return (text) => {
    const found = wordPieces(text, table.tokenizer, rowOf)
    const out = new Float32Array(D)
    if (found.length === 0)
      return out
    const sum = new Float64Array(D)
    let total = 0
    for (const row of found) {
      const w = table.weights[row]
      for (let d = 0; d < D; d++)
        sum[d] += w * rows[row * D + d]
      total += w
    }
    const divisor = table.pooling === 'mean' ? found.length : total
    let norm = 0
    for (let d = 0; d < D; d++) {
      sum[d] = sum[d] / divisor + table.bias[d]
      norm += sum[d] * sum[d]
    }
    norm = Math.sqrt(norm) || 1
    for (let d = 0; d < D; d++)
      out[d] = sum[d] / norm
    return out
  }
}

/** Bytes of the table's files as format.ts lays them out (core JSON + shard rows), before any compression. */
function tableBytes(table) {
  const core = JSON.stringify({ vocabulary: table.vocabulary, bias: Array.from(table.bias) }).length
  return core + table.vocabulary.length * (8 + table.dimensions)
}

// ---- Measuring ----

const SETTINGS = { 'defaults': null, 'threshold 0': 0 }

/** metrics[set][half][setting][method][encoder]. */
function measure(K, snapshot, sets, encode) {
  const out = {}
  for (const [name, queries] of Object.entries(sets)) {
    const staticVectors = queries.map(q => encode(q.query))
    out[name] = { queries: queries.length }
    for (const [setting, t] of Object.entries(SETTINGS)) {
      const threshold = t ?? K.DEFAULT_SEARCH.threshold
      const ranked = { vector: { model: [], static: [] }, auto: { model: [], static: [] } }
      queries.forEach((q, i) => {
        for (const [encoder, vector] of [['model', q.vector], ['static', staticVectors[i]]]) {
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
function tuneScore(K, snapshot, sets, encode) {
  let kept = 0
  let mrr = 0
  let n = 0
  for (const queries of Object.values(sets)) {
    const tune = queries.filter(q => half(q.query) === 'tune')
    const rank = vector => K.searchVectors(snapshot, vector, { topK: 5, threshold: 0 }).map(r => r.id)
    const model = rankingMetrics(tune.map(q => rank(q.vector)), tune)
    const mine = rankingMetrics(tune.map(q => rank(encode(q.query))), tune)
    kept += mine.top1 / model.top1
    mrr += mine.mrr5 / model.mrr5
    n++
  }
  return { top1Kept: kept / n, mrr5Kept: mrr / n }
}

async function distil(T, embedder, vocabulary, texts, options = {}, cacheDir = TABLE_CACHE) {
  const start = performance.now()
  const table = await T.distilQueryTable(embedder, { texts }, { vocabulary, cacheDir, ...options })
  return { table, ms: performance.now() - start }
}

export async function run({ tune = false, cold = false, log = console.log } = {}) {
  const evaluation = await loadEvaluation({ log, name: 'encoder-bench' })
  const { K, snapshots, int8, sets } = evaluation
  const T = await loadTableModules()
  const vocabulary = T.loadModelVocabulary(modelsDir, K.DEFAULT_MODEL.id, K.DEFAULT_MODEL.revision)
  if (!vocabulary)
    throw new Error(`No WordPiece tokenizer.json for the model in ${modelsDir}.`)
  const embedder = await K.createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype: 'q8', maxTokens: K.DEFAULT_MODEL.maxTokens })
  const texts = int8.documents.map(d => d.body)
  const snapshot = snapshots.int8
  try {
    const result = { model: embedder.fingerprint }
    if (cold) {
      const empty = mkdtempSync(join(tmpdir(), 'skill-kit-encoder-bench-'))
      try {
        result.coldMs = (await distil(T, embedder, vocabulary, texts, {}, empty)).ms
      }
      finally {
        rmSync(empty, { recursive: true, force: true })
      }
      log(`distillation, empty cache: ${(result.coldMs / 1000).toFixed(1)} s`)
    }
    await distil(T, embedder, vocabulary, texts) // fills the shared cache
    const { table, ms } = await distil(T, embedder, vocabulary, texts)
    result.cachedMs = ms
    result.rows = table.vocabulary.length
    result.trainingTexts = T.trainingTexts(texts).length
    result.bytes = tableBytes(table)
    log(`table: ${table.vocabulary.length} pieces × ${table.dimensions}, ~${(result.bytes / 1e6).toFixed(2)} MB int8 (uncompressed), ${result.trainingTexts} training texts; distillation, cached: ${(ms / 1000).toFixed(1)} s`)

    if (tune) {
      result.tune = []
      const choices = tuneChoices()
      for (const [label, options] of choices) {
        const { table: t } = await distil(T, embedder, vocabulary, texts, options)
        const score = tuneScore(K, snapshot, sets, tableEncoder(t))
        result.tune.push({ label, options, rows: t.vocabulary.length, ...score })
        log(`  tune ${label.padEnd(40)} ${t.vocabulary.length} rows: top-1 kept ${(score.top1Kept * 100).toFixed(1)} %, MRR@5 kept ${(score.mrr5Kept * 100).toFixed(1)} %`)
      }
    }

    const encode = tableEncoder(table)
    const all = Object.values(sets).flat()
    const start = performance.now()
    for (let r = 0; r < 3; r++)
      all.forEach(q => encode(q.query))
    result.encodeMicroseconds = (performance.now() - start) * 1000 / (3 * all.length)
    result.quality = measure(K, snapshot, sets, encode)
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
    ['no map (pieces alone, SIF)', { training: { maxTexts: 0 } }],
    ['uniform weights', { sif: 0 }],
    ['SIF a=1e-4', { sif: 1e-4 }],
    ['SIF a=1e-2', { sif: 1e-2 }],
    ['pooling mean', { pooling: 'mean' }],
    ['λ 1e-3', { lambda: 1e-3 }],
    ['λ 0.1', { lambda: 0.1 }],
    ['2,000 training texts', { training: { maxTexts: 2000 } }],
    ['20,000 training texts', { training: { maxTexts: 20000 } }],
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
  const result = await run({ tune: process.argv.includes('--tune'), cold: process.argv.includes('--cold') })
  console.log(`static query: ${result.encodeMicroseconds.toFixed(0)} µs (bench encoder, float pooling of int8 rows)`)
  printQuality(result.quality)
  emitResult(result)
}
