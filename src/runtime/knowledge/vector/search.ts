// Vector search over a decoded snapshot: cosine similarity per chunk, each
// document scored by a soft maximum of its chunks (see search-pool.ts; `max`
// keeps the seed's best-chunk rule), documents whose best chunk is below the
// threshold dropped, the rest best first, ties by ID, the first topK.

import type { Snapshot } from '../format/snapshot-layout'
import type { SearchResult } from '../ranking/search-rank'
import type { FusionTerms, PooledScores, VectorPooling } from '../ranking/search-pool'
import type { RefinedScores } from '../ranking/search-refine'
import { scoreCandidates } from './ann/score'
import { candidateIndexOf } from './ann/candidates'
import { KnowledgeError } from '../errors'
import { scoreChunks, searchState } from './search-kernels'
import { poolScores } from '../ranking/search-pool'
import { POOLING_RULE, THRESHOLD_RULE, TOP_K_RULE } from '../ranking/search-options'
import { selectTop, toResult } from '../ranking/search-rank'
import { documentChunks, margin, refinePooled } from '../ranking/search-refine'

export interface VectorSearchOptions {
  /** Documents to return (default 5). */
  topK?: number
  /**
   * Minimum cosine similarity, from −1 to 1, of a document's best chunk (default
   * 0.3): a document is returned only if one of its chunks is at least this
   * similar to the query, whatever its pooled score.
   */
  threshold?: number
  /**
   * How a document's chunk similarities make its score (default `soft`, a
   * log-mean-exp at temperature 0.05, which does not favour documents for
   * having many chunks; `max`: the best chunk's similarity, the seed's rule).
   */
  pooling?: VectorPooling
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
 * Ranks the snapshot's documents by similarity with `queryVector` (any length;
 * it is normalised here), which must come from the model the snapshot was built
 * with (`snapshot.model`) and have `snapshot.dimensions` components.
 *
 * Chunk vectors are unit-length, so similarity is a dot product; with int8
 * vectors it is `dot(q, v_int8) · scale`, within about ±0.001 of the float32
 * value, and with refinement bits the documents near the cut are scored again
 * with ten bits per component (within about ±0.0003). A result's `score` is its
 * pooled score (with `max`, its best chunk's similarity), `chunk` and `heading`
 * are its best chunk's. Scores are not rounded. Ties go to the lower document
 * ID, compared by UTF-16 code units (the Semantic Skill Kit used
 * `localeCompare`, which depends on the locale). Returns metadata only, never
 * document bodies.
 */
export function searchVectors(snapshot: Snapshot, queryVector: ArrayLike<number>, { topK = DEFAULT_TOP_K, threshold = DEFAULT_THRESHOLD, pooling = 'soft', accelerate = true }: VectorSearchOptions = {}): SearchResult[] {
  if (!TOP_K_RULE.test(topK))
    throw new KnowledgeError('invalid-options', `topK must be ${TOP_K_RULE.expected}, got ${String(topK)}.`)
  const documents = scoreDocuments(snapshot, queryVector, { topK, threshold, pooling, accelerate })
  if (!documents)
    return []
  const { best, bestChunk, pooled } = documents
  // Documents whose best chunk is under the threshold do not compete.
  for (let d = 0; d < best.length; d++) {
    if (!(best[d]! >= threshold))
      bestChunk[d] = -1
  }
  return selectTop(pooled, bestChunk, topK, -Infinity).map(d => toResult(snapshot, { documentIndex: d, chunk: bestChunk[d]!, score: pooled[d]! }))
}

/**
 * Each document's vector scores for a query (arrays reused by the next search
 * of the snapshot), or null when the query has no direction or the snapshot no
 * chunks. Only the documents that can make the top `topK` (of `pooled`, plus
 * what `fusion` adds) are pooled; the others get −∞ and no best chunk. With
 * int8 refinement, those near the cut (or the threshold) are rescored exactly.
 */
export function scoreDocuments(snapshot: Snapshot, queryVector: ArrayLike<number>, { topK, threshold, pooling, accelerate, fusion }: { topK: number, threshold: number, pooling: VectorPooling, accelerate: boolean, fusion?: FusionTerms }): PooledScores | null {
  const scored = scoreSimilarity(snapshot, queryVector, { topK, threshold, pooling, accelerate, lexical: fusion?.upper })
  return scored && poolSimilarity(snapshot, scored, { topK, threshold, pooling, fusion })
}

/** A query's similarity with the chunks a search reads, before any document is pooled. */
export interface ChunkSimilarity {
  /** The query, unit-length. */
  unit: Float64Array
  /** Each chunk's similarity (−∞ for a chunk an approximate search does not read); refinement rewrites the chunks it rescores. */
  similarity: Float64Array
  /** How far a chunk's int8 score may be from its refined one, when the snapshot has refinement bits to rescore with (see search-refine.ts). */
  margin?: number
}

/**
 * The scan of a vector search: the query's similarity with every chunk (with
 * an approximate snapshot, its candidate chunks for `topK` results and the
 * lexical upper bounds `lexical`, see ann/candidates.ts), in an array reused by
 * the next search of the snapshot; null when the query has no direction, the
 * snapshot no chunks, or an approximate search's shards are being fetched.
 * `threshold` and `pooling` are only checked here.
 */
export function scoreSimilarity(snapshot: Snapshot, queryVector: ArrayLike<number>, { topK, threshold, pooling, accelerate, lexical }: { topK: number, threshold: number, pooling: VectorPooling, accelerate: boolean, lexical?: Float64Array }): ChunkSimilarity | null {
  if (!THRESHOLD_RULE.test(threshold))
    throw new KnowledgeError('invalid-options', `threshold must be ${THRESHOLD_RULE.expected}, got ${String(threshold)}.`)
  if (!POOLING_RULE.test(pooling))
    throw new KnowledgeError('invalid-options', `pooling must be ${POOLING_RULE.expected}, got ${String(pooling)}.`)
  if (snapshot.encoding === 'none')
    throw new KnowledgeError('no-vectors', 'This snapshot has no vectors (it was built with no model): search it with searchLexical.')
  const dims = snapshot.dimensions
  if (queryVector.length !== dims && snapshot.chunkCount > 0)
    throw new KnowledgeError('invalid-query', `The query vector has ${queryVector.length} dimensions, the snapshot ${dims} (model ${snapshot.model}): embed the query with the snapshot's model.`)
  if (snapshot.chunkCount === 0)
    return null

  const state = searchState(snapshot)
  const unit = new Float64Array(dims)
  let norm = 0
  for (let i = 0; i < dims; i++) {
    const x = queryVector[i]!
    if (!Number.isFinite(x))
      throw new KnowledgeError('invalid-query', `The query vector has a non-finite component at ${i}: ${String(x)}.`)
    unit[i] = x
    norm += x * x
  }
  if (norm === 0)
    return null // no direction: similar to nothing (the seed scored such vectors −∞)
  const inverse = 1 / Math.sqrt(norm)
  for (let i = 0; i < dims; i++)
    unit[i]! *= inverse

  // An approximate snapshot (vector cells) ranks its candidate chunks only: the others score −∞.
  const candidates = candidateIndexOf(snapshot)
  const mask = candidates?.select(unit, topK, lexical)
  if (mask === null)
    return null // its shards are being fetched; the search runs again (ShardedSnapshot.ranked)
  const scores = mask ? scoreCandidates(snapshot, unit, mask) : scoreChunks(snapshot, unit, accelerate)
  const n = snapshot.chunkCount
  let similarity = scores.values as Float64Array
  if (scores.encoding === 'int8') {
    const { values, queryScale } = scores
    const scales = snapshot.scales!
    similarity = state.similarity ??= new Float64Array(n)
    for (let c = 0; c < n; c++)
      similarity[c] = values[c]! * scales[c]! * queryScale
  }
  if (mask) {
    for (let c = 0; c < n; c++) {
      if (!mask[c])
        similarity[c] = -Infinity
    }
  }
  // The margin scans every chunk's scale: once a query, however often its scores are pooled. An approximate search
  // that reads every cell ranks its candidates by their int8 rows alone (see the sharded snapshot's writer).
  const refines = scores.encoding === 'int8' && snapshot.refinement !== null && (!mask || candidates!.refines)
  return { unit, similarity, margin: refines ? margin(snapshot, unit, scores.queryScale) : undefined }
}

/**
 * Pools a query's chunk similarities (see {@link scoreDocuments}) into `out`
 * (by default arrays reused by the next search of the snapshot), rescoring
 * with refinement bits the documents near the cut, in `scored.similarity`.
 * With `bestKnown`, `out` holds each document's best chunk of these
 * similarities already (`bestOfDocuments`); `refined` shares refined scores
 * between poolings of one query (see `refinePooled`).
 */
export function poolSimilarity(snapshot: Snapshot, scored: ChunkSimilarity, { topK, threshold, pooling, fusion, bestKnown, refined }: { topK: number, threshold: number, pooling: VectorPooling, fusion?: FusionTerms, bestKnown?: boolean, refined?: RefinedScores }, out: PooledScores = searchState(snapshot).pooled): PooledScores {
  const { unit, similarity, margin: m } = scored
  const { logCounts, offsets, chunks } = documentChunks(snapshot)
  poolScores(similarity, logCounts, pooling, out, { topK, threshold, slack: m === undefined ? 0 : 2 * m, fusion, offsets, chunks, bestKnown })
  if (m !== undefined)
    refinePooled(snapshot, unit, m, similarity, out, pooling, topK, threshold, fusion, refined)
  return out
}
