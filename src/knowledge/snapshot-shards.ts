// Splits a knowledge snapshot into a core and shards, for browsers (layout:
// src/runtime/knowledge/snapshot-shards.ts). Pure and deterministic: the same
// snapshot and options give the same files. The sections are copied byte for
// byte, so the sharded snapshot, once loaded, is the snapshot.

import type { PendingSection } from './snapshot'
import type { ShardEntry } from '../runtime/knowledge/snapshot-shards'
import { crc32, decodeContainer, ELEMENT_SIZE, ElementType, FLAG_NO_VECTORS, FLAG_SHARD, FLAG_SHARDED_CORE, readContainer, refineRowBytes } from '../runtime/knowledge/snapshot-reader'
import { SDIR_HEAD, SDIR_ENTRY, ShardKind } from '../runtime/knowledge/snapshot-shards'
import { assemble } from './snapshot'

/** How big shards are made. */
export interface ShardOptions {
  /**
   * Bytes of postings per lexical shard (default 16,384): terms are grouped in
   * vocabulary order until the next would pass it (a term bigger than that is a
   * shard of its own). A lexical search fetches the shards of its terms.
   */
  lexicalBytes?: number
  /** Bytes of vectors per vector shard (default 1,048,576): whole chunk rows. Vector search fetches them all, in parallel. */
  vectorBytes?: number
  /**
   * Bytes of refinement bits per refinement shard (default 65,536; int8
   * snapshots): whole chunk rows. A vector search fetches those of the chunks
   * it rescores, the documents near its cut.
   */
  refinementBytes?: number
}

/** At 100k chunks, 16 KiB shards cut a short query's first lexical bytes by a sixth against 64 KiB (bench/shards.bench.mjs), for the same number of files. */
export const DEFAULT_LEXICAL_SHARD_BYTES = 16 * 1024
export const DEFAULT_VECTOR_SHARD_BYTES = 1024 * 1024
/** At 100k chunks, 64 KiB shards keep a short query's first lexical bytes where they were (a smaller shard directory in the core) for 1 % more bytes before the first vector result than 16 KiB (bench/shards.bench.mjs). */
export const DEFAULT_REFINEMENT_SHARD_BYTES = 64 * 1024

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

/** Splits `snapshot` (the bytes `encodeSnapshot` wrote, checked here) into a core and shards. */
export function encodeShardedSnapshot(snapshot: Uint8Array, options: ShardOptions = {}): ShardedSnapshotFiles {
  const lexicalBytes = positiveSize(options.lexicalBytes, 'lexicalBytes', DEFAULT_LEXICAL_SHARD_BYTES)
  const vectorBytes = positiveSize(options.vectorBytes, 'vectorBytes', DEFAULT_VECTOR_SHARD_BYTES)
  const refinementBytes = positiveSize(options.refinementBytes, 'refinementBytes', DEFAULT_REFINEMENT_SHARD_BYTES)
  const container = readContainer(snapshot, true, FLAG_NO_VECTORS)
  const decoded = decodeContainer(container, { sharded: false })
  const { bytes, sections, dimensions: dims, chunkCount, documentCount } = container
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
    for (const [from, to] of ranges(lexical.terms.length, t => (offsets[t + 1]! - offsets[t]!) * perPosting, lexicalBytes))
      planned.push({ kind: ShardKind.lexical, from, to })
  }
  const withVectors = decoded.encoding !== 'none'
  const vectorElement = withVectors ? elementBytes('VECT') : 0
  const refineRow = decoded.refinement ? refineRowBytes(dims, decoded.refinement.bits) : 0
  if (withVectors) {
    const rowBytes = dims * vectorElement + (decoded.scales ? 4 : 0)
    for (const [from, to] of ranges(chunkCount, () => rowBytes, vectorBytes))
      planned.push({ kind: ShardKind.vectors, from, to })
  }
  if (refineRow > 0) {
    for (const [from, to] of ranges(chunkCount, () => refineRow, refinementBytes))
      planned.push({ kind: ShardKind.refinement, from, to })
  }

  const snapshotCrc = new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true)
  const shards = planned.map(({ kind, from, to }, index) => {
    const shrd = { tag: 'SHRD', type: ElementType.u32, bytes: u32Bytes([snapshotCrc, index, kind, from, to]) }
    let slices: PendingSection[]
    if (kind === ShardKind.lexical) {
      const { offsets } = lexical!
      const [first, last] = [offsets[from]!, offsets[to]!]
      slices = [...raw('LPST', first * elementBytes('LPST'), last * elementBytes('LPST')), ...raw('LFRQ', first, last)]
    }
    else if (kind === ShardKind.vectors) {
      slices = [...raw('SCAL', from * 4, to * 4), ...raw('VECT', from * dims * vectorElement, to * dims * vectorElement)]
    }
    else {
      slices = raw('VREF', from * refineRow, to * refineRow)
    }
    return assemble(dims, chunkCount, documentCount, [shrd, ...slices], FLAG_SHARD)
  })

  const directory = [withVectors ? sections.get('VECT')!.type : 0, snapshotCrc, shards.length]
  for (const [s, { kind, from, to }] of planned.entries())
    directory.push(kind, from, to, shards[s]!.length, crc32(shards[s]!, 16))
  if (directory.length !== SDIR_HEAD + shards.length * SDIR_ENTRY)
    fail('its shard directory is inconsistent.')
  const frequencies: PendingSection[] = lexical ? [{ tag: 'LDFV', type: ElementType.u8, bytes: varints(lexical.offsets) }] : []
  const coreSections = [coreMeta(raw('META')[0]!.bytes), ...['CDOC', 'HEAD', 'LTRM'].flatMap(tag => raw(tag)), ...frequencies, ...raw('LLEN'), { tag: 'SDIR', type: ElementType.u32, bytes: u32Bytes(directory) }]
  const flags = (withVectors ? 0 : FLAG_NO_VECTORS) | FLAG_SHARDED_CORE
  return { core: assemble(dims, chunkCount, documentCount, coreSections, flags), shards }
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

/** Each term's posting count (offsets[t + 1] − offsets[t]) as an unsigned LEB128 varint. */
function varints(offsets: Uint32Array): Uint8Array {
  const out: number[] = []
  for (let t = 0; t + 1 < offsets.length; t++) {
    let value = offsets[t + 1]! - offsets[t]!
    while (value >= 0x80) {
      out.push((value & 0x7F) | 0x80)
      value = Math.floor(value / 0x80)
    }
    out.push(value)
  }
  return Uint8Array.from(out)
}

/** Little-endian u32 bytes of `values`. */
function u32Bytes(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4)
  const dv = new DataView(out.buffer)
  for (const [i, value] of values.entries())
    dv.setUint32(i * 4, value, true)
  return out
}
