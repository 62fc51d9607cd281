// Partitions a snapshot's chunk vectors into cells by k-means, at shard time,
// so that an approximate vector search fetches the few cells nearest its query
// (see src/runtime/knowledge/vector/ann/). Spherical k-means (cosine, unit
// centroids), seeded k-means++ on a sample, a fixed number of Lloyd
// iterations, then every document to the centroid nearest its chunks (the
// sum of their cosines), so that a cell holds whole documents: a search that
// reads a cell scores its documents as exact search does, with no chunk left
// in another cell. Deterministic: every
// dot product is an exact integer (the int8 rows against an int16 centroid, as
// the search kernels compute them, in WebAssembly or JavaScript alike) and the
// float arithmetic around them runs in one fixed order, so the same vectors
// give the same cells on any machine.

import { dotInt8, quantizeQuery } from '../runtime/knowledge/vector/search-kernels'
import { searchWasmModule } from '../runtime/knowledge/vector/search-wasm'

/** The cells of a partition. */
export interface VectorCells {
  /** Unit centroids, row-major (cell count × dimensions). */
  centroids: Float64Array
  /** Each cell's chunks, ascending; no cell is empty. */
  chunks: Uint32Array[]
}

/** Lloyd iterations after seeding: on clustered vectors the assignment barely moves after five (bench/shards.bench.mjs). */
export const KMEANS_ITERATIONS = 8
/** Training rows per cell: a sample of 32 a cell fits centroids as well as every row for a fraction of the time. */
export const SAMPLE_PER_CELL = 32
const SEED = 0x5EED_CE11

/** mulberry32: a small seeded generator, the same sequence everywhere. */
function generator(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

/** Integer dot products of an int16 query with every row of `rows` (n × dims int8): the WebAssembly kernel where it runs, else JavaScript (the same integers). */
export function rowScorer(rows: Int8Array, n: number, dims: number): (query: Float64Array, out: Int32Array) => void {
  const module = dims % 16 === 0 ? searchWasmModule() : null
  if (module) {
    const outAddress = Math.ceil(dims * 2 / 16) * 16
    const vAddress = Math.ceil((outAddress + n * 4) / 16) * 16
    try {
      const memory = new WebAssembly.Memory({ initial: Math.ceil((vAddress + rows.length) / 65536) })
      const run = (new WebAssembly.Instance(module, { e: { m: memory } }).exports as unknown as { i: (q: number, v: number, n: number, d: number, o: number) => void }).i
      new Int8Array(memory.buffer, vAddress, rows.length).set(rows)
      const q = new Int16Array(memory.buffer, 0, dims)
      const result = new Int32Array(memory.buffer, outAddress, n)
      return (query, out) => {
        q.set(query)
        run(0, vAddress, n, dims, outAddress)
        out.set(result)
      }
    }
    catch {} // out of memory: JavaScript below
  }
  return (query, out) => dotInt8(query, rows, n, dims, out)
}

/**
 * Partitions `n` int8 rows of `dims` components (`vectors`, the snapshot's
 * VECT; a row's scale does not change its direction) into at most `cellCount`
 * non-empty cells of nearby documents (`chunkDocuments[c]`: chunk `c`'s).
 */
export function partitionVectors(vectors: Int8Array, n: number, dims: number, cellCount: number, chunkDocuments: ArrayLike<number>): VectorCells {
  const k = Math.max(1, Math.min(cellCount, n))
  const random = generator(SEED)
  // Each row's inverse norm, so that a dot product becomes a cosine.
  const inverseNorm = new Float64Array(n)
  for (let c = 0; c < n; c++) {
    let sum = 0
    for (let i = c * dims; i < (c + 1) * dims; i++)
      sum += vectors[i]! * vectors[i]!
    inverseNorm[c] = sum > 0 ? 1 / Math.sqrt(sum) : 0
  }

  // The training sample: distinct rows, by a partial Fisher–Yates shuffle, ascending.
  const size = Math.min(n, k * SAMPLE_PER_CELL)
  const order = Uint32Array.from({ length: n }, (_, i) => i)
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(random() * (n - i))
    ;[order[i], order[j]] = [order[j]!, order[i]!]
  }
  const sample = order.slice(0, size).sort()
  const sampleRows = new Int8Array(size * dims)
  for (const [s, c] of sample.entries())
    sampleRows.set(vectors.subarray(c * dims, (c + 1) * dims), s * dims)
  const sampleNorm = Float64Array.from(sample, c => inverseNorm[c]!)

  const centroids = new Float64Array(k * dims)
  const query = new Float64Array(dims)
  const dots = new Int32Array(n)
  const scoreSample = rowScorer(sampleRows, size, dims)
  /** Cosines of the sample's rows with centroid `j`, into `out`. */
  const cosines = (score: typeof scoreSample, norms: Float64Array, j: number, out: Float64Array) => {
    const scale = quantizeQuery(centroids.subarray(j * dims, (j + 1) * dims), query)
    score(query, dots)
    for (let r = 0; r < norms.length; r++)
      out[r] = dots[r]! * scale * norms[r]!
  }
  const setCentroid = (j: number, row: Int8Array, inverse: number) => {
    for (let i = 0; i < dims; i++)
      centroids[j * dims + i] = row[i]! * inverse
  }

  // k-means++ seeding: each next centroid a row drawn by its distance (1 − cosine) to the nearest so far.
  const nearest = new Float64Array(size).fill(-1)
  const cosine = new Float64Array(n)
  let first = Math.floor(random() * size)
  setCentroid(0, sampleRows.subarray(first * dims, (first + 1) * dims), sampleNorm[first]!)
  for (let j = 1; j < k; j++) {
    cosines(scoreSample, sampleNorm, j - 1, cosine)
    let total = 0
    for (let r = 0; r < size; r++) {
      nearest[r] = Math.max(nearest[r]!, cosine[r]!)
      total += Math.max(0, 1 - nearest[r]!)
    }
    let target = random() * total
    first = size - 1
    for (let r = 0; r < size; r++) {
      target -= Math.max(0, 1 - nearest[r]!)
      if (target < 0) {
        first = r
        break
      }
    }
    setCentroid(j, sampleRows.subarray(first * dims, (first + 1) * dims), sampleNorm[first]!)
  }

  /** Each row's nearest centroid (ties to the lower cell). */
  const assign = (score: typeof scoreSample, norms: Float64Array, rows: number): Uint32Array => {
    const best = new Float64Array(rows).fill(-Infinity)
    const cell = new Uint32Array(rows)
    for (let j = 0; j < k; j++) {
      cosines(score, norms, j, cosine)
      for (let r = 0; r < rows; r++) {
        if (cosine[r]! > best[r]!) {
          best[r] = cosine[r]!
          cell[r] = j
        }
      }
    }
    return cell
  }
  const sums = new Float64Array(k * dims)
  for (let iteration = 0; iteration < KMEANS_ITERATIONS; iteration++) {
    const cell = assign(scoreSample, sampleNorm, size)
    sums.fill(0)
    for (let r = 0; r < size; r++) {
      const at = cell[r]! * dims
      for (let i = 0; i < dims; i++)
        sums[at + i]! += sampleRows[r * dims + i]! * sampleNorm[r]!
    }
    for (let j = 0; j < k; j++) {
      let norm = 0
      for (let i = j * dims; i < (j + 1) * dims; i++)
        norm += sums[i]! * sums[i]!
      if (norm === 0)
        continue // an empty cell keeps its centroid
      const inverse = 1 / Math.sqrt(norm)
      for (let i = j * dims; i < (j + 1) * dims; i++)
        centroids[i] = sums[i]! * inverse
    }
  }

  // Each document to the cell whose centroid its chunks are nearest in sum (ties to the lower cell).
  let documentCount = 0
  for (let c = 0; c < n; c++)
    documentCount = Math.max(documentCount, chunkDocuments[c]! + 1)
  const documentBest = new Float64Array(documentCount).fill(-Infinity)
  const documentCell = new Uint32Array(documentCount)
  const sum = new Float64Array(documentCount)
  const scoreAll = size === n ? scoreSample : rowScorer(vectors, n, dims)
  for (let j = 0; j < k; j++) {
    cosines(scoreAll, inverseNorm, j, cosine)
    sum.fill(0)
    for (let c = 0; c < n; c++)
      sum[chunkDocuments[c]!]! += cosine[c]!
    for (let d = 0; d < documentCount; d++) {
      if (sum[d]! > documentBest[d]!) {
        documentBest[d] = sum[d]!
        documentCell[d] = j
      }
    }
  }
  const cell = Uint32Array.from({ length: n }, (_, c) => documentCell[chunkDocuments[c]!]!)
  const counts = new Uint32Array(k)
  for (let c = 0; c < n; c++)
    counts[cell[c]!]!++
  const kept = [...counts.keys()].filter(j => counts[j]! > 0)
  const members = kept.map(j => new Uint32Array(counts[j]!))
  const slot = new Int32Array(k).fill(-1)
  for (const [at, j] of kept.entries())
    slot[j] = at
  const fill = new Uint32Array(kept.length)
  for (let c = 0; c < n; c++) {
    const at = slot[cell[c]!]!
    members[at]![fill[at]!++] = c
  }
  const out = new Float64Array(kept.length * dims)
  for (const [at, j] of kept.entries())
    out.set(centroids.subarray(j * dims, (j + 1) * dims), at * dims)
  return { centroids: out, chunks: members }
}

/** The snapshot's vectors as int8 rows: its own (int8), or each float32 row scaled to ±127 (only directions matter to the partition). */
export function int8Rows(vectors: Float32Array | Int8Array, chunkCount: number, dims: number): Int8Array {
  if (vectors instanceof Int8Array)
    return vectors
  const out = new Int8Array(chunkCount * dims)
  for (let c = 0; c < chunkCount; c++) {
    let max = 0
    for (let i = c * dims; i < (c + 1) * dims; i++)
      max = Math.max(max, Math.abs(vectors[i]!))
    for (let i = c * dims; i < (c + 1) * dims; i++)
      out[i] = max > 0 ? Math.round(vectors[i]! / max * 127) : 0
  }
  return out
}
