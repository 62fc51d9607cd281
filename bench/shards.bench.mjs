// Sharded knowledge snapshots (the plugin's `shards` option) against one
// snapshot: bytes a browser fetches before its first lexical and its first
// vector result, approximate vector search (vector cells) against exact, and
// search latency, at 1k and 100k chunks.
//
//   node bench/shards.bench.mjs [--queries 101] [--counts 1000,100000] [--vectors clustered|random]
//     [--lexical-bytes N] [--vector-bytes N] [--refinement-bytes N] [--cells auto|N] [--probe 8]
//     [--code-bits 1|2|4] [--rescore N] [--row-groups adjacent|similar] [--json]
//
// Corpus: 40 words a chunk, a heading, 10 chunks a document, 384 dimensions,
// int8 with refinement and the lexical index, as the plugin builds them.
// `clustered` (the default since issue 27): embeddings cluster by topic, and
// so do these: a topic per 20 documents, each document near its topic, each
// chunk near its document, all sharing a common direction, so that cosines
// are about 0.7 within a document, 0.45 within a topic and 0.1 across topics
// (MiniLM's are of that order); a chunk's words are a third its topic's own
// (40 a topic), the rest Zipf-distributed over a 30,000-word vocabulary.
// `random`: the corpus of the figures before issue 27 (search.bench.mjs's
// chunks: seeded random unit vectors, no topics), which no partition can
// search: every cell is as near a query as any other.
// Queries: short (3 words of a chunk), the same with a typo (letters 2 and 3
// of the second word swapped) and prompts (10 words of a chunk and 30 drawn
// from the vocabulary), the query vector near that chunk's (cosine about 0.8).
//
// Bytes: what `createKnowledgeBase` asks its loaders for, counted on a fresh
// knowledge base per query (nothing cached), raw and gzip (node:zlib, level 6,
// file by file, as a server compresses them); the model, the query table and
// the page's JavaScript are not counted. First lexical result: a `lexical`
// search (what `auto` answers before the model is ready); first vector
// result: an `auto` search with the query vector (fused: the vector shards or
// cells it reads and the query's lexical shards). Each knowledge base is
// split twice: exact (`cells: 0`, every vector shard) and with vector cells
// (`--cells`, default `auto`); agreement is the share of queries whose `auto`
// top 5 is the exact search's (same documents in the same order), and the
// share of exact top-5 documents found.
//
// Latency: searches of the same knowledge bases once loaded (`auto` and
// `lexical`, the same queries), sharded vs one snapshot, in the same run; and
// the cold lexical search (loaders answering from memory: decode and search,
// no network) of each.
//
// Row requests: the vector shards (rows of the documents rescored) a first
// result fetched, median and p90, and their waves over HTTP/1.1's six
// connections, ceil(requests / 6): each wave costs a round trip.

import { gzipSync } from 'node:zlib'
import { createRng, zipfWords } from './corpus.mjs'
import { bundleSource } from './knowledge.mjs'
import { arg, emitResult, median, numberArg } from './util.mjs'

const QUERIES = numberArg('queries', 101)
const COUNTS = arg('counts', '1000,100000').split(',').map(Number)
const VECTORS = arg('vectors', 'clustered')
const cellsArg = arg('cells', 'auto')
const optional = name => arg(name, '') === '' ? {} : { [name.replace(/-(\w)/g, (_, c) => c.toUpperCase())]: numberArg(name, 0) }
const SIZES = { ...optional('lexical-bytes'), ...optional('vector-bytes'), ...optional('refinement-bytes'), ...optional('probe'), ...optional('code-bits'), ...optional('rescore'), ...arg('row-groups', '') === '' ? {} : { rowGroups: arg('row-groups', '') } }
const CELLS = cellsArg === 'auto' ? 'auto' : Number(cellsArg)
const DIMS = 384
/** Documents a topic (clustered corpus). */
const TOPIC_DOCUMENTS = 20

const S = await bundleSource('shards-bench', [
  `export { encodeSnapshot } from './src/knowledge/snapshot'`,
  `export { encodeShardedSnapshot } from './src/knowledge/snapshot-shards'`,
  `export { createKnowledgeBase, decodeSnapshot } from './src/runtime/knowledge/index'`,
  `export { openShardedSnapshot } from './src/runtime/knowledge/format/snapshot-shards'`,
  `export { readContainer } from './src/runtime/knowledge/format/snapshot-container'`,
  '',
].join('\n'))

const rng = createRng(DIMS * 7)
const gaussian = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next())
const unit = (v) => {
  const norm = Math.hypot(...v)
  return v.map(x => x / norm)
}
const randomUnit = () => unit(Array.from({ length: DIMS }, gaussian))
/** Σ weight · vector over unit vectors of independent directions: cosines between two such sums are their shared parts' squared weights. */
const mix = parts => unit(parts.reduce((sum, [w, v]) => sum.map((x, i) => x + w * v[i]), new Array(DIMS).fill(0)))
// Squared weights: common direction 0.1, topic 0.35, document 0.25, chunk 0.3 (see the header).
const COMMON = randomUnit()
const near = vector => mix([[0.8, vector], [0.6, randomUnit()]]) // cosine 0.8
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

/** Chunk texts and vectors: clustered by topic, or the old random ones. */
function corpus(count) {
  if (VECTORS === 'random') {
    const texts = Array.from({ length: count }, () => Array.from({ length: 40 }, zipf).join(' '))
    return { texts, vectors: Array.from({ length: count }, randomUnit) }
  }
  const texts = []
  const vectors = []
  let topic
  let topicWords
  let doc
  for (let c = 0; c < count; c++) {
    if (c % (10 * TOPIC_DOCUMENTS) === 0) {
      topic = randomUnit()
      topicWords = Array.from({ length: 40 }, zipf)
    }
    if (c % 10 === 0)
      doc = randomUnit()
    vectors.push(mix([[Math.sqrt(0.1), COMMON], [Math.sqrt(0.35), topic], [Math.sqrt(0.25), doc], [Math.sqrt(0.3), randomUnit()]]))
    texts.push(Array.from({ length: 40 }, () => rng.chance(1 / 3) ? rng.pick(topicWords) : zipf()).join(' '))
  }
  return { texts, vectors }
}

const results = []
for (const count of COUNTS) {
  const documents = Array.from({ length: Math.ceil(count / 10) }, (_, d) => ({ id: `doc-${String(d).padStart(6, '0')}` }))
  const { texts, vectors } = corpus(count)
  const whole = S.encodeSnapshot({ model: 'bench', encoding: 'int8', lexical: true, documents, chunks: vectors.map((vector, c) => ({ documentIndex: Math.floor(c / 10), vector, text: texts[c], heading: [`Section ${c % 10}`] })) })
  let t = performance.now()
  const exactFiles = S.encodeShardedSnapshot(whole, { ...SIZES, cells: 0 })
  const splitMs = performance.now() - t
  t = performance.now()
  const files = S.encodeShardedSnapshot(whole, { ...SIZES, cells: CELLS })
  const cellsMs = performance.now() - t
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

  const size = { whole: whole.length, wholeGzip: gzipped(whole) }
  const measure = (f) => {
    const core = f.core.length
    const coreGzip = gzipped(f.core)
    const shardGzip = f.shards.map(gzipped)
    return {
      core,
      coreGzip,
      bytesOf: fetched => fetched.reduce((sum, i) => sum + (i === 'core' ? core : f.shards[i].length), 0),
      gzipOf: fetched => fetched.reduce((sum, i) => sum + (i === 'core' ? coreGzip : shardGzip[i]), 0),
    }
  }
  const exactSize = measure(exactFiles)
  const annSize = measure(files)
  const one = knowledgeBase(decoded, { whole })
  const opened = S.openShardedSnapshot(files.core, decoded, { load: async i => files.shards[i], name: String })
  await opened.loadVectorRows() // with cells, the centroid shard lists the shards after it
  const shardEntries = opened.shards
  const KINDS = ['lexical', 'vectors', 'refinement', 'cells', 'centroids']

  /** Bytes fetched before the first result of `mode` for each query, on a fresh knowledge base; with `agreement`, the `auto` top 5 against exact search's. */
  const firstResult = async (f, sizes, queries, mode, agreement = false) => {
    const raw = []
    const gz = []
    const counts = []
    const rowRequests = []
    let same = 0
    let found = 0
    let expectedCount = 0
    const byKind = {}
    for (const query of queries) {
      const fetched = []
      const got = await knowledgeBase(decoded, f, fetched).search(query, { mode })
      raw.push(sizes.bytesOf(fetched))
      gz.push(sizes.gzipOf(fetched))
      counts.push(fetched.length)
      if (f === files) {
        rowRequests.push(fetched.filter(i => i !== 'core' && shardEntries[i].kind === 1).length)
        for (const i of fetched) {
          const kind = i === 'core' ? 'core' : KINDS[shardEntries[i].kind]
          byKind[kind] = (byKind[kind] ?? 0) + sizes.gzipOf([i]) / queries.length
        }
      }
      if (agreement) {
        const expected = (await one.search(query, { mode })).map(r => r.id)
        same += Number(JSON.stringify(got.map(r => r.id)) === JSON.stringify(expected))
        found += got.filter(r => expected.includes(r.id)).length
        expectedCount += expected.length
      }
    }
    return { median: median(raw), p90: percentile(raw, 0.9), max: Math.max(...raw), gzipMedian: median(gz), gzipP90: percentile(gz, 0.9), files: median(counts), byKind, ...(f === files ? { rowRequests: median(rowRequests), rowRequestsP90: percentile(rowRequests, 0.9) } : {}), ...(agreement ? { sameTop5: same / queries.length, recall: found / expectedCount } : {}) }
  }
  const lexical = {
    short: await firstResult(files, annSize, short, 'lexical'),
    typo: await firstResult(files, annSize, typo, 'lexical'),
    prompt: await firstResult(files, annSize, prompts, 'lexical'),
  }
  // Exact search fetches every vector shard whatever the query: a few queries say how much.
  const exact = { short: await firstResult(exactFiles, exactSize, short.slice(0, 11), 'auto'), prompt: await firstResult(exactFiles, exactSize, prompts.slice(0, 11), 'auto') }
  const vector = { short: await firstResult(files, annSize, short, 'auto', true), prompt: await firstResult(files, annSize, prompts, 'auto', true), vectorOnly: await firstResult(files, annSize, short, 'vector', true) }
  const lexicalShards = shardEntries.filter(shard => shard.kind === 0).length
  const cellCount = shardEntries.filter(shard => shard.kind === 3).length

  // Latency once loaded: the same searches of both knowledge bases, interleaved (the sharded one, once loaded, is exact).
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
  // Approximate search once its shards are in: a knowledge base per query, loaded first, then timed.
  const approximateTimes = []
  for (const query of short.slice(0, 21)) {
    const kb = knowledgeBase(decoded, files)
    await kb.search(query)
    const start = performance.now()
    await kb.search(query)
    approximateTimes.push(performance.now() - start)
  }
  latency['auto short, cells'] = { one: latency['auto short'].one, sharded: median(approximateTimes), ratio: median(approximateTimes) / latency['auto short'].one }
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
  const row = { chunks: count, vectors: VECTORS, splitMs, cellsMs, size: { ...size, core: annSize.core, coreGzip: annSize.coreGzip, exactCore: exactSize.core, exactCoreGzip: exactSize.coreGzip }, coreSections, shards: files.shards.length, exactShards: exactFiles.shards.length, lexicalShards, cells: cellCount, lexical, exact, vector, latency, cold }
  results.push(row)

  console.log(`\n${count.toLocaleString('en')} chunks × ${DIMS} (int8 + lexical, ${VECTORS} vectors), ${QUERIES} queries; options ${JSON.stringify({ ...SIZES, cells: CELLS })} (exact split in ${splitMs.toFixed(0)} ms, with ${cellCount} cells in ${cellsMs.toFixed(0)} ms)`)
  console.log(`  one snapshot ${kib(size.whole)} (gzip ${kib(size.wholeGzip)}); core ${kib(annSize.core)} (gzip ${kib(annSize.coreGzip)}; exact ${kib(exactSize.coreGzip)}) + ${files.shards.length} shards (${lexicalShards} lexical, ${cellCount} cells; exact: ${exactFiles.shards.length} shards)`)
  console.log(`  core sections: ${Object.entries(coreSections).map(([tag, length]) => `${tag} ${kib(length)}`).join(', ')}`)
  const line = (name, r) => console.log(`  ${name.padEnd(38)} median ${kib(r.median).padStart(10)} (gzip ${kib(r.gzipMedian).padStart(10)}), p90 ${kib(r.p90).padStart(10)} (gzip ${kib(r.gzipP90).padStart(10)}), ${r.files} files${r.rowRequests === undefined ? '' : `, row requests ${r.rowRequests} / ${r.rowRequestsP90} (waves ${Math.ceil(r.rowRequests / 6)} / ${Math.ceil(r.rowRequestsP90 / 6)})`}${r.sameTop5 === undefined ? '' : `; same top 5 ${(100 * r.sameTop5).toFixed(1)} %, top-5 recall ${(100 * r.recall).toFixed(1)} %`}`)
  line('first lexical result, short', lexical.short)
  line('first lexical result, short + typo', lexical.typo)
  line('first lexical result, prompt', lexical.prompt)
  line('first auto result, short, exact', exact.short)
  line('first auto result, prompt, exact', exact.prompt)
  line('first auto result, short, cells', vector.short)
  line('first auto result, prompt, cells', vector.prompt)
  line('first vector result, short, cells', vector.vectorOnly)
  console.log(`  first auto result, short, cells, mean gzip by kind: ${Object.entries(vector.short.byKind).map(([kind, bytes]) => `${kind} ${kib(bytes)}`).join(', ')}`)
  for (const [name, l] of Object.entries(latency))
    console.log(`  search once loaded, ${name.padEnd(18)} one ${l.one.toFixed(2)} ms, sharded ${l.sharded.toFixed(2)} ms, ratio ${l.ratio.toFixed(2)}×`)
  console.log(`  cold lexical search from memory (decode + search): one ${cold.one.toFixed(1)} ms, sharded ${cold.sharded.toFixed(1)} ms`)
}

emitResult({ name: 'shards', queries: QUERIES, sizes: SIZES, cells: CELLS, vectors: VECTORS, results })
