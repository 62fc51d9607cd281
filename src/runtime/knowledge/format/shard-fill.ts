// What a shard of a sharded snapshot holds, checked and copied into the
// snapshot its core opened (snapshot-shards.ts): postings, vector rows (a
// range of chunks, or with vector cells whole documents), refinement bits.

import type { SnapshotContainer } from './snapshot-container'
import type { IndexArray, Snapshot } from './snapshot-layout'
import type { ShardEntry } from './snapshot-shard-directory'
import { corrupt, view } from './snapshot-container'
import { ElementType, refineRowBytes } from './snapshot-layout'
import { checkPostings, checkScales } from './snapshot-reader'

/** A lexical shard: the postings and frequencies of terms [from, to). */
export function fillPostings(snapshot: Snapshot, { bytes, sections }: SnapshotContainer, { from, to }: ShardEntry): void {
  const { offsets, postings, frequencies } = snapshot.lexical!
  const base = offsets[from]!
  const count = offsets[to]! - base
  const pst = sections.get('LPST')
  const frq = sections.get('LFRQ')
  if (!pst || (pst.type !== ElementType.u16 && pst.type !== ElementType.u32) || !frq || frq.type !== ElementType.u8)
    corrupt('a lexical shard lacks its u16 or u32 LPST or its u8 LFRQ')
  const slice = view(bytes, pst, pst.type, count) as IndexArray
  const frequencySlice = view(bytes, frq, ElementType.u8, count) as Uint8Array
  for (let p = 0; p < count; p++) {
    if (slice[p]! >= snapshot.chunkCount)
      corrupt(`LPST[${base + p}] = ${slice[p]} is out of range (< ${snapshot.chunkCount})`)
  }
  checkPostings(offsets, from, to, slice, frequencySlice, base)
  postings.set(slice, base)
  frequencies.set(frequencySlice, base)
}

/** A vector shard without cells: the rows (and int8 scales) of chunks [from, to). */
export function fillVectorRange(snapshot: Snapshot, vectorType: number, { bytes, sections }: SnapshotContainer, from: number, to: number): void {
  const dims = snapshot.dimensions
  const rows = to - from
  const vect = sections.get('VECT')
  if (!vect || vect.type !== vectorType)
    corrupt('a vector shard lacks its VECT section of the core\'s type')
  snapshot.vectors.set(view(bytes, vect, vectorType, rows * dims) as Int8Array | Float32Array, from * dims)
  if (snapshot.scales) {
    const scal = sections.get('SCAL')
    if (!scal || scal.type !== ElementType.f32)
      corrupt('a vector shard of int8 vectors lacks its f32 SCAL section')
    const scales = view(bytes, scal, ElementType.f32, rows) as Float32Array
    checkScales(scales, from)
    snapshot.scales.set(scales, from)
  }
}

/**
 * A vector shard with cells: the rows of whole documents, chunks `rows` in
 * the order it holds them, with their scales (and `withBits`, their
 * refinement bits). Returns `rows`, now filled.
 */
export function fillDocumentRows(snapshot: Snapshot, vectorType: number, shard: SnapshotContainer, rows: ArrayLike<number> & Iterable<number>, withBits: boolean): ArrayLike<number> & Iterable<number> {
  const { bytes, sections } = shard
  const dims = snapshot.dimensions
  const vect = sections.get('VECT')
  if (!vect || vect.type !== vectorType)
    corrupt('a vector shard lacks its VECT section of the core\'s type')
  const vectors = view(bytes, vect, vectorType, rows.length * dims) as Int8Array | Float32Array
  const scal = snapshot.scales ? sections.get('SCAL') : undefined
  if (snapshot.scales && (!scal || scal.type !== ElementType.f32))
    corrupt('a vector shard of int8 vectors lacks its f32 SCAL section')
  const scales = scal ? view(bytes, scal, ElementType.f32, rows.length) as Float32Array : undefined
  for (let k = 0; k < rows.length; k++) {
    const c = rows[k]!
    if (scales) {
      checkScales(scales.subarray(k, k + 1), c)
      snapshot.scales!.set(scales.subarray(k, k + 1), c)
    }
    snapshot.vectors.set(vectors.subarray(k * dims, (k + 1) * dims), c * dims)
  }
  if (withBits && snapshot.refinement)
    fillDocumentRefinement(snapshot, shard, rows)
  return rows
}

/** The u8 VREF section of a refinement shard holding `rows` rows' bits, `row` bytes each. */
function refinementBits(snapshot: Snapshot, { bytes, sections }: SnapshotContainer, rows: number): { row: number, bits: Uint8Array } {
  const vref = sections.get('VREF')
  if (!snapshot.refinement || !vref || vref.type !== ElementType.u8)
    corrupt('a refinement shard lacks its u8 VREF section, or the core has no refinement bits')
  const row = refineRowBytes(snapshot.dimensions, snapshot.refinement.bits)
  return { row, bits: view(bytes, vref, ElementType.u8, rows * row) as Uint8Array }
}

/** A refinement shard without cells: the refinement bits of chunks [from, to). */
export function fillRefinement(snapshot: Snapshot, shard: SnapshotContainer, { from, to }: ShardEntry): void {
  const { row, bits } = refinementBits(snapshot, shard, to - from)
  snapshot.refinement!.data.set(bits, from * row)
}

/** A refinement shard with cells: the bits of whole documents, chunks `rows` in the order it holds them (its vector shard's). */
export function fillDocumentRefinement(snapshot: Snapshot, shard: SnapshotContainer, rows: ArrayLike<number>): void {
  const { row, bits } = refinementBits(snapshot, shard, rows.length)
  for (let k = 0; k < rows.length; k++)
    snapshot.refinement!.data.set(bits.subarray(k * row, (k + 1) * row), rows[k]! * row)
}
