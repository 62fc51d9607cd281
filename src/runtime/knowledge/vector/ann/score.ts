// Similarity of a query with the candidate chunks of an approximate search
// only: the JavaScript kernels over each run of consecutive candidates (a
// document's chunks are consecutive), with the same arithmetic as exact
// search, so a candidate scores what it would in an exact search. The
// WebAssembly kernels are not used: they copy every row once, and an
// approximate snapshot's rows arrive a cell at a time.

import type { ChunkScores } from '../search-kernels'
import type { Snapshot } from '../../format/snapshot-layout'
import { dotFloat32, dotInt8, quantizeQuery, searchState } from '../search-kernels'

/** Scores the chunks `mask` marks against `unit` (a unit-length query); the other entries of the result are stale. */
export function scoreCandidates(snapshot: Snapshot, unit: Float64Array, mask: Uint8Array): ChunkScores {
  const state = searchState(snapshot)
  const { dimensions: dims, chunkCount: n } = snapshot
  const int8 = snapshot.encoding === 'int8'
  const queryScale = int8 ? quantizeQuery(unit, state.query) : 1
  const out = int8
    ? (state.out instanceof Int32Array ? state.out : (state.out = new Int32Array(n)))
    : (state.out instanceof Float64Array ? state.out : (state.out = new Float64Array(n)))
  for (let from = 0; from < n; from++) {
    if (!mask[from])
      continue
    let to = from + 1
    while (to < n && mask[to])
      to++
    if (int8)
      dotInt8(state.query, (snapshot.vectors as Int8Array).subarray(from * dims, to * dims), to - from, dims, (out as Int32Array).subarray(from, to))
    else dotFloat32(unit, (snapshot.vectors as Float32Array).subarray(from * dims, to * dims), to - from, dims, (out as Float64Array).subarray(from, to))
    from = to
  }
  return int8 ? { encoding: 'int8', values: out as Int32Array, queryScale } : { encoding: 'float32', values: out as Float64Array }
}
