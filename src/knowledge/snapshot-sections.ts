// The sections of a snapshot file to write, and the file that holds them:
// header, section directory and CRC-32 (layout:
// src/runtime/knowledge/format/snapshot-layout.ts). Shared by whole snapshots,
// sharded cores and shards (snapshot-shards.ts).

import type { ElementTypeCode } from '../runtime/knowledge/format/snapshot-layout'
import { crc32 } from 'node:zlib'
import { DIRECTORY_ENTRY_BYTES, ElementType, HEADER_BYTES, SECTION_ALIGN, SNAPSHOT_MAGIC, SNAPSHOT_VERSION } from '../runtime/knowledge/format/snapshot-layout'

/** Refuses input the format cannot hold, naming what is wrong with it. */
export function fail(message: string): never {
  throw new TypeError(`Cannot encode the knowledge snapshot: ${message}`)
}

/** A section to write: its tag, element type and little-endian bytes. */
export interface PendingSection { tag: string, type: ElementTypeCode, bytes: Uint8Array }

export const bytesOf = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
export const indexSection = (tag: string, values: ArrayLike<number>, max: number): PendingSection =>
  max > 0xFFFF
    ? { tag, type: ElementType.u32, bytes: bytesOf(new Uint32Array(values)) }
    : { tag, type: ElementType.u16, bytes: bytesOf(new Uint16Array(values)) }

const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1

/** Typed-array bytes in little-endian order whatever the platform. */
export function littleEndian(section: PendingSection): PendingSection {
  const size = section.type === ElementType.u16 ? 2 : section.type === ElementType.u32 || section.type === ElementType.f32 ? 4 : 1
  if (LITTLE_ENDIAN || size === 1)
    return section
  const out = new Uint8Array(section.bytes.length)
  for (let i = 0; i < out.length; i += size) {
    for (let k = 0; k < size; k++)
      out[i + k] = section.bytes[i + size - 1 - k]!
  }
  return { ...section, bytes: out }
}

/** The snapshot file of `sections` (already little-endian), header, directory and CRC-32 included. */
export function assemble(dims: number, chunkCount: number, documentCount: number, sections: PendingSection[], flags: number): Uint8Array {
  const directoryEnd = HEADER_BYTES + sections.length * DIRECTORY_ENTRY_BYTES
  let end = directoryEnd
  const offsets = sections.map((section) => {
    const offset = Math.ceil(end / SECTION_ALIGN) * SECTION_ALIGN
    end = offset + section.bytes.length
    return offset
  })
  if (end > 0xFFFFFFFF)
    fail(`it would take ${end} bytes, more than the format's 4 GiB.`)
  const out = new Uint8Array(end)
  const dv = new DataView(out.buffer)
  out.set(SNAPSHOT_MAGIC, 0)
  dv.setUint16(8, SNAPSHOT_VERSION, true)
  dv.setUint16(10, flags, true)
  dv.setUint32(16, end, true)
  dv.setUint32(20, dims, true)
  dv.setUint32(24, chunkCount, true)
  dv.setUint32(28, documentCount, true)
  dv.setUint32(32, sections.length, true)
  dv.setUint32(36, 0, true)
  for (const [s, section] of sections.entries()) {
    const at = HEADER_BYTES + s * DIRECTORY_ENTRY_BYTES
    for (let k = 0; k < 4; k++)
      out[at + k] = section.tag.charCodeAt(k)
    dv.setUint32(at + 4, section.type, true)
    dv.setUint32(at + 8, offsets[s]!, true)
    dv.setUint32(at + 12, section.bytes.length, true)
    out.set(section.bytes, offsets[s])
  }
  // zlib's CRC-32 is the reader's (IEEE), in native code: 16 ms instead of 99 on an 88 MB snapshot.
  dv.setUint32(12, crc32(out.subarray(16)), true)
  return out
}
