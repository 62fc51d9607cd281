// The partition of a sharded snapshot's vectors into k-means cells (written by
// src/knowledge/vector-cells.ts and snapshot-shards.ts). The core holds
//   ACFG  u32  [cell count K, cells a query reads (probe), shard count, bits of the first-pass
//              codes, tenths of documents per result scored exactly (rescore · 10)]
// and the centroids are a shard of kind 4 (see ../snapshot-shards.ts),
// fetched by vector searches only, while the query is embedded (a lexical
// search, which does not need them, fetches the core alone), holding
//   ACSC  f32  per cell, the scale of its 4-bit centroid
//   SDIR  u32  the directory of the shards after it (vectors with their refinement bits, cells), as the core's,
//              which lists the shards up to the centroid shard only: a lexical search needs no more
//   ACEN  u8   the unit centroids, row-major (K × dimensions), 4 bits a component (two a byte, the
//              lower nibble first; a nibble n stands for n − 8), each component ≈ (n − 8) · ACSC.
//              Four bits rank cells as well as eight did (bench/shards.bench.mjs), in half the bytes:
//              at 100,000 chunks the centroids are the largest file a vector search fetches.
// Each cell is a shard of kind 3 holding its chunks' first-pass codes (codes.ts), not their rows:
//   CROW  u16|u32  its chunks, ascending
//   CSTP  f32      their codes' steps, in CROW's order
//   CCOD  u8       their codes, a row of codeRowBytes(dimensions, bits) each, in CROW's order
// An approximate search ranks a cell's documents by their codes, then fetches the int8 (or
// float32) rows of the best few from the vector shards (candidates.ts).

import type { IndexArray } from '../../format/snapshot-layout'
import type { SnapshotContainer } from '../../format/snapshot-container'
import { corrupt, view } from '../../format/snapshot-container'
import { ElementType } from '../../format/snapshot-layout'
import { CODE_BITS, codeRowBytes } from './codes'

/** The cells of a sharded snapshot. */
export interface CellPartition {
  count: number
  /** Cells an approximate search reads: the nearest to its query. */
  probe: number
  /** Shards of the snapshot, those the centroid shard lists included. */
  shardCount: number
  dimensions: number
  /** Bits a component of the first-pass codes has. */
  codeBits: number
  /** Documents per result scored exactly (in tenths: 1.5 rescores 15 documents for 10 results). */
  rescore: number
  /** Once their shard is in. */
  centroids?: { values: Int8Array, scales: Float32Array }
}

/** Bytes of a centroid of `dimensions` components. */
export const centroidBytes = (dimensions: number): number => Math.ceil(dimensions / 2)

/** Packs 4-bit components (−8 to 7) two a byte, the lower nibble first. */
export function packNibbles(values: Int8Array, count: number, dimensions: number): Uint8Array {
  const row = centroidBytes(dimensions)
  const out = new Uint8Array(count * row)
  for (let j = 0; j < count; j++) {
    for (let i = 0; i < dimensions; i++)
      out[j * row + (i >> 1)]! |= ((values[j * dimensions + i]! + 8) & 0xF) << ((i & 1) * 4)
  }
  return out
}

/** The core's partition, or null for a core without one (exact search only). */
export function readPartition({ bytes, sections, dimensions }: SnapshotContainer): CellPartition | null {
  const config = sections.get('ACFG')
  if (!config)
    return null
  if (config.type !== ElementType.u32 || config.length !== 20)
    corrupt('its vector cells lack a u32 ACFG section of 5 values (a core of an earlier version: build it again)')
  const [count, probe, shardCount, codeBits, rescore] = view(bytes, config, ElementType.u32, 5) as Uint32Array
  if (!(count! > 0 && probe! > 0 && dimensions > 0 && rescore! > 0) || !(CODE_BITS as readonly number[]).includes(codeBits!))
    corrupt('its vector cells have no cell, no probe, no dimensions, no rescoring depth or codes of other than 1, 2 or 4 bits')
  return { count: count!, probe: probe!, shardCount: shardCount!, dimensions, codeBits: codeBits!, rescore: rescore! / 10 }
}

/** Reads the centroids of `partition` from their shard. */
export function fillCentroids(partition: CellPartition, { bytes, sections }: SnapshotContainer): void {
  const scal = sections.get('ACSC')
  const cent = sections.get('ACEN')
  if (!scal || scal.type !== ElementType.f32 || !cent || cent.type !== ElementType.u8)
    corrupt('the centroid shard lacks its f32 ACSC or its u8 ACEN section')
  const scales = view(bytes, scal, ElementType.f32, partition.count) as Float32Array
  if (scales.some(s => !(s > 0 && s < Infinity)))
    corrupt('a vector cell\'s centroid has a scale that is not positive and finite')
  const { count, dimensions: dims } = partition
  const row = centroidBytes(dims)
  const packed = view(bytes, cent, ElementType.u8, count * row) as Uint8Array
  const values = new Int8Array(count * dims)
  for (let j = 0; j < count; j++) {
    for (let i = 0; i < dims; i++)
      values[j * dims + i] = ((packed[j * row + (i >> 1)]! >> ((i & 1) * 4)) & 0xF) - 8
  }
  partition.centroids = { values, scales }
}

/** The `probe` cells whose centroids are nearest to `unit` (highest dot product first, ties to the lower cell). */
export function nearestCells({ count, dimensions: dims, centroids: loaded }: CellPartition, unit: Float64Array, probe: number): number[] {
  const { values: centroids, scales } = loaded!
  const scores = new Float64Array(count)
  for (let j = 0; j < count; j++) {
    let sum = 0
    for (let i = 0, at = j * dims; i < dims; i++, at++)
      sum += unit[i]! * centroids[at]!
    scores[j] = sum * scales[j]!
  }
  const order = Array.from({ length: count }, (_, j) => j)
  order.sort((a, b) => scores[b]! - scores[a]! || a - b)
  return order.slice(0, Math.min(probe, count))
}

/** A cell's chunks and their first-pass codes. */
export interface CellCodes {
  chunks: Uint32Array
  steps: Float32Array
  codes: Uint8Array
}

/** Reads cell `cell`'s shard of a snapshot of `chunkCount` chunks. */
export function readCell({ dimensions, codeBits }: CellPartition, { bytes, sections }: SnapshotContainer, cell: number, chunkCount: number): CellCodes {
  const crow = sections.get('CROW')
  const cstp = sections.get('CSTP')
  const ccod = sections.get('CCOD')
  if (!crow || (crow.type !== ElementType.u16 && crow.type !== ElementType.u32) || !cstp || cstp.type !== ElementType.f32 || !ccod || ccod.type !== ElementType.u8)
    corrupt('a cell shard lacks its u16 or u32 CROW, its f32 CSTP or its u8 CCOD section')
  const chunks = Uint32Array.from(view(bytes, crow, crow.type, crow.length / (crow.type === ElementType.u16 ? 2 : 4)) as IndexArray)
  if (chunks.length === 0 || chunks.some((c, r) => c >= chunkCount || (r > 0 && c <= chunks[r - 1]!)))
    corrupt(`cell ${cell} does not list ascending chunks under ${chunkCount}`)
  const steps = view(bytes, cstp, ElementType.f32, chunks.length) as Float32Array
  if (steps.some(s => !(s >= 0 && s < Infinity)))
    corrupt(`cell ${cell} has a code step that is not finite and non-negative`)
  const codes = view(bytes, ccod, ElementType.u8, chunks.length * codeRowBytes(dimensions, codeBits)) as Uint8Array
  return { chunks, steps, codes }
}
