// Reciprocal rank fusion of a vector and a lexical ranking: the `hybrid`
// search mode.

import type { SearchHit } from './search-rank'
import { KnowledgeError } from '../errors'
import { TOP_K_RULE } from './search-options'

export interface HybridOptions {
  /** Documents to return (default 5). */
  topK?: number
  /** The RRF constant (default 60, as in Cormack et al. 2009). */
  k?: number
}

export type HybridHit<T extends SearchHit> = T & {
  /** 1-based rank in the vector results, or null when absent there. */
  vectorRank: number | null
  /** 1-based rank in the lexical results, or null when absent there. */
  lexicalRank: number | null
  /** The document's score in the vector results (cosine similarity), or null. */
  vectorScore: number | null
  /** The document's score in the lexical results (normalised BM25), or null. */
  lexicalScore: number | null
}

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): a document scores
 * Σ 1 / (k + rank) over the lists it appears in (rank 1-based, k = 60), so
 * agreement between the two rankings counts and raw scores of different scales
 * never mix. `score` becomes the fused score (at most 2 / (k + 1) ≈ 0.033; not
 * comparable to a similarity threshold: thresholds apply to each list before
 * fusion). Ties go to the lower document index (the lower ID in a snapshot).
 * Both lists must come from the same snapshot; pass longer lists (e.g. topK 20)
 * than the fused topK so that fusion has something to reorder. A document's
 * other fields come from the vector list when it is there.
 */
export function searchHybrid<T extends SearchHit>(vectorResults: readonly T[], lexicalResults: readonly T[], { topK = 5, k = 60 }: HybridOptions = {}): HybridHit<T>[] {
  if (!TOP_K_RULE.test(topK))
    throw new KnowledgeError('invalid-options', `topK must be ${TOP_K_RULE.expected}, got ${String(topK)}.`)
  if (!Number.isFinite(k) || k < 0)
    throw new KnowledgeError('invalid-options', `k must be a non-negative number, got ${String(k)}.`)
  const fused = new Map<number, HybridHit<T>>()
  for (const [i, hit] of vectorResults.entries()) {
    if (!fused.has(hit.documentIndex))
      fused.set(hit.documentIndex, { ...hit, score: 1 / (k + i + 1), vectorRank: i + 1, lexicalRank: null, vectorScore: hit.score, lexicalScore: null })
  }
  for (const [i, hit] of lexicalResults.entries()) {
    const entry = fused.get(hit.documentIndex)
    if (!entry) {
      fused.set(hit.documentIndex, { ...hit, score: 1 / (k + i + 1), vectorRank: null, lexicalRank: i + 1, vectorScore: null, lexicalScore: hit.score })
    }
    else if (entry.lexicalRank === null) {
      entry.score += 1 / (k + i + 1)
      entry.lexicalRank = i + 1
      entry.lexicalScore = hit.score
    }
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.documentIndex - b.documentIndex)
    .slice(0, topK)
}
