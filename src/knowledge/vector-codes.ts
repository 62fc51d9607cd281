// Writes the low-bit codes of chunk vectors that vector cells hold for an
// approximate search's first pass (format: src/runtime/knowledge/vector/ann/codes.ts).
// Each row gets the step, among a fixed set of candidates, whose levels are
// nearest its values (least squares), so that the same rows give the same
// bytes on any machine: the arithmetic is IEEE double in one fixed order.

import { codeRowBytes, levelValue } from '../runtime/knowledge/vector/ann/codes'

/** Clipping points tried per row, as fractions of its largest component: outliers are rare, and clipping them buys the rest finer levels. */
const CLIPS = [1, 0.875, 0.75, 0.625, 0.5, 0.4375, 0.375, 0.3125, 0.25] as const

/** The codes of `count` rows (`row(r)` gives row r's values), `bits` a component: their steps (f32) and packed levels. */
export function encodeCodes(count: number, dimensions: number, bits: number, row: (r: number) => ArrayLike<number>): { steps: Float32Array, codes: Uint8Array } {
  const rowBytes = codeRowBytes(dimensions, bits)
  const levels = 1 << bits
  const half = (levels - 1) / 2
  const steps = new Float32Array(count)
  const codes = new Uint8Array(count * rowBytes)
  const level = (x: number, step: number) => Math.max(0, Math.min(levels - 1, Math.round(x / step + half)))
  for (let r = 0; r < count; r++) {
    const values = row(r)
    let max = 0
    let meanAbs = 0
    for (let i = 0; i < dimensions; i++) {
      max = Math.max(max, Math.abs(values[i]!))
      meanAbs += Math.abs(values[i]!) / dimensions
    }
    if (max === 0)
      continue // a zero row: step 0, every level stands for 0
    // Candidate steps: each clip spread over the levels, and (1 bit) ± the mean magnitude, the least-squares sign code.
    const candidates: number[] = CLIPS.map(clip => 2 * clip * max / (levels - 1))
    if (bits === 1)
      candidates.push(2 * meanAbs)
    let best = Infinity
    let bestStep = candidates[0]!
    for (const candidate of candidates) {
      const step = Math.fround(candidate)
      let error = 0
      for (let i = 0; i < dimensions; i++) {
        const d = values[i]! - levelValue(level(values[i]!, step), bits) * step
        error += d * d
      }
      if (error < best) {
        best = error
        bestStep = step
      }
    }
    steps[r] = bestStep
    const start = r * rowBytes
    for (let i = 0, bit = 0; i < dimensions; i++, bit += bits)
      codes[start + (bit >> 3)]! |= level(values[i]!, bestStep) << (bit & 7)
  }
  return { steps, codes }
}
