// Fusion that never loses to its own parts (issue 27, part 2), on the real corpus (the 147
// Modern Web Guidance guides, all-MiniLM-L6-v2 q8, as bench/retrieval.bench.mjs builds them)
// and its labelled sets (short, prompts, hard, dev, descriptions; tune and report halves by
// the same fixed rule).
//
// For each set and half, top-1 / recall@5 / MRR@5 (default thresholds) of
//   vector    searchVectors
//   lexical   searchLexical
//   fixed     the former `auto`: vector + 0.5 · lexical for queries of up to five informative
//             terms, + 0.4 · for longer ones (computed here from every document's two scores)
//   auto      searchFused: vector + w · lexical, w from how peaked each side's top ten are
//             (src/runtime/knowledge/ranking/fusion-weight.ts)
// and whether the goal holds: top-1 and MRR@5 at least the better of vector and lexical.
//
// With --static, the same with query vectors from the static query encoder instead of the
// model: a table distilled from the model for the guides (`distilQueryTable` on
// `queryTableCorpus`, its model vectors cached in .cache/models/query-table), written as the build writes it
// (`encodeQueryTable`) and read as the runtime reads it (`staticQueryEmbedder`).
//
// With --rule <weight>,<exponent>, one more column, `rule`: the same rule with other
// parameters (the weight of equally peaked sides, the exponent of the ratio), for checking a
// choice made on the tune halves against the report halves.
//
// With --grid, the rule's two parameters (the weight of equally peaked sides, the exponent of
// the ratio) over a grid, on the tune halves: summed top-1 and MRR@5, and on how many tune
// halves the goal fails, for the model's vectors (and the static ones with --static).
//
//   node bench/fusion.bench.mjs [--static] [--grid] [--rule 0.5,1.25] [--json]

import { join } from 'node:path'
import { bundleSource, modelsDir } from './knowledge.mjs'
import { half, loadEvaluation } from './retrieval.bench.mjs'
import { arg, emitResult, isMain, rankingMetrics } from './util.mjs'

/** The fusion rule and the static encoder's build and run sides, from src/. */
export function loadFusionModules() {
  return bundleSource('fusion-bench', [
    `export * from './src/runtime/knowledge/ranking/fusion-weight'`,
    `export { distilQueryTable } from './src/knowledge/query-table/distil'`,
    `export { queryTableCorpus } from './src/knowledge/query-table/corpus'`,
    `export { loadModelVocabulary } from './src/knowledge/query-table/vocabulary'`,
    `export { encodeQueryTable } from './src/knowledge/query-table/encode'`,
    `export { staticQueryEmbedder } from './src/runtime/knowledge/vector/encoder/static-embedder'`,
    '',
  ].join('\n'))
}

const METHODS = ['vector', 'lexical', 'fixed', 'auto']
/** The former rule's weights and the query length between them. */
const FIXED = { short: 0.5, long: 0.4, terms: 5 }

/**
 * Every document's scores for one query: vector pooled and best chunk (over all documents),
 * lexical pooled and best chunk (0 without a query term).
 */
function documentScores(K, snapshot, query, vector) {
  const n = snapshot.documents.length
  const fill = (results) => {
    const out = new Float64Array(n)
    for (const r of results)
      out[r.documentIndex] = r.score
    return out
  }
  return {
    v: fill(K.searchVectors(snapshot, vector, { topK: n, threshold: -1 })),
    vBest: fill(K.searchVectors(snapshot, vector, { topK: n, threshold: -1, pooling: 'max' })),
    l: fill(K.searchLexical(snapshot, query, { topK: n, threshold: 0 })),
    lBest: fill(K.searchLexical(snapshot, query, { topK: n, threshold: 0, pooling: 'max' })),
  }
}

/** The ten highest of `scores`, best first. */
function highest(scores, k = 10) {
  return [...scores].sort((a, b) => b - a).slice(0, k)
}

/** Document IDs (top 10) by v + w · l among the documents either default threshold admits, ties by lower index. */
function fusedIds(snapshot, s, w) {
  const docs = []
  for (let d = 0; d < s.v.length; d++) {
    if (s.vBest[d] >= 0.3 || s.lBest[d] >= 0.25)
      docs.push(d)
  }
  const score = d => s.v[d] + w * s.l[d]
  return docs.sort((a, b) => score(b) - score(a) || a - b).slice(0, 10).map(d => snapshot.documents[d].id)
}

/** Rankings of every method for every query, and how often the bench's own fused ranking differs from searchFused's. */
function rankAll(K, F, snapshot, queries, vectorOf, methods, rule) {
  const ids = results => results.slice(0, 10).map(r => r.id)
  const rankings = Object.fromEntries(methods.map(m => [m, []]))
  const scores = []
  let differing = 0
  let autoMs = 0
  for (const q of queries) {
    const vector = vectorOf(q)
    const s = documentScores(K, snapshot, q.query, vector)
    scores.push(s)
    rankings.vector.push(ids(K.searchVectors(snapshot, vector, { topK: 10 })))
    rankings.lexical.push(ids(K.searchLexical(snapshot, q.query, { topK: 10 })))
    rankings.fixed.push(fusedIds(snapshot, s, K.queryTerms(q.query).length <= FIXED.terms ? FIXED.short : FIXED.long))
    const start = performance.now()
    const auto = ids(K.searchFused(snapshot, q.query, vector, { topK: 10 }))
    autoMs += performance.now() - start
    rankings.auto.push(auto)
    if (fusedIds(snapshot, s, F.lexicalWeight(highest(s.v), highest(s.l))).join() !== auto.join())
      differing++
    if (rule)
      rankings.rule.push(fusedIds(snapshot, s, ruleWeight(F, rule)(s)))
  }
  return { rankings, scores, differing, autoMs }
}

/** metrics[set][half][method] = { top1, recall5, mrr5 }, goal[set][half][method] for fixed and auto. */
function measure(K, F, snapshot, sets, vectorOf, rule) {
  const methods = rule ? [...METHODS, 'rule'] : METHODS
  const quality = {}
  const kept = {}
  let differing = 0
  let autoMs = 0
  let count = 0
  for (const [name, queries] of Object.entries(sets)) {
    const ranked = rankAll(K, F, snapshot, queries, vectorOf, methods, rule)
    differing += ranked.differing
    autoMs += ranked.autoMs
    count += queries.length
    kept[name] = { queries, scores: ranked.scores }
    quality[name] = {}
    for (const h of ['tune', 'report']) {
      const at = queries.flatMap((q, i) => half(q.query) === h ? [i] : [])
      const subset = at.map(i => queries[i])
      const metrics = Object.fromEntries(methods.map((m) => {
        const { top1, recall5, mrr5 } = rankingMetrics(at.map(i => ranked.rankings[m][i]), subset)
        return [m, { top1, recall5, mrr5 }]
      }))
      const better = { top1: Math.max(metrics.vector.top1, metrics.lexical.top1), mrr5: Math.max(metrics.vector.mrr5, metrics.lexical.mrr5) }
      const holds = m => metrics[m].top1 >= better.top1 - 1e-12 && metrics[m].mrr5 >= better.mrr5 - 1e-12
      quality[name][h] = { queries: subset.length, metrics, goal: Object.fromEntries(methods.slice(2).map(m => [m, holds(m)])) }
    }
  }
  return { quality, kept, differing, queries: count, autoUs: autoMs / count * 1000 }
}

/** The weight of fusion-weight.ts's rule with other parameters, for a query's document scores. */
function ruleWeight(F, { balanced, exponent }) {
  return (s) => {
    const ratio = (F.peakedness(highest(s.l)) + F.PEAK_FLOOR) / (F.peakedness(highest(s.v)) + F.PEAK_FLOOR)
    return Math.min(F.MAX_LEXICAL_WEIGHT, balanced * ratio ** exponent)
  }
}

/** The rule's parameters over a grid (peakedness floor and cap as in fusion-weight.ts). */
function grid(F, snapshot, measured) {
  const rows = []
  for (const balanced of [0.4, 0.5, 0.7, 1, 1.4]) {
    for (const exponent of [0, 0.5, 1, 1.25, 1.5, 2]) {
      rows.push({ balanced, exponent, ...tuneScore(snapshot, measured.kept, measured.quality, ruleWeight(F, { balanced, exponent })) })
    }
  }
  return rows.sort((a, b) => (b.top1 + b.mrr5) - (a.top1 + a.mrr5))
}

/** Tune-half sums over sets of top-1 and MRR@5 for a weight rule, and the tune halves where it loses to a side. */
function tuneScore(snapshot, kept, quality, weightOf) {
  let top1 = 0
  let mrr5 = 0
  let misses = 0
  for (const [name, { queries, scores }] of Object.entries(kept)) {
    const at = queries.flatMap((q, i) => half(q.query) === 'tune' ? [i] : [])
    const m = rankingMetrics(at.map(i => fusedIds(snapshot, scores[i], weightOf(scores[i]))), at.map(i => queries[i]))
    const { vector, lexical } = quality[name].tune.metrics
    top1 += m.top1
    mrr5 += m.mrr5
    if (m.top1 < Math.max(vector.top1, lexical.top1) - 1e-12 || m.mrr5 < Math.max(vector.mrr5, lexical.mrr5) - 1e-12)
      misses++
  }
  return { top1, mrr5, misses }
}

/** Query vectors of the static encoder: the table distilled for the guides, through its files and the runtime's reader. */
export async function staticVectors(K, F, int8, chunk, sets, log) {
  const vocabulary = F.loadModelVocabulary(modelsDir, K.DEFAULT_MODEL.id, K.DEFAULT_MODEL.revision)
  if (!vocabulary)
    throw new Error(`No WordPiece tokenizer.json for the model in ${modelsDir}.`)
  const embedder = await K.createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype: 'q8', maxTokens: K.DEFAULT_MODEL.maxTokens })
  try {
    const start = performance.now()
    const table = await F.distilQueryTable(embedder, F.queryTableCorpus(int8, embedder, chunk), { vocabulary, cacheDir: join(modelsDir, 'query-table') })
    const files = F.encodeQueryTable(table)
    log(`static encoder: ${table.vocabulary.length} pieces, ${files.shards.length} shards (distilled in ${((performance.now() - start) / 1000).toFixed(1)} s)`)
    const embed = F.staticQueryEmbedder({ core: async () => files.core, shard: async i => files.shards[i], model: embedder.fingerprint })
    const vectors = new Map()
    for (const q of Object.values(sets).flat())
      vectors.set(q.query, Array.from(await embed(q.query)))
    return vectors
  }
  finally {
    await embedder.dispose()
  }
}

export async function run({ withStatic = false, withGrid = false, rule, log = console.log } = {}) {
  const { K, snapshots, int8, chunk, sets } = await loadEvaluation({ log, name: 'fusion-bench-knowledge' })
  const F = await loadFusionModules()
  const snapshot = snapshots.int8
  const result = { rule, encoders: {} }
  const encoders = { model: q => q.vector }
  if (withStatic) {
    const vectors = await staticVectors(K, F, int8, chunk, sets, log)
    encoders.static = q => vectors.get(q.query)
  }
  for (const [encoder, vectorOf] of Object.entries(encoders)) {
    const measured = measure(K, F, snapshot, sets, vectorOf, rule)
    result.encoders[encoder] = { quality: measured.quality, differing: measured.differing, queries: measured.queries, autoUs: measured.autoUs }
    if (withGrid)
      result.encoders[encoder].grid = grid(F, snapshot, measured)
  }
  return result
}

const pct = x => (x * 100).toFixed(1)
const cell = m => `${pct(m.top1).padStart(5)} ${pct(m.recall5).padStart(5)} ${m.mrr5.toFixed(3)}`

/** One table per encoder: sets × halves × methods, and the goal. */
export function printResult(result, log = console.log) {
  for (const [encoder, r] of Object.entries(result.encoders)) {
    log(`\nquery vectors: ${encoder} (searchFused and this bench's fused ranking differ on ${r.differing} of ${r.queries} queries; auto ${r.autoUs.toFixed(0)} µs a query)`)
    const methods = Object.keys(Object.values(Object.values(r.quality)[0])[0].metrics)
    log(`set           half      ${methods.map(m => m.padEnd(18)).join(' ')} goal (${methods.slice(2).join(' / ')})`)
    log(`                        ${methods.map(() => 'top-1  r@5  MRR@5 ').join(' ')}`)
    for (const [name, halves] of Object.entries(r.quality)) {
      for (const [h, q] of Object.entries(halves)) {
        const goals = Object.values(q.goal).map(g => g ? 'ok' : 'MISSED').join(' / ')
        log(`${name.padEnd(13)} ${`${h} ${q.queries}`.padEnd(10)}${methods.map(m => cell(q.metrics[m])).join('  ')}  ${goals}`)
      }
    }
    if (r.grid) {
      log(`\n${encoder}, tune halves: the weight of equal sides × exponent of the ratio (top-1 + MRR@5 summed over sets, tune halves losing to a side)`)
      for (const g of r.grid.slice(0, 12))
        log(`  ${String(g.balanced).padEnd(4)} ^${String(g.exponent).padEnd(5)} top-1 ${g.top1.toFixed(3)}  MRR@5 ${g.mrr5.toFixed(3)}  misses ${g.misses}`)
    }
  }
}

if (isMain(import.meta)) {
  const [balanced, exponent] = (arg('rule', '') || '').split(',').map(Number)
  const rule = Number.isFinite(balanced) && Number.isFinite(exponent) ? { balanced, exponent } : undefined
  const result = await run({ withStatic: process.argv.includes('--static'), withGrid: process.argv.includes('--grid'), rule })
  printResult(result)
  emitResult(result)
}
