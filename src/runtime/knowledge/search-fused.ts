// Score-aware fusion of vector and lexical search: the default ranking of a
// knowledge base with a query embedder (`auto`).
//
// A document scores  v + w · l : v its vector score (the soft maximum of its
// chunks' cosine similarities), l its lexical score (the soft maximum of its
// chunks' normalised BM25, 0 when no chunk holds a query term), w the weight
// of lexical evidence for this query. Both scores are already on fixed scales
// (cosine; S / (S + R) from 0 to 1), so they add without per-query
// normalisation, and a document far ahead on either side keeps its lead,
// which reciprocal rank fusion throws away.
//
// Measured on the tune halves of bench/retrieval.bench.mjs (top-1, short
// queries / task prompts / dev / descriptions): vector alone 73.7 / 84.0 / 81.8
// / 93.1 %, v + 0.3 l 76.3 / 88.9 / 84.4 / 98.6, v + 0.5 l 78.0 / 88.9 / 83.1 /
// 98.6, min-max or z-score normalisation of both lists before adding: no
// better. Queries of at most five informative terms gain from the higher
// weight, longer ones from the lower (one dev query either way), hence
// {@link lexicalWeight}.

import type { Snapshot } from './snapshot-reader'
import type { SearchResult } from './search-rank'
import type { VectorSearchOptions } from './search'
import { KnowledgeError } from './errors'
import { LEXICAL_THRESHOLD, lexicalEvidence, lexicalPooled, queryTerms, statsOf } from './lexical'
import { POOLING_TEMPERATURE } from './search-pool'
import { DEFAULT_THRESHOLD, DEFAULT_TOP_K, scoreDocuments } from './search'
import { selectTop, toResult } from './search-rank'

/**
 * Options of a fused search: those of a vector search (`threshold` keeps its
 * meaning there, the cosine of a document's best chunk; a document whose best
 * chunk reaches the lexical threshold competes too), and the lexical threshold.
 */
export interface FusedSearchOptions extends VectorSearchOptions {
  /** Minimum normalised BM25 of a document's best chunk, from 0 to 1 (default 0.25), as in lexical search. */
  lexicalThreshold?: number
}

/** The lexical weight of a query with at most {@link SHORT_QUERY_TERMS} informative terms. */
export const SHORT_QUERY_WEIGHT = 0.5
/** The lexical weight of a longer query. */
export const LONG_QUERY_WEIGHT = 0.4
export const SHORT_QUERY_TERMS = 5

/** How much lexical evidence counts for a query: 0.5 for up to five informative terms (see `queryTerms`), else 0.4. */
export function lexicalWeight(query: string): number {
  return weightOfTerms(queryTerms(query).length)
}

function weightOfTerms(count: number): number {
  return count <= SHORT_QUERY_TERMS ? SHORT_QUERY_WEIGHT : LONG_QUERY_WEIGHT
}

/**
 * Ranks the snapshot's documents for `query` and its embedding `queryVector`
 * (from the snapshot's model) by vector score + {@link lexicalWeight} ·
 * lexical score (see above). A document competes when its best chunk reaches
 * `threshold` in cosine similarity or `lexicalThreshold` in normalised BM25.
 * `score` is the fused score (from −1 to 1.5; not on either side's scale);
 * `chunk` and `heading` are the document's best chunk by vector. The snapshot
 * needs vectors and a lexical index. Ties go to the lower document ID.
 */
export function searchFused(snapshot: Snapshot, query: string, queryVector: ArrayLike<number>, { topK = DEFAULT_TOP_K, threshold = DEFAULT_THRESHOLD, lexicalThreshold = LEXICAL_THRESHOLD, pooling = 'soft', accelerate = true }: FusedSearchOptions = {}): SearchResult[] {
  if (!Number.isSafeInteger(topK) || topK < 1)
    throw new KnowledgeError('invalid-options', `topK must be a positive integer, got ${String(topK)}.`)
  if (!Number.isFinite(lexicalThreshold) || lexicalThreshold < 0 || lexicalThreshold > 1)
    throw new KnowledgeError('invalid-options', `lexicalThreshold must be a number from 0 to 1, got ${String(lexicalThreshold)}.`)
  if (!snapshot.lexical)
    throw new KnowledgeError('no-lexical-index', 'This snapshot has no lexical index: search it with searchVectors.')
  const index = snapshot.lexical
  const documentCount = snapshot.documents.length
  const lower = new Float64Array(documentCount)
  const upper = new Float64Array(documentCount)
  const eligible = new Uint8Array(documentCount)
  const evidence = lexicalEvidence(index, query)
  const weight = evidence ? weightOfTerms(evidence.queryTermCount) : 0
  if (evidence) {
    // A document's lexical score lies between its best chunk's and that minus T · ln(its text chunks).
    const { logTextCounts } = statsOf(index)
    for (let d = 0; d < documentCount; d++) {
      if (evidence.bestChunk[d]! >= 0) {
        const best = evidence.best[d]!
        upper[d] = weight * best
        lower[d] = weight * (pooling === 'max' ? best : best - POOLING_TEMPERATURE * logTextCounts[d]!)
        eligible[d] = best >= lexicalThreshold ? 1 : 0
      }
    }
  }
  const exact = (d: number) => {
    if (!evidence || evidence.bestChunk[d]! < 0)
      return 0
    return weight * (pooling === 'max' ? evidence.best[d]! : lexicalPooled(index, evidence, d))
  }
  const fusion = { lower, upper, exact, bonus: new Float64Array(documentCount), eligible }
  const vector = scoreDocuments(snapshot, queryVector, { topK, threshold, pooling, accelerate, fusion })
  if (!vector)
    return []
  const { best, bestChunk, pooled } = vector
  const fused = new Float64Array(documentCount)
  const chunk = new Int32Array(documentCount)
  for (let d = 0; d < documentCount; d++) {
    fused[d] = pooled[d]! + fusion.bonus[d]!
    chunk[d] = bestChunk[d]! >= 0 && (best[d]! >= threshold || eligible[d] === 1) ? bestChunk[d]! : -1
  }
  return selectTop(fused, chunk, topK, -Infinity).map(d => toResult(snapshot, { documentIndex: d, chunk: chunk[d]!, score: fused[d]! }))
}
