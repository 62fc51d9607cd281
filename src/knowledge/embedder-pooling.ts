// Pure helpers of the embedder: batch planning and pooling. No model, no I/O.

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

/**
 * Mean of each sequence's hidden states over its attended tokens, L2-normalized: what
 * sentence-transformers' MiniLM (and its TF.js graph) does. Accumulates in float64.
 *
 * @param hidden last_hidden_state, [batch, sequence, dimensions] row-major
 * @param lengths attended tokens of each sequence (the rest is padding at the end)
 */
export function meanPoolNormalize(hidden: Float32Array, batch: number, sequence: number, dimensions: number, lengths: readonly number[]): Float32Array[] {
  const out: Float32Array[] = []
  const sum = new Float64Array(dimensions)
  for (let b = 0; b < batch; b++) {
    sum.fill(0)
    const n = lengths[b]!
    let offset = b * sequence * dimensions
    for (let s = 0; s < n; s++, offset += dimensions) {
      for (let d = 0; d < dimensions; d++)
        sum[d]! += hidden[offset + d]!
    }
    const count = Math.max(n, 1e-9)
    let norm = 0
    for (let d = 0; d < dimensions; d++) {
      sum[d] = sum[d]! / count
      norm += sum[d]! * sum[d]!
    }
    const scale = 1 / Math.sqrt(Math.max(norm, 1e-12))
    const vector = new Float32Array(dimensions)
    for (let d = 0; d < dimensions; d++)
      vector[d] = sum[d]! * scale
    out.push(vector)
  }
  return out
}
