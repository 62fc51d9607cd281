// What `auto` (searchFused) costs a query, this tree's against another commit's, in one run:
// the two versions of src/ bundled side by side and timed query by query in turn (before,
// after, after, before, ...), so both see the same machine state. Also whether they rank
// alike (the same top 10, in order, on every query).
//
// 1. The guides (147, int8 as bench/retrieval.bench.mjs builds them) and every query of its
//    five labelled sets (1,181), with the model's query vectors.
// 2. 100,000 chunks of an int8 snapshot with a lexical index, as bench/search.bench.mjs's part
//    4 makes them (40 words a chunk from a 30,000-word Zipf vocabulary, 10 chunks a document,
//    random unit vectors): short queries (3 words of a chunk) and prompts (10 words of a
//    chunk and 30 drawn), the query vector near that chunk's.
//
// Median per query, in µs, of each version (and of searchVectors, top 5, for scale).
//
//   node bench/fusion-cost.bench.mjs --before <commit> [--queries 101] [--rounds 3] [--json]

import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { createRng, zipfWords } from './corpus.mjs'
import { benchCache, bundleSource, root } from './knowledge.mjs'
import { loadEvaluation } from './retrieval.bench.mjs'
import { arg, emitResult, isMain, median, numberArg } from './util.mjs'

/** searchFused and what the synthetic corpus needs, from `tree` (a folder holding src/). */
function loadSearch(name, tree) {
  const at = file => JSON.stringify(join(tree, 'src', file))
  return bundleSource(name, [
    `export { searchFused } from ${at('runtime/knowledge/ranking/search-fused.ts')}`,
    `export { searchVectors } from ${at('runtime/knowledge/vector/search.ts')}`,
    `export { encodeSnapshot } from ${at('knowledge/snapshot.ts')}`,
    `export { decodeSnapshot } from ${at('runtime/knowledge/format/snapshot-reader.ts')}`,
    '',
  ].join('\n'))
}

/** `commit`'s src/ in a folder of its own. */
function checkout(commit) {
  const dir = join(benchCache, `fusion-cost-${commit}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const tar = execFileSync('git', ['-C', root, 'archive', '--format=tar', commit, 'src'], { maxBuffer: 1 << 28 })
  execFileSync('tar', ['-x', '-C', dir], { input: tar })
  return dir
}

/**
 * Times `before` and `after` (each a function of a query) on every query, `rounds` times, in
 * turn; the median per query of each, in µs, and on how many queries their top 10s differ.
 */
function compare(queries, before, after, vectorOnly, rounds) {
  const times = { before: [], after: [], vector: [] }
  let differing = 0
  const ids = results => results.map(r => r.documentIndex).join()
  for (const q of queries) {
    if (ids(before(q)) !== ids(after(q)))
      differing++
  }
  for (let r = 0; r < rounds; r++) {
    queries.forEach((q, i) => {
      const order = (i + r) % 2 ? [['after', after], ['before', before]] : [['before', before], ['after', after]]
      for (const [name, fn] of order) {
        const start = performance.now()
        fn(q)
        times[name].push(performance.now() - start)
      }
      const start = performance.now()
      vectorOnly(q)
      times.vector.push(performance.now() - start)
    })
  }
  const us = values => median(values) * 1000
  return { queries: queries.length, differing, beforeUs: us(times.before), afterUs: us(times.after), vectorUs: us(times.vector) }
}

/** The guides and their labelled queries, model vectors. */
async function guides(B, A, rounds, log) {
  const { snapshots, sets } = await loadEvaluation({ log, name: 'fusion-cost-knowledge' })
  const snapshot = snapshots.int8
  const queries = Object.values(sets).flat()
  const run = S => q => S.searchFused(snapshot, q.query, q.vector, { topK: 10 })
  // Warm both: the WebAssembly copy of the vectors, the lexical statistics.
  for (const q of queries.slice(0, 20)) {
    run(B)(q)
    run(A)(q)
  }
  return { chunks: snapshot.chunkCount, all: compare(queries, run(B), run(A), q => A.searchVectors(snapshot, q.vector), rounds) }
}

/** 100,000 synthetic chunks, short queries and prompts. */
function synthetic(B, A, count, queryCount, rounds, log) {
  const rng = createRng(384)
  const dims = 384
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next())
  const unit = (v) => {
    const norm = Math.hypot(...v)
    return v.map(x => x / norm)
  }
  const near = vector => unit(vector.map(x => x + gaussian() / Math.sqrt(dims)))
  const zipf = zipfWords(rng)
  const documents = Array.from({ length: count / 10 }, (_, d) => ({ id: `doc-${String(d).padStart(6, '0')}` }))
  const texts = Array.from({ length: count }, () => Array.from({ length: 40 }, zipf).join(' '))
  const vectors = Array.from({ length: count }, () => unit(Array.from({ length: dims }, gaussian)))
  const start = performance.now()
  const bytes = A.encodeSnapshot({ model: 'bench', encoding: 'int8', lexical: true, documents, chunks: vectors.map((vector, c) => ({ documentIndex: Math.floor(c / 10), vector, text: texts[c], heading: [`Section ${c % 10}`] })) })
  log(`${count} synthetic chunks encoded in ${((performance.now() - start) / 1000).toFixed(1)} s`)
  const snapshot = A.decodeSnapshot(bytes)
  const picks = Array.from({ length: queryCount }, () => rng.int(0, count - 1))
  const short = picks.map(c => ({ query: texts[c].split(' ').slice(0, 3).join(' '), vector: near(vectors[c]) }))
  const prompts = picks.map(c => ({ query: [...texts[c].split(' ').slice(0, 10), ...Array.from({ length: 30 }, zipf)].join(' '), vector: near(vectors[c]) }))
  const run = S => q => S.searchFused(snapshot, q.query, q.vector, { topK: 10 })
  for (const q of short.slice(0, 3)) {
    run(B)(q)
    run(A)(q)
  }
  const vectorOnly = q => A.searchVectors(snapshot, q.vector)
  return { chunks: count, short: compare(short, run(B), run(A), vectorOnly, rounds), prompts: compare(prompts, run(B), run(A), vectorOnly, rounds) }
}

export async function run({ before, queries = 101, rounds = 3, log = console.log }) {
  const B = await loadSearch('fusion-cost-before', checkout(before))
  const A = await loadSearch('fusion-cost-after', root)
  return { before, rounds, guides: await guides(B, A, rounds, log), synthetic: synthetic(B, A, 100_000, queries, rounds, log) }
}

if (isMain(import.meta)) {
  const before = arg('before', '')
  if (!before) {
    console.error('Usage: node bench/fusion-cost.bench.mjs --before <commit> [--queries 101] [--rounds 3] [--json]')
    process.exit(1)
  }
  const result = await run({ before, queries: numberArg('queries', 101), rounds: numberArg('rounds', 3) })
  const row = (label, r) => console.log(`${label.padEnd(28)} ${String(r.queries).padStart(5)} queries: auto ${r.beforeUs.toFixed(0).padStart(6)} → ${r.afterUs.toFixed(0).padStart(6)} µs (vector search alone ${r.vectorUs.toFixed(0)} µs); top 10 differ on ${r.differing}`)
  console.log(`\nauto, median µs a query, ${result.before} → this tree (${result.rounds} rounds, interleaved)`)
  row(`guides (${result.guides.chunks} chunks)`, result.guides.all)
  row(`${result.synthetic.chunks} chunks, short`, result.synthetic.short)
  row(`${result.synthetic.chunks} chunks, prompts`, result.synthetic.prompts)
  emitResult(result)
}
