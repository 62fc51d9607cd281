// The dense kernel of the distillation (the ridge map's normal equations and its fold
// into the rows): many dot products between lines of two row-major Float64Arrays.
// Two lines of one side against four of the other at a time, so that each value loaded
// serves several products and the eight sums stay in registers; each sum still runs
// over k in order, so the result does not depend on the blocking.

/**
 * For each line j from `first` to `lines − 1` of `b` (line j at `j · stride`, `size` long),
 * `into[at0 + j] += a[a0 …] · b_j` and, when `a1` is given, `into[at1 + j] += a[a1 …] · b_j`.
 */
export function addDots(a: Float64Array, a0: number, a1: number | undefined, b: Float64Array, first: number, lines: number, size: number, stride: number, into: Float64Array, at0: number, at1: number): void {
  if (a1 === undefined) {
    addDotsOne(a, a0, b, first, lines, size, stride, into, at0)
    return
  }
  let j = first
  for (; j + 4 <= lines; j += 4) {
    const b0 = j * stride
    const b1 = b0 + stride
    const b2 = b1 + stride
    const b3 = b2 + stride
    let s00 = 0
    let s01 = 0
    let s02 = 0
    let s03 = 0
    let s10 = 0
    let s11 = 0
    let s12 = 0
    let s13 = 0
    for (let k = 0; k < size; k++) {
      const u = a[a0 + k]!
      const v = a[a1 + k]!
      const c0 = b[b0 + k]!
      const c1 = b[b1 + k]!
      const c2 = b[b2 + k]!
      const c3 = b[b3 + k]!
      s00 += u * c0
      s01 += u * c1
      s02 += u * c2
      s03 += u * c3
      s10 += v * c0
      s11 += v * c1
      s12 += v * c2
      s13 += v * c3
    }
    into[at0 + j]! += s00
    into[at0 + j + 1]! += s01
    into[at0 + j + 2]! += s02
    into[at0 + j + 3]! += s03
    into[at1 + j]! += s10
    into[at1 + j + 1]! += s11
    into[at1 + j + 2]! += s12
    into[at1 + j + 3]! += s13
  }
  if (j < lines) {
    addDotsOne(a, a0, b, j, lines, size, stride, into, at0)
    addDotsOne(a, a1, b, j, lines, size, stride, into, at1)
  }
}

function addDotsOne(a: Float64Array, a0: number, b: Float64Array, first: number, lines: number, size: number, stride: number, into: Float64Array, at: number): void {
  for (let j = first; j < lines; j++) {
    const bj = j * stride
    let s = 0
    for (let k = 0; k < size; k++)
      s += a[a0 + k]! * b[bj + k]!
    into[at + j]! += s
  }
}
