// Reads the binary knowledge snapshot written at build time by
// `src/knowledge/snapshot.ts` (its byte layout: snapshot-layout.ts). Zero-dependency
// and browser-safe: it needs only typed arrays, DataView and TextDecoder.

import type { LexicalIndex } from '../lexical/lexical-index'
import type { Section, SnapshotContainer } from './snapshot-container'
import type { ElementTypeCode, IndexArray, Snapshot, SnapshotDocument } from './snapshot-layout'
import { corrupt, indexArray, metaOf, readContainer, view } from './snapshot-container'
import { ELEMENT_SIZE, ElementType, FLAG_NO_VECTORS, refineRowBytes } from './snapshot-layout'

export interface DecodeOptions {
  /**
   * Verify the CRC-32 (default true). About 1 ms per MB; skipping it still
   * checks every length, offset and index, so a damaged file cannot read out of
   * bounds, but flipped vector bytes would go unnoticed.
   */
  verify?: boolean
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
    // 8 fields with a title; 7 without, as snapshots written before titles have.
    if (!Array.isArray(row) || (row.length !== 7 && row.length !== 8))
      corrupt(`document ${i} is not a 7- or 8-field row`)
    const [id, description, category, categories, tags, path, tokenCount, title] = row as unknown[]
    if (!isString(id) || !isString(description) || !isString(category) || !isStringArray(categories) || !isStringArray(tags) || !isString(path) || !Number.isSafeInteger(tokenCount) || (tokenCount as number) < 0 || (row.length === 8 && !isString(title)))
      corrupt(`document ${i} has a field of the wrong type`)
    if (i > 0 && !(documents[i - 1]!.id < id))
      corrupt(`document IDs are not unique and sorted at ${JSON.stringify(id)}`)
    documents.push({ id, ...(isString(title) ? { title } : {}), description, category, categories, tags, path, tokenCount: tokenCount as number })
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
export function decodeContainer(container: SnapshotContainer, kind: ReadKind): Snapshot {
  const { bytes, version, flags, dimensions, chunkCount, documentCount, sections } = container
  const withVectors = (flags & FLAG_NO_VECTORS) === 0
  const meta = metaOf(container) as { model?: unknown, documents?: unknown, headings?: unknown, refineBits?: unknown } | null
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

