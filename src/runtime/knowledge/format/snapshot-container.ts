// A snapshot file's header and section directory, checked (whole snapshots,
// sharded cores and shards alike), and the typed views of its sections.
// Zero-dependency and browser-safe: typed arrays and DataView only.

import type { ElementTypeCode, IndexArray } from './snapshot-layout'
import { crc32 } from './crc32'
import { DIRECTORY_ENTRY_BYTES, ELEMENT_SIZE, ElementType, FLAG_SHARDED_CORE, HEADER_BYTES, SECTION_ALIGN, SNAPSHOT_MAGIC, SNAPSHOT_VERSION } from './snapshot-layout'

export type SnapshotErrorCode = 'not-a-snapshot' | 'unsupported-version' | 'truncated' | 'checksum' | 'corrupt' | 'sharded'

/** The bytes are not a readable snapshot; the message says why. Never a partial result. */
export class SnapshotError extends Error {
  override name = 'SnapshotError'
  constructor(readonly code: SnapshotErrorCode, message: string) {
    super(message)
  }
}

/** A section's place in the file and its element type. */
export interface Section { type: number, offset: number, length: number }

const isLittleEndian = () => new Uint8Array(Uint16Array.of(1).buffer)[0] === 1
const LITTLE_ENDIAN = /* @__PURE__ */ isLittleEndian()

export function corrupt(message: string): never {
  throw new SnapshotError('corrupt', `Corrupt knowledge snapshot: ${message}. Rebuild it.`)
}

export function view(bytes: Uint8Array, section: Section, type: number, count: number): Uint8Array | Int8Array | Uint16Array | Uint32Array | Float32Array {
  const size = ELEMENT_SIZE[type as ElementTypeCode]
  if (section.length !== count * size)
    corrupt(`a section holds ${section.length} bytes where ${count * size} were expected`)
  const at = bytes.byteOffset + section.offset
  const Ctor = [Uint8Array, Uint8Array, Uint16Array, Uint32Array, Int8Array, Float32Array][type]!
  if (size === 1 || (LITTLE_ENDIAN && at % size === 0))
    return new Ctor(bytes.buffer as ArrayBuffer, at, count) // zero-copy
  const copy = new Ctor(count)
  const dv = new DataView(bytes.buffer, at, section.length)
  for (let i = 0; i < count; i++)
    copy[i] = size === 2 ? dv.getUint16(i * 2, true) : type === ElementType.f32 ? dv.getFloat32(i * 4, true) : dv.getUint32(i * 4, true)
  return copy
}

export function indexArray(bytes: Uint8Array, section: Section | undefined, tag: string, count: number, bound: number): IndexArray {
  if (!section)
    corrupt(`section ${tag} is missing`)
  if (section.type !== ElementType.u16 && section.type !== ElementType.u32)
    corrupt(`section ${tag} has element type ${section.type}`)
  const array = view(bytes, section, section.type, count) as IndexArray
  for (let i = 0; i < count; i++) {
    if (array[i]! >= bound)
      corrupt(`${tag}[${i}] = ${array[i]} is out of range (< ${bound})`)
  }
  return array
}

/** A snapshot file's checked header and section directory: whole snapshots, sharded cores and shards alike. */
export interface SnapshotContainer {
  bytes: Uint8Array
  version: number
  flags: number
  /** The CRC-32 the header holds (checked with `verify`). */
  crc: number
  dimensions: number
  chunkCount: number
  documentCount: number
  sections: Map<string, Section>
}

/** The bytes of an ArrayBuffer, a typed array or a Node Buffer. */
export function bytesOf(input: ArrayBufferLike | ArrayBufferView): Uint8Array {
  return input instanceof Uint8Array
    ? input
    : ArrayBuffer.isView(input)
      ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
      : new Uint8Array(input)
}

/** Reads and checks the header and section directory of a snapshot file whose flags are within `knownFlags`. */
export function readContainer(input: ArrayBufferLike | ArrayBufferView, verify: boolean, knownFlags: number): SnapshotContainer {
  const bytes = bytesOf(input)
  if (bytes.length < 8 || SNAPSHOT_MAGIC.some((b, i) => bytes[i] !== b))
    throw new SnapshotError('not-a-snapshot', 'Not a knowledge snapshot (wrong magic bytes).')
  if (bytes.length < HEADER_BYTES)
    throw new SnapshotError('truncated', `Truncated knowledge snapshot: ${bytes.length} bytes, shorter than its ${HEADER_BYTES}-byte header. Rebuild it.`)
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = dv.getUint16(8, true)
  if (version !== SNAPSHOT_VERSION)
    throw new SnapshotError('unsupported-version', `Unsupported knowledge snapshot format version ${version}; this reader reads version ${SNAPSHOT_VERSION}. Rebuild the snapshot with the same version of unplugin-skill-kit.`)
  const byteLength = dv.getUint32(16, true)
  if (bytes.length < byteLength)
    throw new SnapshotError('truncated', `Truncated knowledge snapshot: ${bytes.length} of ${byteLength} bytes. Rebuild it, or check that it was transferred completely.`)
  if (bytes.length > byteLength)
    corrupt(`${bytes.length - byteLength} unexpected bytes after its end`)
  const crc = dv.getUint32(12, true)
  if (verify) {
    const actual = crc32(bytes, 16)
    if (actual !== crc)
      throw new SnapshotError('checksum', `Corrupt knowledge snapshot: checksum mismatch (CRC-32 ${actual.toString(16).padStart(8, '0')}, expected ${crc.toString(16).padStart(8, '0')}). Rebuild it.`)
  }
  const flags = dv.getUint16(10, true)
  if ((flags & FLAG_SHARDED_CORE) !== 0 && (knownFlags & FLAG_SHARDED_CORE) === 0)
    throw new SnapshotError('sharded', 'This is the core of a sharded knowledge snapshot (the plugin\'s shards option): it is read with its shards by the generated knowledge module, not decoded alone.')
  if ((flags & ~knownFlags) !== 0 || dv.getUint32(36, true) !== 0)
    corrupt('unknown header flags')
  const sectionCount = dv.getUint32(32, true)
  if (HEADER_BYTES + sectionCount * DIRECTORY_ENTRY_BYTES > byteLength)
    corrupt('its section directory runs past its end')

  const sections = new Map<string, Section>()
  for (let s = 0; s < sectionCount; s++) {
    const at = HEADER_BYTES + s * DIRECTORY_ENTRY_BYTES
    const tag = String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!)
    const section = { type: dv.getUint32(at + 4, true), offset: dv.getUint32(at + 8, true), length: dv.getUint32(at + 12, true) }
    if (section.type >= ELEMENT_SIZE.length || section.offset % SECTION_ALIGN !== 0 || section.offset < HEADER_BYTES + sectionCount * DIRECTORY_ENTRY_BYTES || section.offset + section.length > byteLength)
      corrupt(`section ${JSON.stringify(tag)} has an invalid type, offset or length`)
    if (sections.has(tag))
      corrupt(`section ${tag} appears twice`)
    sections.set(tag, section)
  }
  return { bytes, version, flags, crc, dimensions: dv.getUint32(20, true), chunkCount: dv.getUint32(24, true), documentCount: dv.getUint32(28, true), sections }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })
/** Each container's META, parsed once: a sharded core's is read for its documents' CRC-32 and again to decode it, and it is the core's largest section (the heading table). */
const metas = new WeakMap<SnapshotContainer, unknown>()

/** The container's META section as parsed JSON (not yet checked beyond being JSON). */
export function metaOf(container: SnapshotContainer): unknown {
  if (metas.has(container))
    return metas.get(container)
  const section = container.sections.get('META')
  if (!section)
    corrupt('section META is missing')
  if (section.type !== ElementType.utf8)
    corrupt('section META is not text')
  let text: string
  try {
    text = utf8.decode(container.bytes.subarray(section.offset, section.offset + section.length))
  }
  catch {
    corrupt('section META is not valid UTF-8')
  }
  let meta: unknown
  try {
    meta = JSON.parse(text)
  }
  catch {
    corrupt('section META is not valid JSON')
  }
  metas.set(container, meta)
  return meta
}
