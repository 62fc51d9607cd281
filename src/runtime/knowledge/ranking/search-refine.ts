// Exact ranking over int8 snapshots that carry refinement bits (section VREF).
//
// The kernels score every chunk from its int8 bytes. That score differs from
// the refined one by less than a margin computed below, so only documents whose
// int8 score lies within two margins of the K-th best (or whose best chunk lies
// that near the threshold) can be ranked differently by the refined vectors;
// their chunks are scored again with every bit, and pooled again. The result is the ranking of the
// refined vectors, at the cost of a few documents' dot products.

import type { Snapshot } from '../format/snapshot-layout'
import type { FusionTerms, PooledScores, VectorPooling } from './search-pool'
import { kthHighest, poolDocument } from './search-pool'
import { refineRowBytes } from '../format/snapshot-layout'

/**
 * How far a chunk's int8 score may be from its refined score for this query:
 * six standard deviations of what the refinement adds (its L levels are spread
 * evenly, so each component's part has variance (L² − 1) / 12 · (scale / L)²,
 * and the sum over a unit query is close to normal: beyond six deviations with
 * a probability below 10⁻⁸), plus a strict bound on the kernels' rounding of the
 * query to 16 bits. A rigorous bound (half a scale per component) would be five
 * times wider, and rescore that many more chunks.
 */
export function margin(snapshot: Snapshot, unit: Float64Array, queryScale: number): number {
  // Not cached: an approximate snapshot's scales arrive a cell at a time (a scan of 100k scales is about 0.1 ms).
  let maxScale = 0
  for (const s of snapshot.scales!)
    maxScale = Math.max(maxScale, s)
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

/** Each document's chunks (CSR: `chunks[offsets[d]…offsets[d + 1]]`, ascending) and the log of their number, built on first need. */
const chunksByDocument = new WeakMap<Snapshot, { offsets: Uint32Array, chunks: Uint32Array, logCounts: Float64Array }>()

export function documentChunks(snapshot: Snapshot): { offsets: Uint32Array, chunks: Uint32Array, logCounts: Float64Array } {
  let index = chunksByDocument.get(snapshot)
  if (!index) {
    const docs = snapshot.chunkDocuments
    const documentCount = snapshot.documents.length
    const counts = new Uint32Array(documentCount)
    for (let c = 0; c < snapshot.chunkCount; c++)
      counts[docs[c]!]!++
    const offsets = new Uint32Array(documentCount + 1)
    for (let d = 0; d < documentCount; d++)
      offsets[d + 1] = offsets[d]! + counts[d]!
    const chunks = new Uint32Array(snapshot.chunkCount)
    const next = offsets.slice(0, -1)
    for (let c = 0; c < snapshot.chunkCount; c++)
      chunks[next[docs[c]!]!++] = c
    chunksByDocument.set(snapshot, index = { offsets, chunks, logCounts: Float64Array.from(counts, k => Math.log(k || 1)) })
  }
  return index
}

/**
 * Chunks' refined scores for one query, kept by one pooling of its scores for
 * the next (fused search pools them twice): `scores[c]` is chunk `c`'s
 * refined score where `has[c]` is 1.
 */
export interface RefinedScores {
  scores: Float64Array
  has: Uint8Array
}

/**
 * Replaces, in place, the int8 scores of the documents that could rank
 * differently with the refined vectors (or cross the threshold) by their
 * refined values: every chunk of such a document is scored again with all its
 * bits, then the document is pooled again. `similarity[c]` holds chunk `c`'s
 * int8 score on entry. A pooled score moves no more than its chunks' scores do
 * (the soft maximum is 1-Lipschitz), so the margin of one chunk bounds both:
 * `m`, the query's {@link margin}. With `refined`, a chunk it holds is not
 * scored again, and a chunk scored is added to it.
 */
export function refinePooled(snapshot: Snapshot, unit: Float64Array, m: number, similarity: Float64Array, documents: PooledScores, pooling: VectorPooling, topK: number, threshold: number, fusion?: FusionTerms, refined?: RefinedScores): void {
  const { best, bestChunk, pooled } = documents
  const key = fusion ? pooled.map((s, d) => s + fusion.bonus[d]!) : pooled
  const eligible = (d: number) => fusion !== undefined && fusion.eligible[d] === 1
  // Documents surely competing whatever the refinement: the K-th of their
  // scores is a floor no document under it minus 2m can beat.
  const kth = kthHighest(key, d => bestChunk[d]! >= 0 && (best[d]! >= threshold + 2 * m || eligible(d)), topK)
  const floor = kth - 2 * m
  let unitSum = 0
  for (let i = 0; i < unit.length; i++)
    unitSum += unit[i]!
  const { offsets, chunks } = documentChunks(snapshot)
  // Which documents are rescored depends on the int8 scores only, so a search run again once the bits it wanted are in rescores the same ones.
  const pending = snapshot.refinement!.pending
  for (let d = 0; d < best.length; d++) {
    if (bestChunk[d]! < 0 || (best[d]! < threshold - 2 * m && !eligible(d)) || key[d]! < floor)
      continue
    for (let k = offsets[d]!; k < offsets[d + 1]!; k++) {
      const c = chunks[k]!
      // A chunk an approximate search does not read stays out (−∞).
      if (similarity[c] === -Infinity)
        continue
      if (refined?.has[c] === 1) {
        similarity[c] = refined.scores[c]!
        continue
      }
      if (pending?.missing(c))
        pending.wanted.add(c)
      similarity[c] = refinedScore(snapshot, unit, unitSum, c)
      if (refined) {
        refined.scores[c] = similarity[c]!
        refined.has[c] = 1
      }
    }
    poolDocument(similarity, chunks, offsets[d]!, offsets[d + 1]!, d, pooling, documents)
  }
}
