// Reads the binary knowledge snapshot written at build time by
// `src/knowledge/snapshot.ts`. Zero-dependency and browser-safe: it needs only
// typed arrays, DataView and TextDecoder.
//
// Byte layout (format version 2). All integers little-endian.
//
//   offset  size  field
//   0       8     magic 89 53 4B 56 0D 0A 1A 0A ("\x89SKV\r\n\x1a\n", PNG-style: catches text-mode mangling)
//   8       2     u16 format version (2; version 1 had the same layout, but its lexical terms were
//                 plural-folded words with no fields: its queries would no longer meet its terms)
//   10      2     u16 flags: bit 0 NO_VECTORS (a lexical-only snapshot, built with no model:
//                 dimensions 0, no SCAL, VECT or VREF, and the lexical index required);
//                 bit 1 SHARDED_CORE and bit 2 SHARD: the core and the shards of a sharded
//                 snapshot (see snapshot-shards.ts), which `decodeSnapshot` refuses;
//                 readers reject other bits
//   12      4     u32 CRC-32 (IEEE 802.3, as zlib's crc32) of bytes [16, byteLength)
//   16      4     u32 byteLength of the whole snapshot
//   20      4     u32 dimensions
//   24      4     u32 chunk count
//   28      4     u32 document count
//   32      4     u32 section count S
//   36      4     u32 reserved (0)
//   40      16×S  section directory, one entry per section:
//                   +0  4 ASCII tag, +4 u32 element type (0 UTF-8, 1 u8, 2 u16, 3 u32, 4 i8, 5 f32),
//                   +8  u32 byte offset (a multiple of 16), +12 u32 byte length
//   …             sections in directory order, each starting on a 16-byte boundary, zero-padded between.
//
// Sections (the encoder writes them in this order; readers ignore unknown tags):
//   META  UTF-8   JSON {"model": fingerprint ("" with NO_VECTORS), "documents": [[id, description, category, categories[],
//                 tags[], path, tokenCount], …] sorted by id, "headings": [[heading, …], …] (only with HEAD)}
//   CDOC  u16|u32 chunk → document index (chunk count entries)
//   HEAD  u16|u32 chunk → index into META.headings (optional)
//   SCAL  f32     per-chunk scale of int8 vectors (int8 only)
//   VECT  f32|i8  chunk vectors, row-major (chunk count × dimensions; absent with NO_VECTORS); f32 rows are unit-normalised,
//                 i8 rows hold hi = floor((w + L/2) / L) of w = round(v / (scale / L)), scale = max|v| / 127,
//                 L = 2^META.refineBits (1 without VREF), so hi ≈ v / scale (symmetric quantisation)
//   VREF  u8      int8 only, optional: META.refineBits (1–7) more bits of each component, lo = w − L·hi
//                 stored as lo + L/2, packed from the low bits up, ceil(dimensions · bits / 8) bytes per
//                 chunk; with VECT it gives w, v ≈ w · scale / L
//   LTRM  UTF-8   lexical vocabulary: terms sorted by UTF-16 code units, joined by "\n"  ┐
//   LOFF  u32     term → first posting (term count + 1 entries)                         │ the lexical
//   LPST  u16|u32 posting → chunk index, ascending within a term                        │ index, all
//   LFRQ  u8      posting → term frequency in that chunk (capped at 255)                │ or none (all
//   LLEN  u16|u32 chunk → token count                                                   ┘ with NO_VECTORS)

import type { LexicalIndex } from '../lexical/lexical-index'

export const SNAPSHOT_MAGIC = /* @__PURE__ */ Uint8Array.of(0x89, 0x53, 0x4B, 0x56, 0x0D, 0x0A, 0x1A, 0x0A)
export const SNAPSHOT_VERSION = 2
export const HEADER_BYTES = 40
export const DIRECTORY_ENTRY_BYTES = 16
export const SECTION_ALIGN = 16
/** Header flag of a snapshot without vectors (built with no model): lexical search only. */
export const FLAG_NO_VECTORS = 1
/** Header flag of the core of a sharded snapshot (see snapshot-shards.ts); `decodeSnapshot` refuses it. */
export const FLAG_SHARDED_CORE = 2
/** Header flag of one shard of a sharded snapshot. */
export const FLAG_SHARD = 4
/** Bytes of one chunk's row in the VREF section. */
export const refineRowBytes = (dimensions: number, bits: number): number => Math.ceil(dimensions * bits / 8)

/** Element types of the section directory. */
export const ElementType = { utf8: 0, u8: 1, u16: 2, u32: 3, i8: 4, f32: 5 } as const
export type ElementTypeCode = typeof ElementType[keyof typeof ElementType]
export const ELEMENT_SIZE = [1, 1, 2, 4, 1, 4] as const

/** One document of the knowledge folder; its body ships separately. */
export interface SnapshotDocument {
  id: string
  description: string
  category: string
  categories: string[]
  tags: string[]
  /** Path of the source file, relative to the knowledge folder. */
  path: string
  /** Token count of the document body: by the embedding model's tokenizer, or estimated (4 characters a token) without a model. */
  tokenCount: number
}

export type IndexArray = Uint16Array | Uint32Array

export interface Snapshot {
  /** Format version of the bytes this was decoded from. */
  version: number
  /** Fingerprint of the embedding model and chunking settings; a query must be embedded with the same. Empty without vectors. */
  model: string
  /** 0 without vectors. */
  dimensions: number
  /** `none`: a lexical-only snapshot (built with no model): `vectors` is empty, and only `lexical` search works. */
  encoding: 'float32' | 'int8' | 'none'
  chunkCount: number
  /** Sorted by `id` (UTF-16 code units), so a lower document index means a lower ID. */
  documents: SnapshotDocument[]
  /** Chunk → index into `documents`. */
  chunkDocuments: IndexArray
  /** Chunk vectors, row-major: chunk `c` is `vectors.subarray(c * dimensions, (c + 1) * dimensions)`. */
  vectors: Float32Array | Int8Array
  /** int8 only: chunk `c`'s vector is `vectors[c…] * scales[c]`. */
  scales: Float32Array | null
  /**
   * int8 only, when present: `bits` more bits per component (see the VREF section), so that
   * chunk `c`'s component `i` is `(L · vectors[c·d + i] + lo − L/2) · scales[c] / L`, L = 2^bits.
   */
  refinement: { bits: number, data: Uint8Array, pending?: RefinementPending } | null
  /** Unique heading paths; `chunkHeadings[c]` indexes it. Null when the snapshot has none. */
  headings: string[][] | null
  chunkHeadings: IndexArray | null
  /** The lexical (BM25) index of the same chunks, when built. */
  lexical: LexicalIndex | null
}

/**
 * The refinement bits not loaded yet (a sharded snapshot's, fetched on
 * demand): a search that rescores a chunk whose bits are `missing` adds it to
 * `wanted`, and its ranking stands only once they are loaded and it is run
 * again (see `createKnowledgeBase`).
 */
export interface RefinementPending {
  missing: (chunk: number) => boolean
  wanted: Set<number>
}

export type SnapshotErrorCode = 'not-a-snapshot' | 'unsupported-version' | 'truncated' | 'checksum' | 'corrupt' | 'sharded'

/** The bytes are not a readable snapshot; the message says why. Never a partial result. */
export class SnapshotError extends Error {
  override name = 'SnapshotError'
  constructor(readonly code: SnapshotErrorCode, message: string) {
    super(message)
  }
}

/** A document as a row of META's document table. */
export function documentRow(doc: SnapshotDocument): unknown[] {
  return [doc.id, doc.description, doc.category, doc.categories, doc.tags, doc.path, doc.tokenCount]
}

// --- CRC-32 -----------------------------------------------------------------

let crcTable: Int32Array | undefined

function makeCrcTable(): Int32Array {
  // Slicing-by-4 tables: table k maps a byte that is k positions further back.
  const table = new Int32Array(1024)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++)
      c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1
    table[n] = c
  }
  for (let n = 0; n < 256; n++) {
    let c = table[n]!
    for (let k = 1; k < 4; k++) {
      c = table[c & 0xFF]! ^ (c >>> 8)
      table[k * 256 + n] = c
    }
  }
  return table
}

/** CRC-32 (the zlib / PNG polynomial) of `bytes`, as an unsigned integer. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = crcTable ??= makeCrcTable()
  let c = -1
  let i = start
  for (const last = end - 3; i < last; i += 4) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)
    c = t[768 + (c & 0xFF)]! ^ t[512 + ((c >>> 8) & 0xFF)]! ^ t[256 + ((c >>> 16) & 0xFF)]! ^ t[c >>> 24]!
  }
  for (; i < end; i++)
    c = t[(c ^ bytes[i]!) & 0xFF]! ^ (c >>> 8)
  return (c ^ -1) >>> 0
}

// --- Decoding ----------------------------------------------------------------

export interface DecodeOptions {
  /**
   * Verify the CRC-32 (default true). About 1 ms per MB; skipping it still
   * checks every length, offset and index, so a damaged file cannot read out of
   * bounds, but flipped vector bytes would go unnoticed.
   */
  verify?: boolean
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

const utf8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true })

function text(bytes: Uint8Array, section: Section, tag: string): string {
  if (section.type !== ElementType.utf8)
    corrupt(`section ${tag} is not text`)
  try {
    return utf8.decode(bytes.subarray(section.offset, section.offset + section.length))
  }
  catch {
    corrupt(`section ${tag} is not valid UTF-8`)
  }
}

const isString = (value: unknown): value is string => typeof value === 'string'
const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString)

function readDocuments(raw: unknown, count: number): SnapshotDocument[] {
  if (!Array.isArray(raw) || raw.length !== count)
    corrupt(`the document table does not hold ${count} documents`)
  const documents: SnapshotDocument[] = []
  for (const [i, row] of raw.entries()) {
    if (!Array.isArray(row) || row.length !== 7)
      corrupt(`document ${i} is not a 7-field row`)
    const [id, description, category, categories, tags, path, tokenCount] = row as unknown[]
    if (!isString(id) || !isString(description) || !isString(category) || !isStringArray(categories) || !isStringArray(tags) || !isString(path) || !Number.isSafeInteger(tokenCount) || (tokenCount as number) < 0)
      corrupt(`document ${i} has a field of the wrong type`)
    if (i > 0 && !(documents[i - 1]!.id < id))
      corrupt(`document IDs are not unique and sorted at ${JSON.stringify(id)}`)
    documents.push({ id, description, category, categories, tags, path, tokenCount: tokenCount as number })
  }
  return documents
}

/** How a snapshot is read: whole, or as the core of a sharded one (see snapshot-shards.ts), whose slices arrive later. */
export interface ReadKind {
  /**
   * Sharded: the postings and vectors are allocated empty, for the shards to fill; VECT's element
   * type is given, and the documents, which the core leaves to its module (checked by the caller).
   */
  sharded: false | { vectorType: number, documents: SnapshotDocument[] }
}

/** The posting → chunk array for `chunkCount` chunks, as the encoder types it. */
export const postingArray = (chunkCount: number, length: number): IndexArray =>
  chunkCount - 1 > 0xFFFF ? new Uint32Array(length) : new Uint16Array(length)

function readLexical(bytes: Uint8Array, sections: Map<string, Section>, chunkCount: number, documentCount: number, chunkDocuments: IndexArray, { sharded }: ReadKind): LexicalIndex | null {
  const tags = sharded ? ['LTRM', 'LDFV', 'LLEN'] : ['LTRM', 'LOFF', 'LPST', 'LFRQ', 'LLEN']
  const present = tags.filter(tag => sections.has(tag))
  if (present.length === 0)
    return null
  if (present.length !== tags.length)
    corrupt(`the lexical index lacks ${tags.filter(t => !sections.has(t)).join(', ')}`)
  const vocabulary = text(bytes, sections.get('LTRM')!, 'LTRM')
  const terms = vocabulary === '' ? [] : vocabulary.split('\n')
  for (let i = 1; i < terms.length; i++) {
    if (!(terms[i - 1]! < terms[i]!))
      corrupt('lexical terms are not unique and sorted')
  }
  const offsets = sharded ? offsetsOfFrequencies(bytes, sections.get('LDFV')!, terms.length) : lexicalOffsets(bytes, sections.get('LOFF')!, terms.length)
  const postingCount = offsets[terms.length]!
  if (offsets[0] !== 0)
    corrupt('lexical offsets do not start at 0')
  for (let t = 0; t < terms.length; t++) {
    if (offsets[t + 1]! <= offsets[t]! || offsets[t + 1]! > postingCount)
      corrupt(`lexical term ${t} has an empty or out-of-range posting list`)
  }
  let postings: IndexArray
  let frequencies: Uint8Array
  if (sharded) {
    postings = postingArray(chunkCount, postingCount)
    frequencies = new Uint8Array(postingCount)
  }
  else {
    const pstSection = sections.get('LPST')!
    postings = indexArray(bytes, pstSection, 'LPST', pstSection.length / ELEMENT_SIZE[pstSection.type as ElementTypeCode], chunkCount)
    if (postings.length !== postingCount)
      corrupt('lexical postings and offsets disagree')
    const frqSection = sections.get('LFRQ')!
    if (frqSection.type !== ElementType.u8)
      corrupt('section LFRQ is not u8')
    frequencies = view(bytes, frqSection, ElementType.u8, postingCount) as Uint8Array
    checkPostings(offsets, 0, terms.length, postings, frequencies, 0)
  }
  const lenSection = sections.get('LLEN')
  const lengths = indexArray(bytes, lenSection, 'LLEN', chunkCount, 2 ** 32)
  return { terms, offsets, postings, frequencies, lengths, chunkDocuments, documentCount }
}

function lexicalOffsets(bytes: Uint8Array, section: Section, termCount: number): Uint32Array {
  if (section.type !== ElementType.u32)
    corrupt('section LOFF is not u32')
  return view(bytes, section, ElementType.u32, termCount + 1) as Uint32Array
}

/**
 * The term → first posting offsets of a sharded core, from its LDFV section:
 * each term's posting count (its document frequency) as an unsigned LEB128
 * varint, a byte for most terms where LOFF takes four (and compresses worse).
 */
function offsetsOfFrequencies(bytes: Uint8Array, section: Section, termCount: number): Uint32Array {
  if (section.type !== ElementType.u8)
    corrupt('section LDFV is not u8')
  const offsets = new Uint32Array(termCount + 1)
  let at = section.offset
  const end = section.offset + section.length
  for (let t = 0; t < termCount; t++) {
    let value = 0
    let shift = 0
    let byte: number
    do {
      if (at >= end || shift > 28)
        corrupt('section LDFV does not hold a frequency per term')
      byte = bytes[at++]!
      value += (byte & 0x7F) * 2 ** shift
      shift += 7
    } while (byte & 0x80)
    if (offsets[t]! + value > 0xFFFFFFFF)
      corrupt('section LDFV adds up to more postings than the format holds')
    offsets[t + 1] = offsets[t]! + value
  }
  if (at !== end)
    corrupt('section LDFV has bytes after its last frequency')
  return offsets
}

/**
 * Checks the postings of terms `from` to `to` (exclusive): ascending chunks within a term, no zero
 * frequency. `postings[p - base]` is posting `p` (a shard holds a slice).
 */
export function checkPostings(offsets: Uint32Array, from: number, to: number, postings: IndexArray, frequencies: Uint8Array, base: number): void {
  for (let t = from; t < to; t++) {
    for (let p = offsets[t]! + 1 - base; p < offsets[t + 1]! - base; p++) {
      if (postings[p]! <= postings[p - 1]!)
        corrupt(`lexical postings of term ${t} are not ascending`)
    }
  }
  if (frequencies.includes(0))
    corrupt('a lexical term frequency is 0')
}

/** Checks that chunk scales are positive and finite (`first` is the chunk of `scales[0]`). */
export function checkScales(scales: Float32Array, first: number): void {
  for (let c = 0; c < scales.length; c++) {
    if (!(scales[c]! > 0 && scales[c]! < Infinity))
      corrupt(`the scale of chunk ${first + c} is ${scales[c]}`)
  }
}

/** The refinement bits of META, checked. */
function refineBitsOf(encoding: Snapshot['encoding'], refineBits: unknown): number {
  const bits = refineBits as number
  if (encoding !== 'int8' || !Number.isInteger(bits) || bits < 1 || bits > 7)
    corrupt('a VREF section without int8 vectors, as other than u8, or without META.refineBits from 1 to 7')
  return bits
}

/** The VECT, SCAL and VREF sections of a snapshot with vectors (or, sharded, empty arrays of their size). */
function readVectors(bytes: Uint8Array, sections: Map<string, Section>, refineBits: unknown, chunkCount: number, dimensions: number, { sharded }: ReadKind): Pick<Snapshot, 'vectors' | 'encoding' | 'scales' | 'refinement'> {
  const vectSection = sections.get('VECT')
  if (!vectSection && !sharded)
    corrupt('section VECT is missing')
  const type = sharded ? sharded.vectorType : vectSection!.type
  if (type !== ElementType.f32 && type !== ElementType.i8)
    corrupt('section VECT is neither f32 nor i8')
  if (chunkCount > 0 && dimensions === 0)
    corrupt('it has chunks but 0 dimensions')
  const encoding = type === ElementType.i8 ? 'int8' : 'float32'
  if (sharded) {
    const bits = refineBits === undefined ? undefined : refineBitsOf(encoding, refineBits)
    return {
      vectors: encoding === 'int8' ? new Int8Array(chunkCount * dimensions) : new Float32Array(chunkCount * dimensions),
      encoding,
      scales: encoding === 'int8' ? new Float32Array(chunkCount) : null,
      refinement: bits === undefined ? null : { bits, data: new Uint8Array(chunkCount * refineRowBytes(dimensions, bits)) },
    }
  }
  const vectors = view(bytes, vectSection!, type, chunkCount * dimensions) as Float32Array | Int8Array
  let scales: Float32Array | null = null
  if (encoding === 'int8') {
    const scalSection = sections.get('SCAL')
    if (!scalSection || scalSection.type !== ElementType.f32)
      corrupt('int8 vectors without an f32 SCAL section')
    scales = view(bytes, scalSection, ElementType.f32, chunkCount) as Float32Array
    checkScales(scales, 0)
  }
  let refinement: Snapshot['refinement'] = null
  const vrefSection = sections.get('VREF')
  if (vrefSection) {
    const bits = refineBitsOf(encoding, refineBits)
    if (vrefSection.type !== ElementType.u8)
      corrupt('a VREF section without int8 vectors, as other than u8, or without META.refineBits from 1 to 7')
    refinement = { bits, data: view(bytes, vrefSection, ElementType.u8, chunkCount * refineRowBytes(dimensions, bits)) as Uint8Array }
  }
  return { vectors, encoding, scales, refinement }
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

/**
 * Decodes a snapshot from its bytes (an ArrayBuffer, a Uint8Array or a Node
 * Buffer). Typed arrays are views into `bytes` where alignment allows (which
 * keeps `bytes` alive), else copies. Throws a SnapshotError for anything that is
 * not a complete, intact snapshot of a supported version.
 */
export function decodeSnapshot(input: ArrayBufferLike | ArrayBufferView, { verify = true }: DecodeOptions = {}): Snapshot {
  return decodeContainer(readContainer(input, verify, FLAG_NO_VECTORS), { sharded: false })
}

/**
 * The snapshot a container holds; for a sharded core (`kind.sharded`), with
 * zero-filled postings, frequencies and vectors of full size for its shards
 * to fill (see snapshot-shards.ts).
 */
export function decodeContainer({ bytes, version, flags, dimensions, chunkCount, documentCount, sections }: SnapshotContainer, kind: ReadKind): Snapshot {
  const withVectors = (flags & FLAG_NO_VECTORS) === 0
  const metaSection = sections.get('META')
  if (!metaSection)
    corrupt('section META is missing')
  let meta: { model?: unknown, documents?: unknown, headings?: unknown, refineBits?: unknown }
  try {
    meta = JSON.parse(text(bytes, metaSection, 'META'))
  }
  catch (error) {
    if (error instanceof SnapshotError)
      throw error
    corrupt('section META is not valid JSON')
  }
  if (typeof meta !== 'object' || meta === null || !isString(meta.model))
    corrupt('section META has no model fingerprint')
  const documents = kind.sharded ? kind.sharded.documents : readDocuments(meta.documents, documentCount)
  const chunkDocuments = indexArray(bytes, sections.get('CDOC'), 'CDOC', chunkCount, documentCount)

  let vectors: Float32Array | Int8Array = new Float32Array(0)
  let encoding: Snapshot['encoding'] = 'none'
  let scales: Float32Array | null = null
  let refinement: Snapshot['refinement'] = null
  if (withVectors) {
    ({ vectors, encoding, scales, refinement } = readVectors(bytes, sections, meta.refineBits, chunkCount, dimensions, kind))
  }
  else {
    if (dimensions !== 0)
      corrupt(`it is flagged as having no vectors, yet has ${dimensions} dimensions`)
    const stray = ['SCAL', 'VECT', 'VREF'].filter(tag => sections.has(tag))
    if (stray.length > 0)
      corrupt(`it is flagged as having no vectors, yet has section ${stray.join(', ')}`)
  }

  let headings: string[][] | null = null
  let chunkHeadings: IndexArray | null = null
  if (sections.has('HEAD')) {
    if (!Array.isArray(meta.headings) || !meta.headings.every(isStringArray))
      corrupt('section HEAD without a META heading table')
    headings = meta.headings
    chunkHeadings = indexArray(bytes, sections.get('HEAD'), 'HEAD', chunkCount, headings.length)
  }

  const lexical = readLexical(bytes, sections, chunkCount, documentCount, chunkDocuments, kind)
  if (!withVectors && !lexical)
    corrupt('it has neither vectors nor a lexical index')
  return { version, model: meta.model, dimensions, encoding, chunkCount, documents, chunkDocuments, vectors, scales, refinement, headings, chunkHeadings, lexical }
}

/** The heading path of a chunk (empty when it has none, e.g. a metadata chunk). */
export function chunkHeading(snapshot: Snapshot, chunk: number): string[] {
  return snapshot.chunkHeadings && snapshot.headings ? snapshot.headings[snapshot.chunkHeadings[chunk]!] ?? [] : []
}
