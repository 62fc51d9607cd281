// Vector cells (approximate vector search of sharded snapshots) on real
// embeddings: the Modern Web Guidance guides of bench/retrieval.bench.mjs
// (all-MiniLM-L6-v2, q8), every labelled query of its sets, embedded by the
// model. For each query, an `auto` search of the sharded knowledge base
// (fresh, nothing cached) against the whole snapshot's exact search: the
// share of queries with the same top 5 (documents, in order), top-1 of both
// against the labels, and gzip bytes fetched before the first result (the
// mean per kind of file too: core, lexical shards, centroids, cells of
// first-pass codes, vector rows, refinement bits).
//
//   node bench/cells.bench.mjs [--cells 8,16,32] [--probe 4] [--bits 2] [--rescore 4] [--json]
//
// Each of --cells, --probe, --bits (bits of the cells' first-pass codes) and
// --rescore (documents per result scored exactly) takes a list: every
// combination is measured, against the same exact search.
//
// The guides make about 1,000–2,000 chunks, under or near where the default
// switches to cells, so the cell counts are given explicitly.

import { gzipSync } from 'node:zlib'
import { bundleSource } from './knowledge.mjs'
import { loadEvaluation } from './retrieval.bench.mjs'
import { arg, emitResult, median, numberArg } from './util.mjs'

const list = (name, fallback) => arg(name, fallback).split(',').map(Number)
const CELLS = list('cells', '8,16,32')
const PROBES = list('probe', '4')
const BITS = list('bits', '2')
const RESCORES = list('rescore', '4')
const KINDS = ['lexical', 'vectors', 'refinement', 'cells', 'centroids']

const S = await bundleSource('cells-bench', [
  `export { encodeShardedSnapshot } from './src/knowledge/snapshot-shards'`,
  `export { createKnowledgeBase, decodeSnapshot } from './src/runtime/knowledge/index'`,
  `export { openShardedSnapshot } from './src/runtime/knowledge/format/snapshot-shards'`,
  '',
].join('\n'))

const { int8, sets } = await loadEvaluation({ log: () => {}, name: 'cells-bench' })
const bytes = int8.snapshot
const documents = S.decodeSnapshot(bytes).documents
const chunkCount = S.decodeSnapshot(bytes).chunkCount
const queries = Object.entries(sets).flatMap(([set, list]) => list.map(q => ({ ...q, set })))
const vectors = new Map(queries.map(q => [q.query, q.vector]))
const embedQuery = async query => vectors.get(query)
const whole = S.createKnowledgeBase({ name: 'guides', documents, bodies: [], embedQuery, loadSnapshot: async () => bytes })
const exact = new Map()
for (const q of queries)
  exact.set(q.query, (await whole.search(q.query)).map(r => r.id))
const top1 = ids => queries.filter(q => q.relevant.includes(ids(q)[0])).length / queries.length

console.log(`${documents.length} guides, ${chunkCount} chunks, ${queries.length} labelled queries (${Object.keys(sets).join(', ')}); exact top-1 ${(100 * top1(q => exact.get(q.query))).toFixed(1)} %, snapshot gzip ${(gzipSync(bytes).length / 1024).toFixed(0)} KiB`)
const results = []
const configs = [{ cells: 0, probe: 1, codeBits: 2, rescore: 4 }, ...CELLS.flatMap(cells => PROBES.flatMap(probe => BITS.flatMap(codeBits => RESCORES.map(rescore => ({ cells, probe, codeBits, rescore })))))]
for (const options of configs) {
  const { cells } = options
  const files = S.encodeShardedSnapshot(bytes, options)
  const gz = files.shards.map(s => gzipSync(s).length)
  const coreGz = gzipSync(files.core).length
  const opened = S.openShardedSnapshot(files.core, documents, { load: async i => files.shards[i], name: String })
  await opened.loadVectorRows() // with cells, the centroid shard lists the shards after it
  const kinds = opened.shards.map(shard => KINDS[shard.kind])
  const byKind = Object.fromEntries(['core', ...KINDS].map(kind => [kind, 0]))
  const got = new Map()
  const fetchedBytes = []
  for (const q of queries) {
    const fetched = []
    const kb = S.createKnowledgeBase({ name: 'guides', documents, bodies: [], embedQuery, loadSnapshot: async () => (fetched.push('core'), files.core), shards: { load: async i => (fetched.push(i), files.shards[i]), name: String } })
    got.set(q.query, (await kb.search(q.query)).map(r => r.id))
    fetchedBytes.push(fetched.reduce((sum, i) => sum + (i === 'core' ? coreGz : gz[i]), 0))
    for (const i of fetched)
      byKind[i === 'core' ? 'core' : kinds[i]] += (i === 'core' ? coreGz : gz[i]) / queries.length
  }
  const same = queries.filter(q => JSON.stringify(got.get(q.query)) === JSON.stringify(exact.get(q.query))).length / queries.length
  const bySet = Object.fromEntries(Object.keys(sets).map(set => [set, queries.filter(q => q.set === set && JSON.stringify(got.get(q.query)) === JSON.stringify(exact.get(q.query))).length / queries.filter(q => q.set === set).length]))
  const row = { ...options, files: files.shards.length + 1, sameTop5: same, bySet, top1: top1(q => got.get(q.query)), gzipMedian: median(fetchedBytes), byKind }
  results.push(row)
  console.log(`  ${cells === 0 ? 'exact'.padEnd(38) : `${String(cells).padStart(3)} cells, probe ${options.probe}, ${options.codeBits}-bit, rescore ${options.rescore}`.padEnd(38)}: first auto result ${(row.gzipMedian / 1024).toFixed(0)} KiB gzip (median); same top 5 ${(100 * same).toFixed(1)} % (${Object.entries(bySet).map(([s, v]) => `${s} ${(100 * v).toFixed(1)}`).join(', ')}); top-1 ${(100 * row.top1).toFixed(1)} %; ${row.files} files`)
  console.log(`    mean KiB: ${Object.entries(byKind).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}`).join(', ')}`)
}
emitResult({ name: 'cells', chunks: chunkCount, queries: queries.length, results })
