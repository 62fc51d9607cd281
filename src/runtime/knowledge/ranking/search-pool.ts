// How a document's chunk scores become the document's score.
//
// Scoring a document by its best chunk (the seed's rule) favours documents with
// many chunks: each chunk is one more chance at a high similarity by accident,
// so long overview guides beat the specific one. A soft maximum, the
// log-mean-exp T · ln(mean over the document's chunks of e^(s / T)), is the best
// chunk's score when one chunk stands out, and lower when the document's other
// chunks are far from the query: by at most T · ln(n) for n chunks. T = 0.05
// raised top-1 on every set of bench/retrieval.bench.mjs, where a penalty on the
// best score or an expected-maximum correction did not help
// (figures: bench/RESULTS.md, "Figures behind the defaults").

/**
 * `soft`: log-mean-exp of the chunk scores (the default); `max`: the best
 * chunk's score (the seed's rule). Knowledge bases always pool soft; `max`
 * stays in the exported low-level searches (`searchVectors`, `searchLexical`,
 * `searchFused`) for code that ranks as the seed did, and for the benchmarks
 * that compare the two.
 */
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
 * What fusion adds to a document's vector score: it lies between `lower[d]`
 * and `upper[d]`, and is `exact(d)`, which pooling calls for the documents
 * that can make the cut only and keeps in `bonus[d]` (exact, so refinement has
 * to bound the vector part only). `eligible[d]` = 1 for documents that compete
 * whatever their vector score.
 */
export interface FusionTerms {
  lower: Float64Array
  upper: Float64Array
  exact: (d: number) => number
  bonus: Float64Array
  eligible: Uint8Array
}

/**
 * Which documents a search can return, so that only those need their soft
 * maximum: the top `topK` by pooled score (+ what `fusion` adds) among the
 * documents whose best chunk reaches `threshold` (or that fusion makes
 * eligible). `slack` widens the cut by how far the scores may still move (refinement).
 */
export interface PoolingCut {
  topK: number
  threshold: number
  slack: number
  fusion?: FusionTerms
  /** Each document's chunks (CSR, ascending). */
  offsets: Uint32Array
  chunks: Uint32Array
  /** Whether `best` and `bestChunk` hold each document's best chunk of these scores already (see {@link bestOfDocuments}). */
  bestKnown?: boolean
}

/** The K-th highest of `values[d]` over the documents `d` that `keep` accepts (−∞ with fewer). */
export function kthHighest(values: Float64Array, keep: (d: number) => boolean, k: number): number {
  const top: number[] = []
  for (let d = 0; d < values.length; d++) {
    if (!keep(d))
      continue
    const s = values[d]!
    if (top.length < k || s > top[top.length - 1]!) {
      let at = top.length < k ? top.length : k - 1
      while (at > 0 && top[at - 1]! < s) {
        top[at] = top[at - 1]!
        at--
      }
      top[at] = s
    }
  }
  return top.length === k ? top[k - 1]! : -Infinity
}

/**
 * Pools `scores` (one per chunk) into `out`; `logCounts[d]` is the log of
 * document `d`'s number of chunks. Soft pooling skips the documents that cannot
 * make the `cut`: their `pooled` is −∞ and their `bestChunk` −1.
 * The e^x of every chunk (and fusion's exact lexical score) is most of the cost of
 * pooling; this keeps it to the few documents near the top.
 *
 * A soft maximum lies between best − T · ln(n) and best, so the K-th highest lower
 * bound is a first floor. A long prompt's lexical evidence widens the bounds (at
 * 100k chunks, a thousand documents reach that floor), so the floor then rises to
 * the K-th highest exact score found so far, and a document's lexical score is
 * computed only when its exact vector score plus the lexical upper bound still
 * reaches it. A document skipped is under the final K-th score by more than
 * `slack`, as every document that pooling all of them would rank or refine is not:
 * the result is the same.
 */
export function poolScores(scores: Float64Array, logCounts: Float64Array, pooling: VectorPooling, out: PooledScores, cut: PoolingCut): void {
  const { best, bestChunk, pooled } = out
  const { topK, threshold, slack, fusion, offsets, chunks } = cut
  if (!cut.bestKnown)
    bestOfDocuments(scores, offsets, chunks, out)
  if (pooling === 'max') {
    pooled.set(best)
    if (fusion) {
      for (let d = 0; d < pooled.length; d++)
        fusion.bonus[d] = bestChunk[d]! >= 0 ? fusion.exact(d) : 0
    }
    return
  }
  const eligible = fusion?.eligible
  const surely = (d: number) => bestChunk[d]! >= 0 && (best[d]! >= threshold + slack || eligible?.[d] === 1)
  // A lower bound of each document's score; the K-th of them bounds the K-th score from below.
  for (let d = 0; d < pooled.length; d++)
    pooled[d] = best[d]! - POOLING_TEMPERATURE * logCounts[d]! + (fusion?.lower[d] ?? 0)
  let floor = kthHighest(pooled, surely, topK) - slack
  // The K highest exact scores of sure documents so far, descending. ROUNDING absorbs the
  // last bits by which a computed score may exceed the bound it provably meets.
  const top: number[] = []
  for (let d = 0; d < pooled.length; d++) {
    const upperBonus = fusion?.upper[d] ?? 0
    if (bestChunk[d]! >= 0 && (best[d]! >= threshold - slack || eligible?.[d] === 1) && best[d]! + upperBonus >= floor) {
      poolDocument(scores, chunks, offsets[d]!, offsets[d + 1]!, d, pooling, out)
      if (pooled[d]! + upperBonus >= floor) {
        if (fusion)
          fusion.bonus[d] = fusion.exact(d)
        if (surely(d) && insertDescending(top, pooled[d]! + (fusion?.bonus[d] ?? 0), topK))
          floor = Math.max(floor, top[topK - 1]! - slack - ROUNDING)
        continue
      }
    }
    pooled[d] = -Infinity
    bestChunk[d] = -1
  }
}

/** Each document's best chunk (−1 without chunks) and its score (−∞), into `out.best` and `out.bestChunk`. */
export function bestOfDocuments(scores: Float64Array, offsets: Uint32Array, chunks: Uint32Array, out: PooledScores): void {
  const { best, bestChunk } = out
  // Document by document, the best so far stays in a register: chunk by chunk, each chunk would
  // wait for the store of its predecessor's best.
  for (let d = 0; d < best.length; d++) {
    let top = -Infinity
    let at = -1
    for (let k = offsets[d]!, end = offsets[d + 1]!; k < end; k++) {
      const c = chunks[k]!
      if (scores[c]! > top) {
        top = scores[c]!
        at = c
      }
    }
    best[d] = top
    bestChunk[d] = at
  }
}

/** How far a computed score may exceed the bound it provably meets. */
const ROUNDING = 1e-9

/** Inserts `s` into `top` (descending, at most `k` long); true when `top` then holds `k`. */
function insertDescending(top: number[], s: number, k: number): boolean {
  if (top.length === k && !(s > top[k - 1]!))
    return true
  let at = top.length < k ? top.length : k - 1
  while (at > 0 && top[at - 1]! < s) {
    top[at] = top[at - 1]!
    at--
  }
  top[at] = s
  return top.length === k
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
