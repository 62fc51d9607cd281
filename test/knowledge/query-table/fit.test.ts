import { describe, expect, it } from 'vitest'
import { fitRidge } from '../../../src/knowledge/query-table/ridge'
import { poolPairs, trainRows } from '../../../src/knowledge/query-table/train'

/** A fixed pseudo-random sequence in [-1, 1). */
function sequence(seed: number): () => number {
  let s = seed
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    return s / 2 ** 31 - 1
  }
}

describe('the table\'s fitting', () => {
  it('ridge regression recovers a linear map and its intercept', () => {
    const next = sequence(7)
    const [n, inputs, outputs] = [200, 4, 3]
    const w = Array.from({ length: inputs * outputs }, next)
    const b = [0.5, -1, 2]
    const x = Float64Array.from({ length: n * inputs }, next)
    const y = new Float64Array(n * outputs)
    for (let r = 0; r < n; r++) {
      for (let o = 0; o < outputs; o++)
        y[r * outputs + o] = b[o]! + Array.from({ length: inputs }, (_, i) => x[r * inputs + i]! * w[i * outputs + o]!).reduce((s, v) => s + v)
    }
    const map = fitRidge(x, y, n, inputs, outputs, 1e-9)
    Array.from(map.weights).forEach((v, i) => expect(v).toBeCloseTo(w[i]!, 6))
    Array.from(map.bias).forEach((v, i) => expect(v).toBeCloseTo(b[i]!, 6))
    // A strong penalty shrinks the map towards zero, the intercept towards Y's mean.
    const shrunk = fitRidge(x, y, n, inputs, outputs, 1e6)
    expect(Math.max(...Array.from(shrunk.weights, Math.abs))).toBeLessThan(1e-3)
  })

  it('ridge regression solves the penalised normal equations, over blocks of pairs of any size and odd widths', () => {
    // 300 pairs (two blocks of 128 and a part), 7 inputs and 5 outputs (not multiples of the kernel's 2 × 4).
    const next = sequence(3)
    const [n, inputs, outputs, lambda] = [300, 7, 5, 0.3]
    const x = Float32Array.from({ length: n * inputs }, next)
    const y = Float32Array.from({ length: n * outputs }, next)
    const map = fitRidge(x, y, n, inputs, outputs, lambda)
    // The same system written out: (XcᵀXc + λ · trace/inputs · I) · W = XcᵀYc, solved by elimination.
    const mean = (m: Float32Array, width: number, c: number) => Array.from({ length: n }, (_, r) => m[r * width + c]!).reduce((s, v) => s + v) / n
    const xc = (r: number, i: number) => x[r * inputs + i]! - mean(x, inputs, i)
    const yc = (r: number, o: number) => y[r * outputs + o]! - mean(y, outputs, o)
    const a = Array.from({ length: inputs }, (_, i) => Array.from({ length: inputs }, (_, j) => Array.from({ length: n }, (_, r) => xc(r, i) * xc(r, j)).reduce((s, v) => s + v)))
    const trace = a.reduce((s, row, i) => s + row[i]!, 0)
    a.forEach((row, i) => row[i]! += lambda * trace / inputs)
    const b = Array.from({ length: inputs }, (_, i) => Array.from({ length: outputs }, (_, o) => Array.from({ length: n }, (_, r) => xc(r, i) * yc(r, o)).reduce((s, v) => s + v)))
    for (let p = 0; p < inputs; p++) {
      for (let r = p + 1; r < inputs; r++) {
        const f = a[r]![p]! / a[p]![p]!
        a[r] = a[r]!.map((v, c) => v - f * a[p]![c]!)
        b[r] = b[r]!.map((v, c) => v - f * b[p]![c]!)
      }
    }
    const w = Array.from({ length: inputs }, () => new Array<number>(outputs).fill(0))
    for (let i = inputs - 1; i >= 0; i--) {
      for (let o = 0; o < outputs; o++)
        w[i]![o] = (b[i]![o]! - a[i]!.reduce((s, v, j) => s + (j > i ? v * w[j]![o]! : 0), 0)) / a[i]![i]!
    }
    Array.from(map.weights).forEach((v, k) => expect(v).toBeCloseTo(w[Math.floor(k / outputs)]![k % outputs]!, 9))
    Array.from(map.bias).forEach((v, o) => expect(v).toBeCloseTo(mean(y, outputs, o) - w.reduce((s, row, i) => s + mean(x, inputs, i) * row[o]!, 0), 9))
  })

  it('fine-tuning rows brings the pooled vectors closer to their targets, the same way each time', async () => {
    const next = sequence(11)
    const D = 6
    const start = Float32Array.from({ length: 5 * D }, next)
    const table = () => ({ dimensions: D, pooling: 'weighted-mean' as const, rows: Float32Array.from(start), weights: Float32Array.from([1, 0.5, 1, 0.8, 1]), bias: new Float32Array(D) })
    const pairs = [[0, 1], [1, 2, 3], [3, 4], [0, 4], [2]].map(rows => ({ rows, target: Float32Array.from({ length: D }, next) }))
    const fit = (t: ReturnType<typeof table>) => pairs.reduce((sum, { rows, target }) => {
      const total = rows.reduce((s, r) => s + t.weights[r]!, 0)
      const v = Array.from({ length: D }, (_, d) => t.bias[d]! + rows.reduce((s, r) => s + t.weights[r]! * t.rows[r * D + d]!, 0) / total)
      const cos = v.reduce((s, x, d) => s + x * target[d]!, 0) / Math.hypot(...v) / Math.hypot(...target)
      return sum + cos / pairs.length
    }, 0)
    const before = table()
    const a = table()
    await trainRows(a, pairs, { epochs: 20, learningRate: 0.5 })
    expect(fit(a)).toBeGreaterThan(fit(before) + 0.3)
    const b = table()
    await trainRows(b, pairs, { epochs: 20, learningRate: 0.5 })
    expect(Buffer.from(b.rows.buffer).equals(Buffer.from(a.rows.buffer))).toBe(true)
    expect(Buffer.from(b.bias.buffer).equals(Buffer.from(a.bias.buffer))).toBe(true)
  })

  it('the windows take part in the first passes of row training only, and their rows move in those', async () => {
    const next = sequence(5)
    const D = 4
    const initial = Float32Array.from({ length: 4 * D }, next)
    const table = () => ({ dimensions: D, pooling: 'weighted-mean' as const, rows: Float32Array.from(initial), weights: Float32Array.from([1, 1, 1, 1]), bias: new Float32Array(D) })
    // Two texts over rows 0 and 1, then a window, the only pair with rows 2 and 3 (2 twice).
    const pairs = [[0, 1], [1], [2, 3, 2]].map(rows => ({ rows, target: Float32Array.from({ length: D }, next) }))
    const rowsOf = (t: ReturnType<typeof table>, r: number) => Array.from(t.rows.subarray(r * D, (r + 1) * D))
    const start = table()
    const pooled = poolPairs(start, pairs, 2)
    expect(pooled.windowsFrom).toBe(2)
    // The window's distinct rows, each with its share of the pooled vector (row 2 counts twice).
    expect(Array.from(pooled.rows.subarray(pooled.start[2]!, pooled.start[3]!))).toEqual([2, 3])
    expect(Array.from(pooled.share.subarray(pooled.start[2]!, pooled.start[3]!))).toEqual([2 / 3, 1 / 3])
    const never = table()
    await trainRows(never, pooled, { epochs: 4, windowEpochs: 0 })
    expect(rowsOf(never, 2)).toEqual(rowsOf(start, 2))
    expect(rowsOf(never, 0)).not.toEqual(rowsOf(start, 0))
    const once = table()
    await trainRows(once, pooled, { epochs: 4, windowEpochs: 1 })
    expect(rowsOf(once, 2)).not.toEqual(rowsOf(start, 2))
    expect(rowsOf(once, 3)).not.toEqual(rowsOf(start, 3))
  })
})
