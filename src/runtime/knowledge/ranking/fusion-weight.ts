// How much a query's lexical evidence counts against its vector evidence in
// fused search (`auto`): the weight w of  v + w · l  (see search-fused.ts).
//
// Each side says how sure it is by how far its best document stands above the
// next ones: a side whose first document is far ahead has found something, a
// side whose top ten are level has not. The weight follows the ratio of the two:
//   w = min(2, 0.7 · ((P_l + 0.01) / (P_v + 0.01))^1.25)
// P the side's peakedness (its best document's score minus the mean of the next
// nine), 0.01 keeping two flat sides at the middle weight. So a flat vector
// side (a static query encoder on a long prompt, a query in words the model
// does not know) gives way to a peaked lexical one, and the other way round.
//
// Fitted on the tune halves of bench/retrieval.bench.mjs's five sets (short
// queries, task prompts, hard prompts, dev questions, Google's descriptions),
// under the constraint that fused top-1 and MRR@5 reach the better side's on
// every tune half, with the model's query vectors and with a much weaker vector
// side (a static token table); bench/fusion.bench.mjs compares it with the
// fixed weight it replaces and with the variants tried
// (figures: bench/RESULTS.md, "Figures behind the defaults").

/** Documents whose scores make a side's peakedness: its best and the next {@link PEAK_DEPTH} − 1. */
export const PEAK_DEPTH = 10
/** The weight when both sides are equally peaked. */
export const BALANCED_WEIGHT = 0.7
/** How steeply the weight follows the ratio of peakedness. */
export const PEAK_EXPONENT = 1.25
/** Added to both peakednesses: two flat sides weigh as two equal ones. */
export const PEAK_FLOOR = 0.01
/** The most lexical evidence may weigh. */
export const MAX_LEXICAL_WEIGHT = 2

/**
 * How far the best of `top` (a side's highest document scores, best first, at
 * most {@link PEAK_DEPTH}) stands above the mean of the others; 0 for fewer
 * than two.
 */
export function peakedness(top: readonly number[]): number {
  if (top.length < 2)
    return 0
  let sum = 0
  for (let i = 1; i < top.length; i++)
    sum += top[i]!
  return top[0]! - sum / (top.length - 1)
}

/**
 * The weight of lexical evidence for a query whose vector side's highest
 * document scores are `vectorTop` and lexical side's `lexicalTop` (each best
 * first, at most {@link PEAK_DEPTH}; a document without a query term scores 0
 * lexically): 0.7 when both are as peaked, more when lexical search is the
 * surer (at most 2), less when vector search is (see above).
 */
export function lexicalWeight(vectorTop: readonly number[], lexicalTop: readonly number[]): number {
  const ratio = (peakedness(lexicalTop) + PEAK_FLOOR) / (peakedness(vectorTop) + PEAK_FLOOR)
  return Math.min(MAX_LEXICAL_WEIGHT, BALANCED_WEIGHT * ratio ** PEAK_EXPONENT)
}

/** Inserts `s` into `top` (descending, at most `k` long). */
export function keepHighest(top: number[], s: number, k: number): void {
  if (top.length === k && !(s > top[k - 1]!))
    return
  let at = top.length < k ? top.length : k - 1
  while (at > 0 && top[at - 1]! < s) {
    top[at] = top[at - 1]!
    at--
  }
  top[at] = s
}
