// Low-bit codes of chunk vectors: what a vector cell holds for the first pass
// of an approximate search (see candidates.ts), a fraction of an int8 row's
// bytes. Each component is one of L = 2^bits levels n (0 … L − 1), standing
// for (n − (L − 1) / 2) · step, with one step per row (its f32 CSTP value,
// which includes the row's own scale). Levels are packed `bits` at a time,
// the lowest bits of a byte first; a row starts on a byte.
//
// A query scores a row with a table per code byte (the sum of the query's
// components times the levels that byte holds, for each of its 256 values),
// so a row costs one lookup a byte: 48 for 1-bit codes of 384 dimensions.

/** Bits a component of a first-pass code may have. */
export const CODE_BITS = [1, 2, 4] as const
export type CodeBits = typeof CODE_BITS[number]

/** Bytes of a code row. */
export const codeRowBytes = (dimensions: number, bits: number): number => Math.ceil(dimensions * bits / 8)

/** What a level stands for, in steps. */
export const levelValue = (level: number, bits: number): number => level - ((1 << bits) - 1) / 2

/** Scores code rows against one query: `score(codes, at, step)` is the query's dot product with the row starting at byte `at`. */
export interface CodeScorer {
  score: (codes: Uint8Array, at: number, step: number) => number
}

/** The scorer of `unit` (a query of `dimensions` components) for codes of `bits` bits. */
export function codeScorer(unit: Float64Array, dimensions: number, bits: number): CodeScorer {
  const rowBytes = codeRowBytes(dimensions, bits)
  const perByte = 8 / bits
  const mask = (1 << bits) - 1
  const table = new Float64Array(rowBytes * 256)
  for (let b = 0; b < rowBytes; b++) {
    const t = b * 256
    // Value 0 (every level 0), then each value from one with its lowest non-zero level cleared: 256 additions a byte.
    let base = 0
    for (let k = 0; k < perByte && b * perByte + k < dimensions; k++)
      base += unit[b * perByte + k]! * levelValue(0, bits)
    table[t] = base
    for (let value = 1; value < 256; value++) {
      const k = Math.floor((31 - Math.clz32(value & -value)) / bits)
      const i = b * perByte + k
      const level = (value >> (k * bits)) & mask
      table[t + value] = table[t + (value & ~(mask << (k * bits)))]! + (i < dimensions ? unit[i]! * level : 0)
    }
  }
  return {
    score(codes, at, step) {
      let sum = 0
      for (let b = 0, t = 0; b < rowBytes; b++, t += 256)
        sum += table[t + codes[at + b]!]!
      return sum * step
    },
  }
}
