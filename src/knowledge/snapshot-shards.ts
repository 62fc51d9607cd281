// Splits a knowledge snapshot into a core and shards, for browsers (layout:
// src/runtime/knowledge/format/snapshot-shards.ts). Pure and deterministic: the same
// snapshot and options give the same files. The sections are copied byte for
// byte, so the sharded snapshot, once loaded, is the snapshot. A large
// snapshot's vectors are also partitioned into k-means cells (vector-cells.ts),
// each a shard of its chunks' low-bit codes (vector-codes.ts), for approximate
// search (src/runtime/knowledge/vector/ann/).

import type { RowGroups } from './vector-row-groups'
import type { PendingSection } from './snapshot-sections'
import type { ShardEntry } from '../runtime/knowledge/format/snapshot-shards'
import { crc32 } from '../runtime/knowledge/format/crc32'
import { decodeContainer } from '../runtime/knowledge/format/snapshot-reader'
import { ELEMENT_SIZE, ElementType, FLAG_NO_VECTORS, FLAG_SHARD, FLAG_SHARDED_CORE, refineRowBytes } from '../runtime/knowledge/format/snapshot-layout'
import { readContainer } from '../runtime/knowledge/format/snapshot-container'
import { CODE_BITS } from '../runtime/knowledge/vector/ann/codes'
import { packNibbles } from '../runtime/knowledge/vector/ann/cells'
import { SDIR_HEAD, SDIR_ENTRY, ShardKind } from '../runtime/knowledge/format/snapshot-shards'
import { f32Bytes, u32Bytes, varints } from './shard-sections'
import { assemble, indexSection, littleEndian } from './snapshot-sections'
import { ALL_CELLS_RESCORE, ALL_CELLS_ROW_GROUPS, ALL_CELLS_VECTOR_SHARD_BYTES, ANN_MIN_CHUNKS, ANN_VECTOR_SHARD_BYTES, cellCountFor, DEFAULT_CODE_BITS, DEFAULT_PROBE, DEFAULT_REFINEMENT_SHARD_BYTES, DEFAULT_RESCORE, DEFAULT_ROW_GROUPS, DEFAULT_VECTOR_SHARD_BYTES, lexicalShardBytesFor } from './snapshot-shard-sizes'
import { int8Rows, partitionVectors } from './vector-cells'
import { encodeCodes } from './vector-codes'
import { rowLayout } from './vector-row-groups'
import { documentChunks } from '../runtime/knowledge/ranking/search-refine'

/** How big shards are made. */
export interface ShardOptions {
  /**
   * Bytes of postings per lexical shard (default: by the postings' size, see
   * {@link lexicalShardBytesFor}): terms are grouped in vocabulary order until
   * the next would pass it (a term bigger than that is a shard of its own). A
   * lexical search fetches the shards of its terms.
   */
  lexicalBytes?: number
  /** Bytes of vectors per vector shard (default 1,048,576): whole chunk rows. Vector search fetches them all, in parallel. */
  vectorBytes?: number
  /**
   * Bytes of refinement bits per refinement shard (default 65,536; int8
   * snapshots): whole chunk rows. A vector search fetches those of the chunks
   * it rescores, the documents near its cut. With vector cells where a
   * search reads every cell, each vector shard has one, of the same
   * documents' bits, which only exact search reads; where it reads some,
   * there are none: each vector shard holds its rows' bits.
   */
  refinementBytes?: number
  /**
   * Approximate vector search: how many k-means cells the vectors are
   * partitioned into, each a shard a query fetches when it is among the
   * `probe` nearest to it; 0 for exact search only. Default `'auto'`:
   * exact below {@link ANN_MIN_CHUNKS} chunks, else 2√(chunks) cells
   * (see {@link cellCountFor}).
   */
  cells?: number | 'auto'
  /** Cells an approximate search reads (default {@link DEFAULT_PROBE}). */
  probe?: number
  /** Bits a component of the cells' first-pass codes has: 1, 2 or 4 (default {@link DEFAULT_CODE_BITS}). */
  codeBits?: number
  /**
   * Documents per result an approximate search scores exactly, the best by
   * their first-pass codes, of at least ten results, in tenths (default
   * {@link DEFAULT_RESCORE}; {@link ALL_CELLS_RESCORE} where it reads every
   * cell): the vector shards holding their int8 rows (and refinement bits
   * where it reads some cells) are fetched, and every document in them is scored; the other documents of
   * the cells it reads are not.
   */
  rescore?: number
  /**
   * With vector cells, which documents share a vector shard: `'adjacent'`
   * ones in id order, or `'similar'` ones, read together (vector-row-groups.ts),
   * so that the rows a query reads come in fewer requests (default
   * {@link DEFAULT_ROW_GROUPS}; {@link ALL_CELLS_ROW_GROUPS} where a search reads every cell).
   */
  rowGroups?: RowGroups
}

/** A sharded snapshot: the core, fetched first, and the shards in the order the core lists them. */
export interface ShardedSnapshotFiles {
  core: Uint8Array
  shards: Uint8Array[]
}

function fail(message: string): never {
  throw new TypeError(`Cannot shard the knowledge snapshot: ${message}`)
}

function positiveSize(value: unknown, name: string, fallback: number): number {
  if (value === undefined)
    return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    fail(`${name} must be a positive integer, got ${String(value)}.`)
  return value
}

/** The rescoring depth in tenths of a document a result, as ACFG holds it (runtime/knowledge/vector/ann/cells.ts). */
function rescoreTenths(value: unknown, fallback: number): number {
  const tenths = typeof value === 'number' ? Math.round(value * 10) : fallback * 10
  if (value !== undefined && (typeof value !== 'number' || !(tenths >= 1 && tenths < 2 ** 32) || Math.abs(value * 10 - tenths) > 1e-9))
    fail(`rescore must be a positive number in tenths (such as 2 or 1.5), got ${String(value)}.`)
  return tenths
}

/** Contiguous ranges of `count` items whose sizes add up to about `target` each. */
function ranges(count: number, size: (i: number) => number, target: number): [number, number][] {
  const out: [number, number][] = []
  let from = 0
  let bytes = 0
  for (let i = 0; i < count; i++) {
    const s = size(i)
    if (i > from && bytes + s > target) {
      out.push([from, i])
      from = i
      bytes = 0
    }
    bytes += s
  }
  if (count > from)
    out.push([from, count])
  return out
}

/** A count option: a non-negative integer, or `'auto'`. */
function countOption(value: unknown, name: string): number | 'auto' {
  if (value === undefined || value === 'auto')
    return 'auto'
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    fail(`${name} must be 'auto' or a non-negative integer, got ${String(value)}.`)
  return value
}

/** Splits `snapshot` (the bytes `encodeSnapshot` wrote, checked here) into a core and shards. */
export function encodeShardedSnapshot(snapshot: Uint8Array, options: ShardOptions = {}): ShardedSnapshotFiles {
  const container = readContainer(snapshot, true, FLAG_NO_VECTORS)
  const decoded = decodeContainer(container, { sharded: false })
  const { bytes, sections, dimensions: dims, chunkCount, documentCount } = container
  const withVectors = decoded.encoding !== 'none'
  const cellOption = countOption(options.cells, 'cells')
  const probe = positiveSize(options.probe, 'probe', DEFAULT_PROBE)
  const cellCount = !withVectors ? 0 : cellOption === 'auto' ? cellCountFor(chunkCount, probe) : Math.min(cellOption, chunkCount)
  const codeBits = positiveSize(options.codeBits, 'codeBits', DEFAULT_CODE_BITS)
  if (!(CODE_BITS as readonly number[]).includes(codeBits))
    fail(`codeBits must be 1, 2 or 4, got ${codeBits}.`)
  const everyCell = cellCount > 0 && probe >= cellCount
  const rescore = rescoreTenths(options.rescore, everyCell ? ALL_CELLS_RESCORE : DEFAULT_RESCORE)
  // Checked here, before the default that depends on the postings: a bad value fails even without a lexical index.
  const lexicalOption = options.lexicalBytes === undefined ? undefined : positiveSize(options.lexicalBytes, 'lexicalBytes', 0)
  const vectorBytes = positiveSize(options.vectorBytes, 'vectorBytes', everyCell ? ALL_CELLS_VECTOR_SHARD_BYTES : cellCount > 0 ? ANN_VECTOR_SHARD_BYTES : DEFAULT_VECTOR_SHARD_BYTES)
  const refinementBytes = positiveSize(options.refinementBytes, 'refinementBytes', DEFAULT_REFINEMENT_SHARD_BYTES)
  const rowGroups = options.rowGroups ?? (everyCell ? ALL_CELLS_ROW_GROUPS : DEFAULT_ROW_GROUPS)
  if (rowGroups !== 'adjacent' && rowGroups !== 'similar')
    fail(`rowGroups must be 'adjacent' or 'similar', got ${String(rowGroups)}.`)
  const raw = (tag: string, from = 0, to?: number): PendingSection[] => {
    const section = sections.get(tag)
    if (!section)
      return []
    const end = to === undefined ? section.length : to
    return [{ tag, type: section.type as PendingSection['type'], bytes: bytes.subarray(section.offset + from, section.offset + end) }]
  }
  const elementBytes = (tag: string) => ELEMENT_SIZE[sections.get(tag)!.type as PendingSection['type']]

  const planned: Omit<ShardEntry, 'byteLength' | 'crc'>[] = []
  const lexical = decoded.lexical
  if (lexical) {
    const perPosting = elementBytes('LPST') + 1
    const { offsets } = lexical
    const lexicalBytes = lexicalOption ?? lexicalShardBytesFor(offsets[lexical.terms.length]! * perPosting)
    for (const [from, to] of ranges(lexical.terms.length, t => (offsets[t + 1]! - offsets[t]!) * perPosting, lexicalBytes))
      planned.push({ kind: ShardKind.lexical, from, to })
  }
  // With cells, the centroid shard comes next: the core lists the shards up to it, it lists the others.
  const rows8 = cellCount > 0 ? int8Rows(decoded.vectors, chunkCount, dims) : undefined
  const cells = rows8 ? partitionVectors(rows8, chunkCount, dims, cellCount, decoded.chunkDocuments) : undefined
  const byDocument = cells ? documentChunks(decoded) : undefined
  const listed = cells ? planned.length + 1 : undefined
  if (cells)
    planned.push({ kind: ShardKind.centroids, from: 0, to: cells.chunks.length })
  const vectorElement = withVectors ? elementBytes('VECT') : 0
  const refineRow = decoded.refinement ? refineRowBytes(dims, decoded.refinement.bits) : 0
  // Where a search reads every cell (small snapshots), refinement bits have shards of their own, one a vector shard
  // (the same documents), which an approximate search never reads: it ranks its candidates by their int8 rows, for
  // a fourth fewer row bytes and no round trip after them. Where it reads some cells (large snapshots), a row's bits
  // come in its vector shard and refine its score: without them, too many near ties there change places
  // (bench/RESULTS.md, "Refinement bits in shards of their own").
  const bitsWithRows = cells !== undefined && !everyCell
  const rowBytes = dims * vectorElement + (decoded.scales ? 4 : 0) + (bitsWithRows ? refineRow : 0)
  const layout = cells && withVectors ? rowLayout(rowGroups, rows8!, dims, byDocument!, cells.chunks, decoded.chunkDocuments, d => (byDocument!.offsets[d + 1]! - byDocument!.offsets[d]!) * rowBytes, vectorBytes) : undefined
  const order = layout?.order
  /**
   * Chunk ranges of rows of `size` bytes, about `target` bytes each; with cells, the layout's ranges of
   * positions in `order`, of whole documents (an approximate search fetches the rows of the documents it rescores, whole).
   */
  const rowRanges = (size: number, target: number): [number, number][] => {
    if (!layout)
      return ranges(chunkCount, () => size, target)
    return layout.starts.map((from, k) => [from, layout.starts[k + 1] ?? order!.length])
  }
  /** With cells, a vector shard's rows of `tag` (`rowSize` bytes each): its documents' chunks, document after document. */
  const gathered = (tag: string, rowSize: number, from: number, to: number): PendingSection[] => {
    const section = sections.get(tag)
    if (!section)
      return []
    const { offsets, chunks } = byDocument!
    const out = new Uint8Array(rowSize * order!.subarray(from, to).reduce((sum, d) => sum + offsets[d + 1]! - offsets[d]!, 0))
    let at = 0
    for (const d of order!.subarray(from, to)) {
      for (let k = offsets[d]!; k < offsets[d + 1]!; k++, at += rowSize)
        out.set(bytes.subarray(section.offset + chunks[k]! * rowSize, section.offset + (chunks[k]! + 1) * rowSize), at)
    }
    return [{ tag, type: section.type as PendingSection['type'], bytes: out }]
  }
  if (withVectors) {
    for (const [from, to] of rowRanges(rowBytes, vectorBytes))
      planned.push({ kind: ShardKind.vectors, from, to })
  }
  if (refineRow > 0 && !bitsWithRows) {
    for (const [from, to] of rowRanges(refineRow, refinementBytes))
      planned.push({ kind: ShardKind.refinement, from, to })
  }
  for (const [cell] of (cells?.chunks ?? []).entries())
    planned.push({ kind: ShardKind.cell, from: cell, to: cell + 1 })

  const snapshotCrc = new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true)
  const vectorType = withVectors ? sections.get('VECT')!.type : 0
  /** An SDIR section listing shards [from, to): the core's, or the centroid shard's. */
  const directoryOf = (from: number, to: number): PendingSection => {
    const values = [vectorType, snapshotCrc, to - from]
    for (let s = from; s < to; s++)
      values.push(planned[s]!.kind, planned[s]!.from, planned[s]!.to, shards[s]!.length, crc32(shards[s]!, 16))
    if (values.length !== SDIR_HEAD + (to - from) * SDIR_ENTRY)
      fail('its shard directory is inconsistent.')
    return { tag: 'SDIR', type: ElementType.u32, bytes: u32Bytes(values) }
  }
  const shardOf = ({ kind, from, to }: typeof planned[number], index: number): Uint8Array => {
    const shrd = { tag: 'SHRD', type: ElementType.u32, bytes: u32Bytes([snapshotCrc, index, kind, from, to]) }
    let slices: PendingSection[]
    if (kind === ShardKind.lexical) {
      const { offsets } = lexical!
      const [first, last] = [offsets[from]!, offsets[to]!]
      slices = [...raw('LPST', first * elementBytes('LPST'), last * elementBytes('LPST')), ...raw('LFRQ', first, last)]
    }
    else if (kind === ShardKind.vectors) {
      slices = cells
        ? [...gathered('SCAL', 4, from, to), ...gathered('VECT', dims * vectorElement, from, to), ...bitsWithRows ? gathered('VREF', refineRow, from, to) : []]
        : [...raw('SCAL', from * 4, to * 4), ...raw('VECT', from * dims * vectorElement, to * dims * vectorElement)]
    }
    else if (kind === ShardKind.cell) {
      slices = cellSlices(cells!.chunks[from]!, chunkCount, dims, codeBits, decoded.vectors, decoded.scales)
    }
    else if (kind === ShardKind.centroids) {
      slices = [...centroidSections(cells!.centroids, to, dims), directoryOf(index + 1, planned.length), littleEndian(indexSection('RORD', order!.every((d, p) => d === p) ? new Uint32Array(0) : order!, documentCount - 1))]
    }
    else {
      slices = cells ? gathered('VREF', refineRow, from, to) : raw('VREF', from * refineRow, to * refineRow)
    }
    return assemble(dims, chunkCount, documentCount, [shrd, ...slices], FLAG_SHARD)
  }
  // The centroid shard lists the shards after it, so it is made last.
  const shards: Uint8Array[] = []
  for (const [index, entry] of planned.entries())
    shards[index] = entry.kind === ShardKind.centroids ? new Uint8Array(0) : shardOf(entry, index)
  if (listed !== undefined)
    shards[listed - 1] = shardOf(planned[listed - 1]!, listed - 1)

  const frequencies: PendingSection[] = lexical ? [{ tag: 'LDFV', type: ElementType.u8, bytes: varints(lexical.offsets) }] : []
  const partition: PendingSection[] = cells ? [{ tag: 'ACFG', type: ElementType.u32, bytes: u32Bytes([cells.chunks.length, probe, shards.length, codeBits, rescore]) }] : []
  const coreSections = [coreMeta(raw('META')[0]!.bytes), ...['CDOC', 'HEAD', 'LTRM'].flatMap(tag => raw(tag)), ...frequencies, ...raw('LLEN'), directoryOf(0, listed ?? shards.length), ...partition]
  const flags = (withVectors ? 0 : FLAG_NO_VECTORS) | FLAG_SHARDED_CORE
  return { core: assemble(dims, chunkCount, documentCount, coreSections, flags), shards }
}

/** A cell shard's slices: its chunks (CROW, ascending), their codes' steps (CSTP) and their codes (CCOD), in that order. */
function cellSlices(chunks: Uint32Array, chunkCount: number, dims: number, bits: number, vectors: Float32Array | Int8Array, scales: Float32Array | null): PendingSection[] {
  const crow = littleEndian(indexSection('CROW', chunks, chunkCount - 1))
  const values = new Float64Array(dims)
  const { steps, codes } = encodeCodes(chunks.length, dims, bits, (r) => {
    const c = chunks[r]!
    const scale = scales ? scales[c]! : 1
    for (let i = 0; i < dims; i++)
      values[i] = vectors[c * dims + i]! * scale
    return values
  })
  return [crow, { tag: 'CSTP', type: ElementType.f32, bytes: f32Bytes(steps) }, { tag: 'CCOD', type: ElementType.u8, bytes: codes }]
}

/** The centroid shard's sections: each unit centroid as 4-bit components (ACEN) times its scale (ACSC). */
function centroidSections(centroids: Float64Array, cellCount: number, dims: number): PendingSection[] {
  const quantized = new Int8Array(cellCount * dims)
  const scales = new Uint8Array(cellCount * 4)
  const dv = new DataView(scales.buffer)
  for (let j = 0; j < cellCount; j++) {
    let max = 0
    for (let i = j * dims; i < (j + 1) * dims; i++)
      max = Math.max(max, Math.abs(centroids[i]!))
    const scale = max / 7
    for (let i = j * dims; i < (j + 1) * dims; i++)
      quantized[i] = Math.max(-8, Math.min(7, Math.round(centroids[i]! / scale)))
    dv.setFloat32(j * 4, scale, true)
  }
  return [
    { tag: 'ACSC', type: ElementType.f32, bytes: scales },
    { tag: 'ACEN', type: ElementType.u8, bytes: packNibbles(quantized, cellCount, dims) },
  ]
}

/**
 * The core's META: the snapshot's, with the CRC-32 of its document table in
 * place of the table, which the knowledge module carries already.
 */
function coreMeta(meta: Uint8Array): PendingSection {
  const { documents, ...rest } = JSON.parse(new TextDecoder().decode(meta)) as { documents: unknown }
  const documentsCrc = crc32(new TextEncoder().encode(JSON.stringify(documents)))
  return { tag: 'META', type: ElementType.utf8, bytes: new TextEncoder().encode(JSON.stringify({ ...rest, documentsCrc })) }
}
