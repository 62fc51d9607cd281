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
  /**
   * Passes, the first ones, in which the corpus's windows are trained on beside its
   * headings and sentences (default: every pass; they always fit the map). The windows
   * are most of a pass's time, but training on them in fewer passes lost top-1 on the
   * guides' report halves (bench/RESULTS.md, "Figures behind the defaults").
   */
  windowEpochs?: number
  /** Awaited after each pass: it may throw to stop the training (a build made out of date). */
  afterEpoch?: () => Promise<void>
}

/**
 * Training pairs as pooling sees them, flat: pair p's distinct rows are
 * `rows[start[p]]` to `rows[start[p + 1] − 1]` (ascending), each with its
 * share of the pooled vector (`share`: its count × weight / the pair's divisor),
 * and its target `targets[p · dimensions …]`. Pairs that pool to nothing are left out.
 */
export interface PooledPairs {
  count: number
  start: Int32Array
  rows: Int32Array
  share: Float64Array
  /** Pairs from this index on are the corpus's windows, those before it its headings and sentences. */
  windowsFrom: number
  /** Each pair's row count, repeats included (the bias's step is divided by it). */
  lengths: Int32Array
  targets: Float64Array
}

/** The pairs in {@link PooledPairs} form, for a table's weights and pooling; those from `windowsFrom` on are windows. */
export function poolPairs(table: Pick<QueryTable, 'weights' | 'pooling' | 'dimensions'>, pairs: readonly TrainingPair[], windowsFrom = pairs.length): PooledPairs {
  const D = table.dimensions
  const pools = ({ rows }: TrainingPair) => rows.length > 0 && divisorOf(table, rows) > 0
  const kept = pairs.filter(pools)
  const start = new Int32Array(kept.length + 1)
  const lengths = new Int32Array(kept.length)
  const targets = new Float64Array(kept.length * D)
  const rows: number[] = []
  const share: number[] = []
  kept.forEach(({ rows: found, target }, p) => {
    const divisor = divisorOf(table, found)
    const sorted = Int32Array.from(found).sort()
    for (let k = 0; k < sorted.length;) {
      const row = sorted[k]!
      let repeats = 0
      while (k < sorted.length && sorted[k] === row) {
        repeats++
        k++
      }
      rows.push(row)
      share.push(repeats * table.weights[row]! / divisor)
    }
    start[p + 1] = rows.length
    lengths[p] = found.length
    for (let d = 0; d < D; d++)
      targets[p * D + d] = target[d]!
  })
  const windows = pairs.slice(windowsFrom).filter(pools).length
  return { count: kept.length, start, rows: Int32Array.from(rows), share: Float64Array.from(share), windowsFrom: kept.length - windows, lengths, targets }
}

function divisorOf(table: Pick<QueryTable, 'weights' | 'pooling'>, rows: readonly number[]): number {
  if (table.pooling === 'mean')
    return rows.length
  let total = 0
  for (const r of rows)
    total += table.weights[r]!
  return total
}

/** `out` = pair p's pooled vector over `rows` (dimensions wide), plus `base`. */
export function poolPair(pairs: PooledPairs, p: number, rows: Float32Array | Float64Array, base: ArrayLike<number> | undefined, out: Float64Array): void {
  const D = out.length
  if (base)
    out.set(base)
  else
    out.fill(0)
  for (let k = pairs.start[p]!; k < pairs.start[p + 1]!; k++) {
    const w = pairs.share[k]!
    const at = pairs.rows[k]! * D
    for (let d = 0; d < D; d++)
      out[d]! += w * rows[at + d]!
  }
}

/**
 * Moves `rows` and `bias` (in place) so that, for each pair, normalise(pool(rows) + bias)
 * comes closer in cosine to the pair's target: plain SGD, one pair at a time, in an order
 * drawn from a fixed seed.
 */
export async function trainRows(table: Pick<QueryTable, 'rows' | 'weights' | 'bias' | 'pooling' | 'dimensions'>, pairs: readonly TrainingPair[] | PooledPairs, options: RowTrainingOptions = {}): Promise<void> {
  const { epochs = 8, learningRate = 0.5, windowEpochs = epochs } = options
  const pooled = 'start' in pairs ? pairs : poolPairs(table, pairs)
  const D = table.dimensions
  const rows = Float64Array.from(table.rows)
  const bias = Float64Array.from(table.bias)
  const v = new Float64Array(D)
  const grad = new Float64Array(D)
  const order = Array.from({ length: pooled.count }, (_, i) => i)
  let seed = 0x2545F491
  const random = () => {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    return (seed >>> 0) / 2 ** 32
  }
  const { start, rows: found, share, lengths, targets } = pooled
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[order[i], order[j]] = [order[j]!, order[i]!]
    }
    const rate = learningRate * Math.min(1, 2 * (epochs - epoch) / epochs)
    const windowsToo = epoch < windowEpochs
    for (const p of order) {
      if (!windowsToo && p >= pooled.windowsFrom)
        continue
      poolPair(pooled, p, rows, bias, v)
      const y = p * D
      let norm = 0
      let dot = 0
      for (let d = 0; d < D; d++) {
        norm += v[d]! * v[d]!
        dot += v[d]! * targets[y + d]!
      }
      norm = Math.sqrt(norm)
      if (!(norm > 0))
        continue
      const cos = dot / norm
      // d(−cos)/dv = −(y − cos · v/|v|) / |v|; the rate is folded in.
      for (let d = 0; d < D; d++)
        grad[d] = rate * -(targets[y + d]! - cos * v[d]! / norm) / norm
      const perRow = 1 / lengths[p]!
      for (let d = 0; d < D; d++)
        bias[d]! -= grad[d]! * perRow
      for (let k = start[p]!; k < start[p + 1]!; k++) {
        const step = share[k]!
        const at = found[k]! * D
        for (let d = 0; d < D; d++)
          rows[at + d]! -= step * grad[d]!
      }
    }
    await options.afterEpoch?.()
  }
  table.rows.set(rows)
  table.bias.set(bias)
}
