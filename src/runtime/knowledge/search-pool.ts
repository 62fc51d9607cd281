// How a document's chunk scores become the document's score.
//
// Scoring a document by its best chunk (the seed's rule) favours documents with
// many chunks: each chunk is one more chance at a high similarity by accident,
// so long overview guides beat the specific one. A soft maximum, the
// log-mean-exp T · ln(mean over the document's chunks of e^(s / T)), is the best
// chunk's score when one chunk stands out, and lower when the document's other
// chunks are far from the query: by at most T · ln(n) for n chunks. On the
// Modern Web Guidance benchmarks (bench/retrieval.bench.mjs, tune halves) T =
// 0.05 raised top-1 on every set (short queries 68.5 → 73.7 %); T = 0.03–0.06 did
// about as well, a penalty of b · ln(n) on the best score or an expected-maximum
// correction did not help.

/** `soft`: log-mean-exp of the chunk scores (the default); `max`: the best chunk's score (the seed's rule). */
export type VectorPooling = 'soft' | 'max'

/** Temperature of the soft maximum, in cosine similarity. */
export const POOLING_TEMPERATURE = 0.05

/** Per-document scores of one query. */
export interface PooledScores {
  /** The best chunk's score (−∞ for a document without chunks). */
  best: Float64Array
  /** The best chunk (−1 for a document without chunks). */
  bestChunk: Int32Array
  /** The document's score: `best`, or its soft maximum. */
  pooled: Float64Array
}

/**
 * Pools `scores` (one per chunk, chunk `c` in document `documents[c]`) into
 * `out`; `counts[d]` is document `d`'s number of chunks.
 */
export function poolScores(scores: Float64Array, documents: ArrayLike<number>, counts: Uint32Array, pooling: VectorPooling, out: PooledScores): void {
  const { best, bestChunk, pooled } = out
  best.fill(-Infinity)
  bestChunk.fill(-1)
  const n = scores.length
  for (let c = 0; c < n; c++) {
    const s = scores[c]!
    const d = documents[c]!
    if (s > best[d]!) {
      best[d] = s
      bestChunk[d] = c
    }
  }
  if (pooling === 'max') {
    pooled.set(best)
    return
  }
  pooled.fill(0)
  const inverse = 1 / POOLING_TEMPERATURE
  for (let c = 0; c < n; c++) {
    const d = documents[c]!
    pooled[d]! += Math.exp((scores[c]! - best[d]!) * inverse)
  }
  for (let d = 0; d < pooled.length; d++)
    pooled[d] = bestChunk[d]! < 0 ? -Infinity : best[d]! + POOLING_TEMPERATURE * Math.log(pooled[d]! / counts[d]!)
}

/**
 * Pools one document's chunks again, `chunks[from…to)` (ascending; their scores in
 * `scores`), into entry `d` of `out`: what refinement does for the documents it rescored.
 */
export function poolDocument(scores: Float64Array, chunks: Uint32Array, from: number, to: number, d: number, pooling: VectorPooling, out: PooledScores): void {
  let best = -Infinity
  let bestChunk = -1
  for (let k = from; k < to; k++) {
    const c = chunks[k]!
    if (scores[c]! > best) {
      best = scores[c]!
      bestChunk = c
    }
  }
  out.best[d] = best
  out.bestChunk[d] = bestChunk
  if (pooling === 'max' || bestChunk < 0) {
    out.pooled[d] = best
    return
  }
  const inverse = 1 / POOLING_TEMPERATURE
  let sum = 0
  for (let k = from; k < to; k++)
    sum += Math.exp((scores[chunks[k]!]! - best) * inverse)
  out.pooled[d] = best + POOLING_TEMPERATURE * Math.log(sum / (to - from))
}
