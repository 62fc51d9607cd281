// The WebAssembly SIMD kernels of vector search: a 524-byte module, assembled
// here from readable instructions so that the bytes can be reviewed. Two
// functions, both (q, v, n, dims, out) with byte addresses into the imported
// memory "e"."m":
//
//   f  float32 rows: out[c] (f64) = Σ q[i] (f64) · v[c·dims + i] (f32 → f64), dims % 8 = 0.
//      Four f64x2 accumulators over 8 elements a step; the sum is
//      ((acc0 + acc2) + (acc1 + acc3)), then lane 0 + lane 1: exactly the order of
//      the JavaScript kernel, whose results are therefore bit-identical.
//   i  int8 rows:    out[c] (i32) = Σ q[i] (i16) · v[c·dims + i] (i8), dims % 16 = 0.
//      i32x4.dot_i16x8_s over 16 elements a step; exact integer arithmetic (the
//      caller scales q so that no sum can overflow), identical to JavaScript's.
//
// Memory bandwidth bounds the f32 kernel (4 bytes a dimension); the int8 one
// reads a quarter of that.

const leb = (n: number): number[] => {
  const out: number[] = []
  do {
    let b = n & 0x7F
    n >>>= 7
    if (n)
      b |= 0x80
    out.push(b)
  } while (n)
  return out
}
const sleb = (n: number): number[] => {
  const out: number[] = []
  for (;;) {
    const b = n & 0x7F
    n >>= 7
    if ((n === 0 && !(b & 0x40)) || (n === -1 && (b & 0x40))) {
      out.push(b)
      return out
    }
    out.push(b | 0x80)
  }
}
const vec = (items: number[][]): number[] => [...leb(items.length), ...items.flat()]
const section = (id: number, bytes: number[]): number[] => [id, ...leb(bytes.length), ...bytes]
const name = (s: string): number[] => vec([...s].map(c => [c.charCodeAt(0)]))

// Instructions.
const simd = (op: number) => [0xFD, ...leb(op)]
const get = (i: number) => [0x20, i]
const set = (i: number) => [0x21, i]
const tee = (i: number) => [0x22, i]
const i32const = (n: number) => [0x41, ...sleb(n)]
const I32_ADD = 0x6A
const I32_MUL = 0x6C
const I32_SHL = 0x74
const I32_NE = 0x47
const F64_ADD = 0xA0
const LOOP = [0x03, 0x40]
const END = 0x0B
const BR_IF_0 = [0x0D, 0]
const f64Store = [0x39, 3, 0] // align 8, offset 0
const i32Store = [0x36, 2, 0] // align 4, offset 0
const v128Load = (offset: number) => [...simd(0x00), 4, ...leb(offset)]
const v128Load64Zero = (offset: number) => [...simd(0x5D), 3, ...leb(offset)]
const V128_ZERO = [...simd(0x0C), ...Array.from({ length: 16 }, () => 0)]
const F64X2_PROMOTE_LOW_F32X4 = simd(0x5F)
const F64X2_ADD = simd(0xF0)
const F64X2_MUL = simd(0xF2)
const f64x2Lane = (lane: number) => [...simd(0x21), lane]
const I16X8_EXTEND_LOW_I8X16_S = simd(0x87)
const I16X8_EXTEND_HIGH_I8X16_S = simd(0x88)
const I32X4_DOT_I16X8_S = simd(0xBA)
const I32X4_ADD = simd(0xAE)
const i32x4Lane = (lane: number) => [...simd(0x1B), lane]

// Locals: params 0 q, 1 v, 2 n, 3 dims, 4 out; i32 5 end, 6 rowEnd, 7 qp; v128 8–11.
const [Q, V, N, DIMS, OUT, END_, ROW_END, QP, A0, A1, A2, A3] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]

/** acc += f64(v[off/4 … +2]) · q[qOff/8 … +2] */
const f32Step = (acc: number, vOff: number, qOff: number) => [
  ...get(acc), ...get(V), ...v128Load64Zero(vOff), ...F64X2_PROMOTE_LOW_F32X4, ...get(QP), ...v128Load(qOff), ...F64X2_MUL, ...F64X2_ADD, ...set(acc),
]

const F32_BODY = [
  ...get(V), ...get(N), ...get(DIMS), I32_MUL, ...i32const(2), I32_SHL, I32_ADD, ...set(END_), // end = v + n·dims·4
  ...LOOP, // per chunk
  ...V128_ZERO, ...set(A0), ...V128_ZERO, ...set(A1), ...V128_ZERO, ...set(A2), ...V128_ZERO, ...set(A3),
  ...get(Q), ...set(QP),
  ...get(V), ...get(DIMS), ...i32const(2), I32_SHL, I32_ADD, ...set(ROW_END),
  ...LOOP, // per 8 dimensions
  ...f32Step(A0, 0, 0),
  ...f32Step(A1, 8, 16),
  ...f32Step(A2, 16, 32),
  ...f32Step(A3, 24, 48),
  ...get(QP), ...i32const(64), I32_ADD, ...set(QP),
  ...get(V), ...i32const(32), I32_ADD, ...tee(V), ...get(ROW_END), I32_NE, ...BR_IF_0,
  END,
  ...get(OUT),
  ...get(A0), ...get(A2), ...F64X2_ADD, ...get(A1), ...get(A3), ...F64X2_ADD, ...F64X2_ADD, ...tee(A0),
  ...f64x2Lane(0), ...get(A0), ...f64x2Lane(1), F64_ADD,
  ...f64Store,
  ...get(OUT), ...i32const(8), I32_ADD, ...set(OUT),
  ...get(V), ...get(END_), I32_NE, ...BR_IF_0,
  END,
  END,
]

const I8_BODY = [
  ...get(V), ...get(N), ...get(DIMS), I32_MUL, I32_ADD, ...set(END_), // end = v + n·dims
  ...LOOP, // per chunk
  ...V128_ZERO, ...set(A0), ...V128_ZERO, ...set(A1),
  ...get(Q), ...set(QP),
  ...get(V), ...get(DIMS), I32_ADD, ...set(ROW_END),
  ...LOOP, // per 16 dimensions
  ...get(V), ...v128Load(0), ...tee(A2),
  ...I16X8_EXTEND_LOW_I8X16_S, ...get(QP), ...v128Load(0), ...I32X4_DOT_I16X8_S, ...get(A0), ...I32X4_ADD, ...set(A0),
  ...get(A2), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(QP), ...v128Load(16), ...I32X4_DOT_I16X8_S, ...get(A1), ...I32X4_ADD, ...set(A1),
  ...get(QP), ...i32const(32), I32_ADD, ...set(QP),
  ...get(V), ...i32const(16), I32_ADD, ...tee(V), ...get(ROW_END), I32_NE, ...BR_IF_0,
  END,
  ...get(OUT),
  ...get(A0), ...get(A1), ...I32X4_ADD, ...tee(A0),
  ...i32x4Lane(0), ...get(A0), ...i32x4Lane(1), I32_ADD, ...get(A0), ...i32x4Lane(2), I32_ADD, ...get(A0), ...i32x4Lane(3), I32_ADD,
  ...i32Store,
  ...get(OUT), ...i32const(4), I32_ADD, ...set(OUT),
  ...get(V), ...get(END_), I32_NE, ...BR_IF_0,
  END,
  END,
]

const I32 = 0x7F
const V128 = 0x7B
const body = (code: number[]) => {
  const b = [...vec([[3, I32], [4, V128]]), ...code]
  return [...leb(b.length), ...b]
}

/** The module's bytes. */
export function searchWasmBytes(): Uint8Array<ArrayBuffer> {
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00, // \0asm, version 1
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32]]), 0]])), // type 0: (i32 ×5) → ()
    ...section(2, vec([[...name('e'), ...name('m'), 0x02, 0x00, 0x01]])), // import memory e.m, min 1 page
    ...section(3, vec([[0], [0]])), // two functions of type 0
    ...section(7, vec([[...name('f'), 0x00, 0], [...name('i'), 0x00, 1]])), // export f, i
    ...section(10, vec([body(F32_BODY), body(I8_BODY)])),
  ])
}

export interface SearchWasmExports {
  f: (q: number, v: number, n: number, dims: number, out: number) => void
  i: (q: number, v: number, n: number, dims: number, out: number) => void
}

let compiled: WebAssembly.Module | null | undefined

/** The compiled module, or null where WebAssembly SIMD is unavailable or forbidden (e.g. by a CSP). */
export function searchWasmModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    compiled = null
    try {
      const bytes = searchWasmBytes()
      if (typeof WebAssembly === 'object' && WebAssembly.validate(bytes))
        compiled = new WebAssembly.Module(bytes) // 524 bytes: synchronous compilation is allowed everywhere
    }
    catch {}
  }
  return compiled
}
