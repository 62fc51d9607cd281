// Per-chunk similarity of a query with every chunk vector of a snapshot: the
// WebAssembly SIMD kernels where they run, else plain JavaScript loops with the
// same arithmetic (bit-identical results; see search-wasm.ts).

import type { Snapshot } from '../format/snapshot-layout'
import type { PooledScores } from '../ranking/search-pool'
import type { SearchWasmExports } from './search-wasm'
import { searchWasmModule } from './search-wasm'

// dotFloat32 and dotInt8 are the same loop on purpose: one function per array
// type keeps each call site monomorphic for V8, and the float32 sum keeps the
// WebAssembly kernel's order of additions, which the integer sum need not.

/** float32: `dot(q, v_c)` per chunk. */
export function dotFloat32(q: Float64Array, v: Float32Array, n: number, dims: number, out: Float64Array): void {
  const main = dims - (dims % 8)
  for (let c = 0, o = 0; c < n; c++, o += dims) {
    let a0 = 0
    let a1 = 0
    let a2 = 0
    let a3 = 0
    let a4 = 0
    let a5 = 0
    let a6 = 0
    let a7 = 0
    for (let i = 0; i < main; i += 8) {
      const j = o + i
      a0 += q[i]! * v[j]!
      a1 += q[i + 1]! * v[j + 1]!
      a2 += q[i + 2]! * v[j + 2]!
      a3 += q[i + 3]! * v[j + 3]!
      a4 += q[i + 4]! * v[j + 4]!
      a5 += q[i + 5]! * v[j + 5]!
      a6 += q[i + 6]! * v[j + 6]!
      a7 += q[i + 7]! * v[j + 7]!
    }
    for (let i = main; i < dims; i++)
      a0 += q[i]! * v[o + i]!
    out[c] = ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))
  }
}

/** int8: the exact integer `dot(q, v_c)` per chunk, `q` holding integers (see `quantizeQuery`). */
export function dotInt8(q: Float64Array, v: Int8Array, n: number, dims: number, out: Int32Array): void {
  const main = dims - (dims % 8)
  for (let c = 0, o = 0; c < n; c++, o += dims) {
    let a0 = 0
    let a1 = 0
    let a2 = 0
    let a3 = 0
    let a4 = 0
    let a5 = 0
    let a6 = 0
    let a7 = 0
    for (let i = 0; i < main; i += 8) {
      const j = o + i
      a0 += q[i]! * v[j]!
      a1 += q[i + 1]! * v[j + 1]!
      a2 += q[i + 2]! * v[j + 2]!
      a3 += q[i + 3]! * v[j + 3]!
      a4 += q[i + 4]! * v[j + 4]!
      a5 += q[i + 5]! * v[j + 5]!
      a6 += q[i + 6]! * v[j + 6]!
      a7 += q[i + 7]! * v[j + 7]!
    }
    for (let i = main; i < dims; i++)
      a0 += q[i]! * v[o + i]!
    out[c] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
  }
}

const I32_MAX = 2 ** 31 - 1

/**
 * Rounds a unit query to integers (int16 range) for the int8 kernels and
 * returns the scale (`q ≈ out · scale`). The scale also keeps
 * 127 · Σ|out| ≤ 2³¹ − 1, so no integer sum of the kernels can overflow.
 * The rounding error (≤ scale / 2 ≈ 3·10⁻⁶ per component for 384 dimensions)
 * is two orders of magnitude below that of the int8 vectors.
 */
export function quantizeQuery(q: Float64Array, out: Float64Array | Int16Array): number {
  let maxAbs = 0
  let sumAbs = 0
  for (let i = 0; i < q.length; i++) {
    const a = Math.abs(q[i]!)
    sumAbs += a
    if (a > maxAbs)
      maxAbs = a
  }
  const scale = Math.max(maxAbs / 32767, sumAbs / (I32_MAX / 127 - q.length / 2 - 1))
  for (let i = 0; i < q.length; i++)
    out[i] = Math.max(-32767, Math.min(32767, Math.round(q[i]! / scale)))
  return scale
}

export type ChunkScores =
  | { encoding: 'float32', values: Float64Array }
  | { encoding: 'int8', values: Int32Array, queryScale: number }

interface Accelerated {
  run: (q: number, v: number, n: number, dims: number, out: number) => void
  qAddress: number
  vAddress: number
  outAddress: number
  q: Float64Array | Int16Array
  out: Float64Array | Int32Array
}

interface State {
  /** Undefined until first tried; null when the kernels cannot run for this snapshot. */
  wasm?: Accelerated | null
  /** Scratch of the JavaScript path, reused across queries. */
  query: Float64Array
  out?: Float64Array | Int32Array
  /** Each chunk's similarity to the current query, in float64. */
  similarity?: Float64Array
  /** Each document's scores for the current query. */
  pooled: PooledScores
}

const states = new WeakMap<Snapshot, State>()

const align16 = (n: number) => Math.ceil(n / 16) * 16

function accelerate(snapshot: Snapshot): Accelerated | null {
  const { dimensions: dims, chunkCount: n, vectors } = snapshot
  const int8 = snapshot.encoding === 'int8'
  if (dims % (int8 ? 16 : 8) !== 0)
    return null
  const module = searchWasmModule()
  if (!module)
    return null
  const qAddress = 0
  const outAddress = align16(dims * 8)
  const vAddress = align16(outAddress + n * (int8 ? 4 : 8))
  const total = vAddress + vectors.byteLength
  if (total > 2 ** 31)
    return null
  try {
    const memory = new WebAssembly.Memory({ initial: Math.ceil(total / 65536) })
    const exports = new WebAssembly.Instance(module, { e: { m: memory } }).exports as unknown as SearchWasmExports
    new Uint8Array(memory.buffer, vAddress, vectors.byteLength).set(new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength))
    return {
      run: int8 ? exports.i : exports.f,
      qAddress,
      vAddress,
      outAddress,
      q: int8 ? new Int16Array(memory.buffer, qAddress, dims) : new Float64Array(memory.buffer, qAddress, dims),
      out: int8 ? new Int32Array(memory.buffer, outAddress, n) : new Float64Array(memory.buffer, outAddress, n),
    }
  }
  catch {
    return null // e.g. out of memory, or instantiation forbidden
  }
}

/** Per-snapshot scratch arrays, allocated once and reused by every query. */
export function searchState(snapshot: Snapshot): State {
  let state = states.get(snapshot)
  if (!state) {
    const docs = snapshot.documents.length
    state = { query: new Float64Array(snapshot.dimensions), pooled: { best: new Float64Array(docs), bestChunk: new Int32Array(docs), pooled: new Float64Array(docs) } }
    states.set(snapshot, state)
  }
  return state
}

/**
 * Scores every chunk against `unit` (a unit-length query). With `useWasm`, the
 * first call copies the vectors into WebAssembly memory once per snapshot
 * (the snapshot's arrays must not change afterwards); without, nothing is copied.
 */
export function scoreChunks(snapshot: Snapshot, unit: Float64Array, useWasm: boolean): ChunkScores {
  const state = searchState(snapshot)
  const { dimensions: dims, chunkCount: n } = snapshot
  let wasm: Accelerated | null = null
  if (useWasm) {
    if (state.wasm === undefined)
      state.wasm = accelerate(snapshot)
    wasm = state.wasm
  }
  if (snapshot.encoding === 'int8') {
    if (wasm) {
      const queryScale = quantizeQuery(unit, wasm.q)
      wasm.run(wasm.qAddress, wasm.vAddress, n, dims, wasm.outAddress)
      return { encoding: 'int8', values: wasm.out as Int32Array, queryScale }
    }
    const queryScale = quantizeQuery(unit, state.query)
    const out = state.out instanceof Int32Array ? state.out : (state.out = new Int32Array(n))
    dotInt8(state.query, snapshot.vectors as Int8Array, n, dims, out)
    return { encoding: 'int8', values: out, queryScale }
  }
  if (wasm) {
    wasm.q.set(unit)
    wasm.run(wasm.qAddress, wasm.vAddress, n, dims, wasm.outAddress)
    return { encoding: 'float32', values: wasm.out as Float64Array }
  }
  const out = state.out instanceof Float64Array ? state.out : (state.out = new Float64Array(n))
  dotFloat32(unit, snapshot.vectors as Float32Array, n, dims, out)
  return { encoding: 'float32', values: out }
}
