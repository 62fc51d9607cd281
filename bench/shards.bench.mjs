// Sharded knowledge snapshots (the plugin's `shards` option) against one
// snapshot: bytes a browser fetches before its first lexical and its first
// vector result, and search latency, at 1k and 100k chunks.
//
//   node bench/shards.bench.mjs [--queries 101] [--counts 1000,100000] [--lexical-bytes 16384] [--vector-bytes 1048576] [--refinement-bytes 65536] [--json]
//
// Corpus: search.bench.mjs's synthetic chunks (40 Zipf-distributed words of a
// 30,000-word vocabulary, a heading, 10 chunks a document, seeded random unit
// vectors of 384 dimensions), int8 with refinement and the lexical index, as
// the plugin builds them. Queries: short (3 words of a chunk), the same with a
// typo (letters 2 and 3 of the second word swapped) and prompts (10 words of a
// chunk and 30 drawn from the vocabulary), the query vector near that chunk's.
//
// Bytes: what `createKnowledgeBase` asks its loaders for, counted on a fresh
// knowledge base per query (nothing cached), raw and gzip (node:zlib, level 6,
// file by file, as a server compresses them); the model and the page's
// JavaScript are not counted (the model is the same either way). First
// lexical result: a `lexical` search (what `auto` answers before the model is
// ready); first vector result: an `auto` search with the query vector
// (fused: all vector shards and the query's lexical shards).
//
// Latency: searches of the same knowledge bases once loaded (`auto` and
// `lexical`, the same queries), sharded vs one snapshot, in the same run; and
// the cold lexical search (loaders answering from memory: decode and search,
// no network) of each.

import { gzipSync } from 'node:zlib'
import { createRng, zipfWords } from './corpus.mjs'
import { bundleSource } from './knowledge.mjs'
import { arg, emitResult, median, numberArg } from './util.mjs'

const QUERIES = numberArg('queries', 101)
const COUNTS = arg('counts', '1000,100000').split(',').map(Number)
const SIZES = { lexicalBytes: numberArg('lexical-bytes', 16_384), vectorBytes: numberArg('vector-bytes', 1_048_576), refinementBytes: numberArg('refinement-bytes', 65_536) }
const DIMS = 384

const S = await bundleSource('shards-bench', [
  `export { encodeSnapshot } from './src/knowledge/snapshot'`,
  `export { encodeShardedSnapshot } from './src/knowledge/snapshot-shards'`,
  `export { createKnowledgeBase, decodeSnapshot } from './src/runtime/knowledge/index'`,
  `export { openShardedSnapshot } from './src/runtime/knowledge/snapshot-shards'`,
  `export { readContainer } from './src/runtime/knowledge/snapshot-reader'`,
  '',
].join('\n'))

const rng = createRng(DIMS * 7)
const gaussian = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next())
const unit = (v) => {
  const norm = Math.hypot(...v)
  return v.map(x => x / norm)
}
const near = vector => unit(vector.map(x => x + gaussian() / Math.sqrt(DIMS)))
const zipf = zipfWords(rng)

const gzipped = bytes => gzipSync(bytes, { level: 6 }).length
const kib = n => `${(n / 1024).toFixed(n < 10_240 ? 1 : 0)} KiB`
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]

/** A knowledge base of one snapshot, or of a core and shards, whose loaders add what they hand out to `fetched`. */
function knowledgeBase(documents, files, fetched = []) {
  const common = { name: 'bench', documents, bodies: [], embedQuery: async query => queryVectors.get(query) }
  if (files.whole) {
    return S.createKnowledgeBase({ ...common, loadSnapshot: async () => (fetched.push('whole'), files.whole) })
  }
  return S.createKnowledgeBase({
    ...common,
    loadSnapshot: async () => (fetched.push('core'), files.core),
    shards: { load: async index => (fetched.push(index), files.shards[index]), name: String, count: files.shards.length },
  })
}

/** Each query's embedding, looked up by its text. */
let queryVectors = new Map()

const results = []
for (const count of COUNTS) {
  const documents = Array.from({ length: Math.ceil(count / 10) }, (_, d) => ({ id: `doc-${String(d).padStart(6, '0')}` }))
  const texts = Array.from({ length: count }, () => Array.from({ length: 40 }, zipf).join(' '))
  const vectors = Array.from({ length: count }, () => unit(Array.from({ length: DIMS }, gaussian)))
  const whole = S.encodeSnapshot({ model: 'bench', encoding: 'int8', lexical: true, documents, chunks: vectors.map((vector, c) => ({ documentIndex: Math.floor(c / 10), vector, text: texts[c], heading: [`Section ${c % 10}`] })) })
  let t = performance.now()
  const files = S.encodeShardedSnapshot(whole, SIZES)
  const splitMs = performance.now() - t
  const decoded = S.decodeSnapshot(whole).documents

  const picks = Array.from({ length: QUERIES }, () => rng.int(0, count - 1))
  const short = picks.map(c => texts[c].split(' ').slice(0, 3).join(' '))
  const typo = short.map(q => q.split(' ').map((w, i) => i === 1 ? w[0] + w[2] + w[1] + w.slice(3) : w).join(' '))
  const prompts = picks.map(c => [...texts[c].split(' ').slice(0, 10), ...Array.from({ length: 30 }, zipf)].join(' '))
  queryVectors = new Map()
  for (const [q, c] of picks.entries()) {
    for (const query of [short[q], typo[q], prompts[q]])
      queryVectors.set(query, near(vectors[c]))
  }

  const size = { whole: whole.length, wholeGzip: gzipped(whole), core: files.core.length, coreGzip: gzipped(files.core) }
  const shardGzip = files.shards.map(gzipped)
  const bytesOf = fetched => fetched.reduce((sum, f) => sum + (f === 'core' ? size.core : files.shards[f].length), 0)
  const gzipOf = fetched => fetched.reduce((sum, f) => sum + (f === 'core' ? size.coreGzip : shardGzip[f]), 0)

  /** Bytes fetched before the first result of `mode` for each query, on a fresh knowledge base. */
  const firstResult = async (queries, mode) => {
    const raw = []
    const gz = []
    const counts = []
    for (const query of queries) {
      const fetched = []
      await knowledgeBase(decoded, files, fetched).search(query, { mode })
      raw.push(bytesOf(fetched))
      gz.push(gzipOf(fetched))
      counts.push(fetched.length)
    }
    return { median: median(raw), p90: percentile(raw, 0.9), max: Math.max(...raw), gzipMedian: median(gz), gzipP90: percentile(gz, 0.9), files: median(counts) }
  }
  const lexical = {
    short: await firstResult(short, 'lexical'),
    typo: await firstResult(typo, 'lexical'),
    prompt: await firstResult(prompts, 'lexical'),
  }
  const vector = { short: await firstResult(short, 'auto'), prompt: await firstResult(prompts, 'auto') }
  const lexicalShards = S.openShardedSnapshot(files.core, decoded, { load: async () => new Uint8Array(0), name: String }).shards.filter(shard => shard.kind === 0).length

  // Latency once loaded: the same searches of both knowledge bases, interleaved.
  const one = knowledgeBase(decoded, { whole })
  const split = knowledgeBase(decoded, files)
  await one.snapshot()
  await split.snapshot()
  const timed = async (kb, queries, mode) => {
    const times = []
    for (const query of queries) {
      const start = performance.now()
      await kb.search(query, { mode })
      times.push(performance.now() - start)
    }
    return median(times)
  }
  for (const q of short.slice(0, 3)) {
    await one.search(q)
    await split.search(q)
  }
  const latency = {}
  for (const [name, queries, mode] of [['auto short', short, 'auto'], ['auto prompt', prompts, 'auto'], ['lexical short', short, 'lexical'], ['lexical prompt', prompts, 'lexical']]) {
    const a = await timed(one, queries, mode)
    const b = await timed(split, queries, mode)
    latency[name] = { one: a, sharded: b, ratio: b / a }
  }
  // Cold: a fresh knowledge base per query, its loaders answering from memory.
  const coldTimes = async (make, queries) => {
    const times = []
    for (const query of queries.slice(0, 21)) {
      const kb = make()
      const start = performance.now()
      await kb.search(query, { mode: 'lexical' })
      times.push(performance.now() - start)
    }
    return median(times)
  }
  const cold = { one: await coldTimes(() => knowledgeBase(decoded, { whole }), short), sharded: await coldTimes(() => knowledgeBase(decoded, files), short) }

  const coreSections = Object.fromEntries([...S.readContainer(files.core, false, 3).sections].map(([tag, section]) => [tag, section.length]))
  const row = { chunks: count, splitMs, size, coreSections, shards: files.shards.length, lexicalShards, lexical, vector, latency, cold }
  results.push(row)

  console.log(`\n${count.toLocaleString('en')} chunks × ${DIMS} (int8 + lexical), ${QUERIES} queries; shards of ${kib(SIZES.lexicalBytes)} postings / ${kib(SIZES.vectorBytes)} vectors / ${kib(SIZES.refinementBytes)} refinement bits (split in ${splitMs.toFixed(0)} ms)`)
  console.log(`  one snapshot ${kib(size.whole)} (gzip ${kib(size.wholeGzip)}); core ${kib(size.core)} (gzip ${kib(size.coreGzip)}) + ${files.shards.length} shards (${lexicalShards} lexical)`)
  console.log(`  core sections: ${Object.entries(coreSections).map(([tag, length]) => `${tag} ${kib(length)}`).join(', ')}`)
  const line = (name, r) => console.log(`  ${name.padEnd(34)} median ${kib(r.median).padStart(10)} (gzip ${kib(r.gzipMedian).padStart(10)}), p90 ${kib(r.p90).padStart(10)} (gzip ${kib(r.gzipP90).padStart(10)}), ${r.files} files; ${(100 * r.median / size.whole).toFixed(1)} % of one snapshot`)
  line('first lexical result, short', lexical.short)
  line('first lexical result, short + typo', lexical.typo)
  line('first lexical result, prompt', lexical.prompt)
  line('first vector (auto) result, short', vector.short)
  line('first vector (auto) result, prompt', vector.prompt)
  for (const [name, l] of Object.entries(latency))
    console.log(`  search once loaded, ${name.padEnd(15)} one ${l.one.toFixed(2)} ms, sharded ${l.sharded.toFixed(2)} ms, ratio ${l.ratio.toFixed(2)}×`)
  console.log(`  cold lexical search from memory (decode + search): one ${cold.one.toFixed(1)} ms, sharded ${cold.sharded.toFixed(1)} ms`)
}

emitResult({ name: 'shards', queries: QUERIES, sizes: SIZES, results })
