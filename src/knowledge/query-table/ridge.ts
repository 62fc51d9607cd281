// Ridge regression from pooled table vectors to the model's vectors: the
// linear map that carries a static query vector into the snapshot's space.
// Float64 throughout, summed in a fixed order, so the same pairs give the same
// map to the bit.

import { addDots } from './dots'

/** `y ≈ x · weights + bias`, for row vectors x (`inputs` long) and y (`outputs` long). */
export interface LinearMap {
  inputs: number
  outputs: number
  /** inputs × outputs, row-major. */
  weights: Float64Array
  bias: Float64Array
}

/**
 * Fits `Y ≈ X · W + b` by ridge regression on `count` pairs (X `count × inputs`,
 * Y `count × outputs`, row-major). The intercept is not penalised (X and Y are
 * centred first); `lambda` is relative to the mean variance of X's columns, so
 * one value suits inputs of any scale.
 */
export function fitRidge(x: Float32Array | Float64Array, y: Float32Array | Float64Array, count: number, inputs: number, outputs: number, lambda: number): LinearMap {
  if (count < 1)
    throw new RangeError('A ridge map needs at least one training pair.')
  const meanX = columnMeans(x, count, inputs)
  const meanY = columnMeans(y, count, outputs)
  const gram = new Float64Array(inputs * inputs)
  const cross = new Float64Array(inputs * outputs)
  // Blocks of pairs, centred and transposed (one column a line), so that each entry of
  // XᵀX (upper triangle only) and XᵀY is a dot product of two contiguous lines: the
  // sums touch the normal equations once a block instead of once a pair.
  const block = Math.min(PAIRS_PER_BLOCK, count)
  const xt = new Float64Array(inputs * block)
  const yt = new Float64Array(outputs * block)
  for (let n0 = 0; n0 < count; n0 += block) {
    const size = Math.min(block, count - n0)
    transposeCentred(x, n0, size, inputs, meanX, xt, block)
    transposeCentred(y, n0, size, outputs, meanY, yt, block)
    // Lines i and i + 1 together; the one entry this adds below the diagonal, (i + 1, i), is overwritten from above it.
    for (let i = 0; i < inputs; i += 2) {
      const next = i + 1 < inputs ? (i + 1) * block : undefined
      addDots(xt, i * block, next, xt, i, inputs, size, block, gram, i * inputs, (i + 1) * inputs)
      addDots(xt, i * block, next, yt, 0, outputs, size, block, cross, i * outputs, (i + 1) * outputs)
    }
  }
  let trace = 0
  for (let i = 0; i < inputs; i++)
    trace += gram[i * inputs + i]!
  const ridge = Math.max(lambda * trace / inputs, 1e-12)
  for (let i = 0; i < inputs; i++) {
    gram[i * inputs + i]! += ridge
    for (let j = 0; j < i; j++)
      gram[i * inputs + j] = gram[j * inputs + i]!
  }
  const weights = solveSymmetric(gram, cross, inputs, outputs)
  const bias = new Float64Array(outputs)
  for (let o = 0; o < outputs; o++) {
    let s = meanY[o]!
    for (let i = 0; i < inputs; i++)
      s -= meanX[i]! * weights[i * outputs + o]!
    bias[o] = s
  }
  return { inputs, outputs, weights, bias }
}

/** Pairs per block of the normal equations' sums: a block of both sides (2 × 384 lines of 8 bytes each) stays within a core's L2 cache. */
const PAIRS_PER_BLOCK = 128

/** `out[c · stride + k]` = `m[(from + k) · columns + c] − mean[c]`, for the `size` rows from `from`. */
function transposeCentred(m: Float32Array | Float64Array, from: number, size: number, columns: number, mean: Float64Array, out: Float64Array, stride: number): void {
  for (let k = 0; k < size; k++) {
    const at = (from + k) * columns
    for (let c = 0; c < columns; c++)
      out[c * stride + k] = m[at + c]! - mean[c]!
  }
}

function columnMeans(m: Float32Array | Float64Array, rows: number, columns: number): Float64Array {
  const mean = new Float64Array(columns)
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++)
      mean[c]! += m[r * columns + c]!
  }
  for (let c = 0; c < columns; c++)
    mean[c]! /= rows
  return mean
}

/** Solves `A · X = B` for a symmetric positive definite A (n × n) by Cholesky; B is n × k. */
function solveSymmetric(a: Float64Array, b: Float64Array, n: number, k: number): Float64Array {
  const l = new Float64Array(n * n)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j]!
      for (let p = 0; p < j; p++)
        s -= l[i * n + p]! * l[j * n + p]!
      if (i === j) {
        if (!(s > 0))
          throw new RangeError('The ridge system is not positive definite: raise lambda.')
        l[i * n + i] = Math.sqrt(s)
      }
      else {
        l[i * n + j] = s / l[j * n + j]!
      }
    }
  }
  const x = new Float64Array(b)
  // Forward: L · Z = B, then back: Lᵀ · X = Z, all k columns at once.
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < i; p++) {
      const f = l[i * n + p]!
      for (let c = 0; c < k; c++)
        x[i * k + c]! -= f * x[p * k + c]!
    }
    const d = l[i * n + i]!
    for (let c = 0; c < k; c++)
      x[i * k + c]! /= d
  }
  for (let i = n - 1; i >= 0; i--) {
    for (let p = i + 1; p < n; p++) {
      const f = l[p * n + i]!
      for (let c = 0; c < k; c++)
        x[i * k + c]! -= f * x[p * k + c]!
    }
    const d = l[i * n + i]!
    for (let c = 0; c < k; c++)
      x[i * k + c]! /= d
  }
  return x
}
