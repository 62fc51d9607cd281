import { describe, expect, it } from 'vitest'
import { fitRidge } from '../../../src/knowledge/query-table/ridge'
import { trainRows } from '../../../src/knowledge/query-table/train'

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

  it('fine-tuning rows brings the pooled vectors closer to their targets, the same way each time', () => {
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
    trainRows(a, pairs, { epochs: 20, learningRate: 0.5 })
    expect(fit(a)).toBeGreaterThan(fit(before) + 0.3)
    const b = table()
    trainRows(b, pairs, { epochs: 20, learningRate: 0.5 })
    expect(Buffer.from(b.rows.buffer).equals(Buffer.from(a.rows.buffer))).toBe(true)
    expect(Buffer.from(b.bias.buffer).equals(Buffer.from(a.bias.buffer))).toBe(true)
  })
})
