// Fine-tuning a table's rows after the ridge map: the map is one linear map for
// every piece, while a piece's meaning in a sentence differs from its meaning
// alone in ways no single map undoes. Stochastic gradient descent on the cosine
// between each training text's pooled vector and the model's vector of it moves
// the rows of the pieces the corpus uses. Deterministic: a fixed-seed order,
// float64 arithmetic.

import type { QueryTable } from './table'

/** A training text: its rows in the table (repeats kept, as pooling counts them) and the model's vector. */
export interface TrainingPair {
  rows: readonly number[]
  target: ArrayLike<number>
}

/** How rows are fine-tuned. */
export interface RowTrainingOptions {
  /** Passes over the training pairs (default 8; 0 keeps the ridge rows). */
  epochs?: number
  /** Step size of the first pass, halved over the last ones (default 0.5). */
  learningRate?: number
}

/**
 * Moves `rows` and `bias` (in place) so that, for each pair, normalise(pool(rows) + bias)
 * comes closer in cosine to the pair's target: plain SGD, one pair at a time, in an order
 * drawn from a fixed seed.
 */
export function trainRows(table: Pick<QueryTable, 'rows' | 'weights' | 'bias' | 'pooling' | 'dimensions'>, pairs: readonly TrainingPair[], options: RowTrainingOptions = {}): void {
  const { epochs = 8, learningRate = 0.5 } = options
  const D = table.dimensions
  const rows = Float64Array.from(table.rows)
  const bias = Float64Array.from(table.bias)
  const v = new Float64Array(D)
  const grad = new Float64Array(D)
  const order = pairs.map((_, i) => i)
  let seed = 0x2545F491
  const random = () => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) / 2 ** 32
  }
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[order[i], order[j]] = [order[j]!, order[i]!]
    }
    const rate = learningRate * Math.min(1, 2 * (epochs - epoch) / epochs)
    for (const p of order) {
      const { rows: found, target } = pairs[p]!
      if (found.length === 0)
        continue
      let total = 0
      for (const r of found)
        total += table.weights[r]!
      const divisor = table.pooling === 'mean' ? found.length : total
      if (!(divisor > 0))
        continue
      v.set(bias)
      for (const r of found) {
        const w = table.weights[r]! / divisor
        const at = r * D
        for (let d = 0; d < D; d++)
          v[d]! += w * rows[at + d]!
      }
      let norm = 0
      let dot = 0
      for (let d = 0; d < D; d++) {
        norm += v[d]! * v[d]!
        dot += v[d]! * target[d]!
      }
      norm = Math.sqrt(norm)
      if (!(norm > 0))
        continue
      const cos = dot / norm
      // d(−cos)/dv = −(y − cos · v/|v|) / |v|
      for (let d = 0; d < D; d++)
        grad[d] = -(target[d]! - cos * v[d]! / norm) / norm
      for (let d = 0; d < D; d++)
        bias[d]! -= rate * grad[d]! / found.length
      for (const r of found) {
        const step = rate * table.weights[r]! / divisor
        const at = r * D
        for (let d = 0; d < D; d++)
          rows[at + d]! -= step * grad[d]!
      }
    }
  }
  table.rows.set(rows)
  table.bias.set(bias)
}
