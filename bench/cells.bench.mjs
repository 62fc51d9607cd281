// Vector cells (approximate vector search of sharded snapshots) on real
// embeddings: the Modern Web Guidance guides of bench/retrieval.bench.mjs
// (all-MiniLM-L6-v2, q8), every labelled query of its sets, embedded by the
// model. For each query, an `auto` search of the sharded knowledge base
// (fresh, nothing cached) against the whole snapshot's exact search: the
// share of queries with the same top 5 (documents, in order), top-1 of both
// against the labels, gzip bytes fetched before the first result (the mean
// per kind of file too: core, lexical shards, centroids, cells of first-pass
// codes, vector rows, refinement bits), and the row requests: the
// vector shards it fetched, median and p90, and their waves over HTTP/1.1's
// six connections, ceil(requests / 6); and the share of queries that fetch
// refinement bits (a round trip after the rows). "Knowledge bytes" add the static query
// encoder's table (its core and the query's rows, distilled for the guides as
// a build does), which a browser fetches for the query whatever the layout.
// The playground's query ("lazy load offscreen images", 10 results, its
// vector from the static encoder, as the page searches) is measured too.
//
//   node bench/cells.bench.mjs [--cells 1] [--probe 8] [--bits 1] [--rescore 1.5]
//     [--vector-bytes 16384] [--row-groups similar] [--exact] [--json]
//
// Each of --cells, --probe, --bits (bits of the cells' first-pass codes),
// --rescore (documents per result scored exactly, in tenths), --vector-bytes
// (bytes a vector shard aims at) and --row-groups (`adjacent`: documents in id
// order; `similar`: documents read together) takes a list: every
// combination is measured, against the same exact search (the defaults are
// the library's where a search reads every cell). --exact measures the exact
// layout's bytes too.
//
// The guides make about 2,000 chunks, under or near where the default
// switches to cells, so the cell counts are given explicitly.

import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { loadFusionModules } from './fusion.bench.mjs'
import { bundleSource, modelsDir } from './knowledge.mjs'
import { loadEvaluation } from './retrieval.bench.mjs'
import { arg, emitResult, median } from './util.mjs'

const list = (name, fallback) => arg(name, fallback).split(',').map(v => Number.isNaN(Number(v)) ? v : Number(v))
const CELLS = list('cells', '1')
const PROBES = list('probe', '8')
const BITS = list('bits', '1')
const RESCORES = list('rescore', '1.5')
const VECTOR_BYTES = list('vector-bytes', '12288')
const ROW_GROUPS = list('row-groups', 'similar')
const KINDS = ['lexical', 'vectors', 'refinement', 'cells', 'centroids']
const CONNECTIONS = 6
const PLAYGROUND = { query: 'lazy load offscreen images', topK: 10 }

const S = await bundleSource('cells-bench', [
  `export { encodeShardedSnapshot } from './src/knowledge/snapshot-shards'`,
  `export { createKnowledgeBase, decodeSnapshot } from './src/runtime/knowledge/index'`,
  `export { openShardedSnapshot } from './src/runtime/knowledge/format/snapshot-shards'`,
  '',
].join('\n'))

const { K, int8, chunk, sets } = await loadEvaluation({ log: () => {}, name: 'cells-bench' })
const bytes = int8.snapshot
const documents = S.decodeSnapshot(bytes).documents
const chunkCount = S.decodeSnapshot(bytes).chunkCount
const queries = Object.entries(sets).flatMap(([set, list]) => list.map(q => ({ ...q, set })))
const table = await staticTable()
const vectors = new Map(queries.map(q => [q.query, q.vector]))
vectors.set(PLAYGROUND.query, (await table.embed(PLAYGROUND.query)).vector)
const embedQuery = async query => vectors.get(query)
const whole = S.createKnowledgeBase({ name: 'guides', documents, bodies: [], embedQuery, loadSnapshot: async () => bytes })
const exact = new Map()
for (const q of queries)
  exact.set(q.query, (await whole.search(q.query)).map(r => r.id))
const exactPlayground = (await whole.search(PLAYGROUND.query, { topK: PLAYGROUND.topK })).map(r => r.id)
const top1 = ids => queries.filter(q => q.relevant.includes(ids(q)[0])).length / queries.length
const tableBytes = []
for (const q of queries)
  tableBytes.push((await table.embed(q.query)).bytes)

/** The static encoder's table for the guides, and a query's vector with the gzip bytes of the table files it fetched (core included). */
async function staticTable() {
  const F = await loadFusionModules()
  const vocabulary = F.loadModelVocabulary(modelsDir, K.DEFAULT_MODEL.id, K.DEFAULT_MODEL.revision)
  const embedder = await K.createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype: 'q8', maxTokens: K.DEFAULT_MODEL.maxTokens })
  try {
    const distilled = await F.distilQueryTable(embedder, F.queryTableCorpus(int8, embedder, chunk), { vocabulary, cacheDir: join(modelsDir, 'query-table') })
    const files = F.encodeQueryTable(distilled)
    const gzCore = gzipSync(files.core).length
    const gz = files.shards.map(s => gzipSync(s).length)
    return {
      async embed(query) {
        let fetched = gzCore
        const embed = F.staticQueryEmbedder({ core: async () => files.core, shard: async i => (fetched += gz[i], files.shards[i]), model: embedder.fingerprint })
        const vector = Array.from(await embed(query))
        return { vector, bytes: fetched }
      },
    }
  }
  finally {
    await embedder.dispose()
  }
}

const p90 = values => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(0.9 * values.length))]
const waves = requests => Math.ceil(requests / CONNECTIONS)
const kib = b => (b / 1024).toFixed(0)

console.log(`${documents.length} guides, ${chunkCount} chunks, ${queries.length} labelled queries (${Object.keys(sets).join(', ')}); exact top-1 ${(100 * top1(q => exact.get(q.query))).toFixed(1)} %, snapshot gzip ${kib(gzipSync(bytes).length)} KiB; query table ${kib(median(tableBytes))} KiB gzip a query (median, core included)`)
const results = []
const grid = CELLS.flatMap(cells => PROBES.flatMap(probe => BITS.flatMap(codeBits => RESCORES.flatMap(rescore => VECTOR_BYTES.flatMap(vectorBytes => ROW_GROUPS.map(rowGroups => ({ cells, probe, codeBits, rescore, vectorBytes, rowGroups })))))))
const configs = [...process.argv.includes('--exact') ? [{ cells: 0 }] : [], ...grid]
for (const options of configs) {
  const files = S.encodeShardedSnapshot(bytes, options)
  const gz = files.shards.map(s => gzipSync(s).length)
  const coreGz = gzipSync(files.core).length
  const opened = S.openShardedSnapshot(files.core, documents, { load: async i => files.shards[i], name: String })
  await opened.loadVectorRows() // with cells, the centroid shard lists the shards after it
  const kinds = opened.shards.map(shard => KINDS[shard.kind])
  const byKind = Object.fromEntries(['core', ...KINDS].map(kind => [kind, 0]))
  /** An `auto` search of a fresh knowledge base: its top ids, gzip bytes and vector shards fetched. */
  const measure = async (query, topK) => {
    const fetched = []
    const kb = S.createKnowledgeBase({ name: 'guides', documents, bodies: [], embedQuery, loadSnapshot: async () => (fetched.push('core'), files.core), shards: { load: async i => (fetched.push(i), files.shards[i]), name: String } })
    const ids = (await kb.search(query, topK ? { topK } : {})).map(r => r.id)
    const size = i => i === 'core' ? coreGz : gz[i]
    return { ids, fetched, bytes: fetched.reduce((sum, i) => sum + size(i), 0), rows: fetched.filter(i => i !== 'core' && kinds[i] === 'vectors').length, bits: fetched.filter(i => i !== 'core' && kinds[i] === 'refinement').length }
  }
  const got = new Map()
  const fetchedBytes = []
  const knowledgeBytes = []
  const rowRequests = []
  const bitRequests = []
  for (const [at, q] of queries.entries()) {
    const m = await measure(q.query)
    got.set(q.query, m.ids)
    fetchedBytes.push(m.bytes)
    knowledgeBytes.push(m.bytes + tableBytes[at])
    rowRequests.push(m.rows)
    bitRequests.push(m.bits)
    for (const i of m.fetched)
      byKind[i === 'core' ? 'core' : kinds[i]] += (i === 'core' ? coreGz : gz[i]) / queries.length
  }
  const pg = await measure(PLAYGROUND.query, PLAYGROUND.topK)
  const pgTable = (await table.embed(PLAYGROUND.query)).bytes
  const agrees = q => JSON.stringify(got.get(q.query)) === JSON.stringify(exact.get(q.query))
  const same = queries.filter(agrees).length / queries.length
  const bySet = Object.fromEntries(Object.keys(sets).map(set => [set, queries.filter(q => q.set === set && agrees(q)).length / queries.filter(q => q.set === set).length]))
  const row = {
    ...options,
    files: files.shards.length + 1,
    sameTop5: same,
    bySet,
    top1: top1(q => got.get(q.query)),
    gzipMedian: median(fetchedBytes),
    knowledgeMedian: median(knowledgeBytes),
    knowledgeP90: p90(knowledgeBytes),
    rowRequestsMedian: median(rowRequests),
    rowRequestsP90: p90(rowRequests),
    wavesMedian: waves(median(rowRequests)),
    wavesP90: waves(p90(rowRequests)),
    refinedShare: bitRequests.filter(n => n > 0).length / queries.length,
    bitRequestsP90: p90(bitRequests),
    playground: { rowRequests: pg.rows, bitRequests: pg.bits, waves: waves(pg.rows), knowledgeBytes: pg.bytes + pgTable, sameTop10: JSON.stringify(pg.ids) === JSON.stringify(exactPlayground) },
    byKind,
  }
  results.push(row)
  const name = options.cells === 0 ? 'exact' : `${options.cells} cells, probe ${options.probe}, ${options.codeBits}-bit, rescore ${options.rescore}, ${options.vectorBytes / 1024} KiB ${options.rowGroups}`
  console.log(`  ${name.padEnd(58)}: row requests ${row.rowRequestsMedian} / ${row.rowRequestsP90} (median / p90; waves ${row.wavesMedian} / ${row.wavesP90}); a refinement round trip for ${(100 * row.refinedShare).toFixed(1)} % of queries (requests p90 ${row.bitRequestsP90}); knowledge ${kib(row.knowledgeMedian)} / ${kib(row.knowledgeP90)} KiB gzip (snapshot alone ${kib(row.gzipMedian)}); same top 5 ${(100 * same).toFixed(1)} % (${Object.entries(bySet).map(([s, v]) => `${s} ${(100 * v).toFixed(1)}`).join(', ')}); top-1 ${(100 * row.top1).toFixed(1)} %; ${row.files} files`)
  console.log(`    playground query: row requests ${pg.rows} (waves ${row.playground.waves}), refinement requests ${pg.bits}, knowledge ${kib(row.playground.knowledgeBytes)} KiB, same top 10 ${row.playground.sameTop10}; mean KiB: ${Object.entries(byKind).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}`).join(', ')}`)
}
emitResult({ name: 'cells', chunks: chunkCount, queries: queries.length, results })
