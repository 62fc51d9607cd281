// Pure helpers of the embedder: batch planning and pooling (shared with the
// runtime's query embedder). No model, no I/O.

export { meanPoolNormalize } from '../runtime/knowledge/vector/pooling'

/**
 * Groups inputs into batches, longest first, so that each batch pads to a similar length.
 * On 2 CPU cores, batches in input order lose to batch size 1 (padding), and length-sorted
 * batches beat both; see bench/embed.bench.mjs.
 *
 * @param lengths tokens of each input (special tokens included)
 * @param batchSize most inputs per batch
 * @param maxBatchTokens most padded tokens per batch (batch size × its longest input)
 * @returns batches of input indices
 */
export function planBatches(lengths: readonly number[], batchSize: number, maxBatchTokens = Infinity): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]! || a - b)
  const batches: number[][] = []
  let current: number[] = []
  let longest = 0
  for (const i of order) {
    const len = lengths[i]!
    const nextLongest = Math.max(longest, len)
    if (current.length > 0 && (current.length >= batchSize || nextLongest * (current.length + 1) > maxBatchTokens)) {
      batches.push(current)
      current = []
      longest = 0
    }
    current.push(i)
    longest = Math.max(longest, len)
  }
  if (current.length > 0)
    batches.push(current)
  return batches
}
