// Exact ranking over int8 snapshots that carry refinement bits (section VREF).
//
// The kernels score every chunk from its int8 bytes. That score differs from
// the refined one by less than a margin computed below, so only documents whose
// int8 best lies within two margins of the K-th best (or of the threshold) can
// be ranked differently by the refined vectors; their close chunks are scored
// again with every bit. The result is the ranking of the refined vectors, at
// the cost of a few chunks' dot products.

import type { Snapshot } from './snapshot-reader'
import { refineRowBytes } from './snapshot-reader'

const maxScales = new WeakMap<Snapshot, number>()

/**
 * How far a chunk's int8 score may be from its refined score for this query:
 * six standard deviations of what the refinement adds (its L levels are spread
 * evenly, so each component's part has variance (L² − 1) / 12 · (scale / L)²,
 * and the sum over a unit query is close to normal: beyond six deviations with
 * a probability below 10⁻⁸), plus a strict bound on the kernels' rounding of the
 * query to 16 bits. A rigorous bound (half a scale per component) would be five
 * times wider, and rescore that many more chunks.
 */
function margin(snapshot: Snapshot, unit: Float64Array, queryScale: number): number {
  let maxScale = maxScales.get(snapshot)
  if (maxScale === undefined) {
    maxScale = 0
    for (const s of snapshot.scales!)
      maxScale = Math.max(maxScale, s)
    maxScales.set(snapshot, maxScale)
  }
  const levels = 1 << snapshot.refinement!.bits
  const deviation = maxScale / levels * Math.sqrt((levels * levels - 1) / 12)
  return 6 * deviation + maxScale * queryScale / 2 * 127 * unit.length + 1e-9
}

/** A chunk's score with every bit: Σ unit[i] · (L·hi + lo − L/2) · scale / L, L = 2^bits. */
function refinedScore(snapshot: Snapshot, unit: Float64Array, unitSum: number, c: number): number {
  const dims = snapshot.dimensions
  const hi = snapshot.vectors as Int8Array
  const { bits, data } = snapshot.refinement!
  const levels = 1 << bits
  const mask = levels - 1
  const row = c * dims
  const start = c * refineRowBytes(dims, bits)
  let sum = 0
  for (let i = 0, bit = 0; i < dims; i++, bit += bits) {
    const at = start + (bit >> 3)
    const lo = ((data[at]! | ((data[at + 1] ?? 0) << 8)) >> (bit & 7)) & mask
    sum += unit[i]! * (levels * hi[row + i]! + lo)
  }
  return (sum - levels / 2 * unitSum) * snapshot.scales![c]! / levels
}

/** Each document's chunks (CSR: `chunks[offsets[d]…offsets[d + 1]]`), built on first need. */
const chunksByDocument = new WeakMap<Snapshot, { offsets: Uint32Array, chunks: Uint32Array }>()

function documentChunks(snapshot: Snapshot): { offsets: Uint32Array, chunks: Uint32Array } {
  let index = chunksByDocument.get(snapshot)
  if (!index) {
    const docs = snapshot.chunkDocuments
    const offsets = new Uint32Array(snapshot.documents.length + 1)
    for (let c = 0; c < snapshot.chunkCount; c++)
      offsets[docs[c]! + 1]!++
    for (let d = 0; d < snapshot.documents.length; d++)
      offsets[d + 1]! += offsets[d]!
    const chunks = new Uint32Array(snapshot.chunkCount)
    const next = offsets.slice(0, -1)
    for (let c = 0; c < snapshot.chunkCount; c++)
      chunks[next[docs[c]!]!++] = c
    chunksByDocument.set(snapshot, index = { offsets, chunks })
  }
  return index
}

/**
 * Replaces, in place, the int8 best scores (and best chunks) of the documents
 * that could rank differently with the refined vectors by their refined values.
 * Chunk `c`'s int8 score is `values[c] · scales[c] · queryScale`.
 */
export function refineBest(snapshot: Snapshot, unit: Float64Array, values: Int32Array, queryScale: number, best: Float64Array, bestChunk: Int32Array, topK: number, threshold: number): void {
  const m = margin(snapshot, unit, queryScale)
  // The K-th best int8 document score (−∞ with fewer documents).
  const top: number[] = []
  for (let d = 0; d < best.length; d++) {
    if (bestChunk[d]! < 0)
      continue
    const s = best[d]!
    if (top.length < topK || s > top[top.length - 1]!) {
      let at = top.length < topK ? top.length : topK - 1
      while (at > 0 && top[at - 1]! < s) {
        top[at] = top[at - 1]!
        at--
      }
      top[at] = s
    }
  }
  const kth = top.length === topK ? top[topK - 1]! : -Infinity
  const floor = Math.max(kth, threshold) - 2 * m
  let unitSum = 0
  for (let i = 0; i < unit.length; i++)
    unitSum += unit[i]!
  const scales = snapshot.scales!
  const { offsets, chunks } = documentChunks(snapshot)
  for (let d = 0; d < best.length; d++) {
    if (bestChunk[d]! < 0 || best[d]! < floor)
      continue
    // Only a chunk within two margins of its document's int8 best can be its refined best.
    const lowest = best[d]! - 2 * m
    best[d] = -Infinity
    bestChunk[d] = -1
    for (let k = offsets[d]!; k < offsets[d + 1]!; k++) {
      const c = chunks[k]!
      if (values[c]! * scales[c]! * queryScale < lowest)
        continue
      const s = refinedScore(snapshot, unit, unitSum, c)
      if (s > best[d]!) {
        best[d] = s
        bestChunk[d] = c
      }
    }
  }
}
