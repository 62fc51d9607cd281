// First-pass codes of vector cells: their layout, what a query's score of a
// code row is, and how far it may be from the exact dot product at 1, 2 and 4 bits.

import { describe, expect, it } from 'vitest'
import { encodeCodes } from '../../../../../src/knowledge/vector-codes'
import { codeRowBytes, codeScorer, levelValue } from '../../../../../src/runtime/knowledge/vector/ann/codes'
import { rng, unitVector } from '../../../../support/random'

const DIMS = 384

describe('first-pass codes', () => {
  it('packs levels the lowest bits first, a row from a byte, and scores them as (level − (L − 1) / 2) · step', () => {
    // 5 components at 2 bits: the levels 3, 0, 2, 1 in the first byte, 3 in the second.
    const step = 0.5
    const values = [1.5, -1.5, 0.5, -0.5, 1.5].map(v => v / 2)
    const { steps, codes } = encodeCodes(2, 5, 2, r => r === 0 ? values : [0, 0, 0, 0, 0])
    expect(codeRowBytes(5, 2)).toBe(2)
    expect([...steps]).toEqual([step, 0])
    expect([...codes]).toEqual([0b01_10_00_11, 0b11, 0, 0])
    const unit = Float64Array.from([1, 2, 3, 4, 5])
    expect(codeScorer(unit, 5, 2).score(codes, 0, steps[0]!)).toBeCloseTo(values.reduce((sum, v, i) => sum + v * unit[i]!, 0), 12)
    expect(levelValue(0, 1)).toBe(-0.5)
    expect(levelValue(15, 4)).toBe(7.5)
  })

  it('scores unit vectors within an error that shrinks with the bits, the same codes on every run', () => {
    const random = rng(7)
    const rows = Array.from({ length: 200 }, () => unitVector(DIMS, random))
    const queries = Array.from({ length: 20 }, () => Float64Array.from(unitVector(DIMS, random)))
    const errors = [1, 2, 4].map((bits) => {
      const { steps, codes } = encodeCodes(rows.length, DIMS, bits, r => rows[r]!)
      const again = encodeCodes(rows.length, DIMS, bits, r => rows[r]!)
      expect(Buffer.from(again.codes).equals(Buffer.from(codes))).toBe(true)
      expect([...again.steps]).toEqual([...steps])
      let sum = 0
      for (const query of queries) {
        const scorer = codeScorer(query, DIMS, bits)
        for (const [r, row] of rows.entries()) {
          const exact = row.reduce((s, v, i) => s + v * query[i]!, 0)
          sum += (scorer.score(codes, r * codeRowBytes(DIMS, bits), steps[r]!) - exact) ** 2
        }
      }
      return Math.sqrt(sum / (queries.length * rows.length))
    })
    // Random unit vectors' dot products spread about 0.051 (1 / √384): 4 bits rank them nearly exactly, 1 bit roughly.
    expect(errors[0]).toBeLessThan(0.04)
    expect(errors[1]).toBeLessThan(errors[0]! / 1.5)
    expect(errors[2]).toBeLessThan(errors[1]! / 3)
  })
})
