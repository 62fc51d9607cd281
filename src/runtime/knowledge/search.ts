// Vector search over a decoded snapshot, with the ranking rules of the
// Semantic Skill Kit (after Google's Modern Web Guidance): cosine similarity,
// each document scored by its best chunk, documents below the threshold
// dropped, the rest best first, ties by ID, the first topK.

import type { Snapshot } from './snapshot-reader'
import type { SearchResult } from './search-rank'
import { scoreChunks, searchState } from './search-kernels'
import { selectTop, toResult } from './search-rank'
import { refineBest } from './search-refine'

export interface VectorSearchOptions {
  /** Documents to return (default 5). */
  topK?: number
  /** Minimum cosine similarity of a document's best chunk, from −1 to 1 (default 0.3). */
  threshold?: number
  /**
   * Use the WebAssembly SIMD kernels where available (default true): 4× to 15×
   * faster, at the cost of one copy of the vectors into WebAssembly memory on
   * the first search of a snapshot. `false` keeps search zero-copy.
   */
  accelerate?: boolean
}

export const DEFAULT_TOP_K = 5
export const DEFAULT_THRESHOLD = 0.3

/**
 * Ranks the snapshot's documents by cosine similarity with `queryVector` (any
 * length; it is normalised here), which must come from the model the snapshot
 * was built with (`snapshot.model`) and have `snapshot.dimensions` components.
 *
 * Chunk vectors are unit-length, so similarity is a dot product; with int8
 * vectors it is `dot(q, v_int8) · scale`, within about ±0.001 of the float32
 * value, and with refinement bits the documents near the cut are scored again
 * with ten bits per component (within about ±0.0003). Scores are not rounded. Ties go to the lower document ID, compared by
 * UTF-16 code units (the Semantic Skill Kit used `localeCompare`, which depends
 * on the locale). Returns metadata only, never document bodies.
 */
export function searchVectors(snapshot: Snapshot, queryVector: ArrayLike<number>, { topK = DEFAULT_TOP_K, threshold = DEFAULT_THRESHOLD, accelerate = true }: VectorSearchOptions = {}): SearchResult[] {
  if (!Number.isSafeInteger(topK) || topK < 1)
    throw new RangeError(`topK must be a positive integer, got ${String(topK)}.`)
  if (!Number.isFinite(threshold) || threshold < -1 || threshold > 1)
    throw new RangeError(`threshold must be a number from -1 to 1, got ${String(threshold)}.`)
  if (snapshot.encoding === 'none')
    throw new TypeError('This snapshot has no vectors (it was built with no model): search it with searchLexical.')
  const dims = snapshot.dimensions
  if (queryVector.length !== dims && snapshot.chunkCount > 0)
    throw new RangeError(`The query vector has ${queryVector.length} dimensions, the snapshot ${dims} (model ${snapshot.model}): embed the query with the snapshot's model.`)
  if (snapshot.chunkCount === 0)
    return []

  const state = searchState(snapshot)
  const unit = new Float64Array(dims)
  let norm = 0
  for (let i = 0; i < dims; i++) {
    const x = queryVector[i]!
    if (!Number.isFinite(x))
      throw new RangeError(`The query vector has a non-finite component at ${i}: ${String(x)}.`)
    unit[i] = x
    norm += x * x
  }
  if (norm === 0)
    return [] // no direction: similar to nothing (the seed scored such vectors −∞)
  const inverse = 1 / Math.sqrt(norm)
  for (let i = 0; i < dims; i++)
    unit[i]! *= inverse

  const scores = scoreChunks(snapshot, unit, accelerate)
  const { best, bestChunk } = state
  best.fill(-Infinity)
  bestChunk.fill(-1)
  const docs = snapshot.chunkDocuments
  const n = snapshot.chunkCount
  if (scores.encoding === 'int8') {
    const { values, queryScale } = scores
    const scales = snapshot.scales!
    for (let c = 0; c < n; c++) {
      const s = values[c]! * scales[c]! * queryScale
      const d = docs[c]!
      if (s > best[d]!) {
        best[d] = s
        bestChunk[d] = c
      }
    }
    if (snapshot.refinement)
      refineBest(snapshot, unit, values, queryScale, best, bestChunk, topK, threshold)
  }
  else {
    const values = scores.values
    for (let c = 0; c < n; c++) {
      const s = values[c]!
      const d = docs[c]!
      if (s > best[d]!) {
        best[d] = s
        bestChunk[d] = c
      }
    }
  }
  return selectTop(best, bestChunk, topK, threshold).map(d => toResult(snapshot, { documentIndex: d, chunk: bestChunk[d]!, score: best[d]! }))
}
