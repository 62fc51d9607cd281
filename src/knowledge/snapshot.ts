// Writes the binary knowledge snapshot (layout: src/runtime/knowledge/format/snapshot-layout.ts,
// which the reader shares).
// Pure: the same input gives the same bytes, whatever the order of its documents.

import type { ElementTypeCode, SnapshotDocument } from '../runtime/knowledge/format/snapshot-layout'
import type { LexicalIndex } from '../runtime/knowledge/lexical/lexical-index'
import type { PendingSection } from './snapshot-sections'
import { buildLexicalIndex } from '../runtime/knowledge/lexical/lexical-index'
import { documentRow, ElementType, FLAG_NO_VECTORS, refineRowBytes } from '../runtime/knowledge/format/snapshot-layout'
import { assemble, bytesOf, fail, indexSection, littleEndian } from './snapshot-sections'

export { decodeSnapshot } from '../runtime/knowledge/format/snapshot-reader'
export { SnapshotError } from '../runtime/knowledge/format/snapshot-container'
export type { Snapshot, SnapshotDocument } from '../runtime/knowledge/format/snapshot-layout'
export type { SnapshotErrorCode } from '../runtime/knowledge/format/snapshot-container'

export interface SnapshotDocumentInput {
  id: string
  /** What a search result is called; stored only when it is not the ID. */
  title?: string
  description?: string
  category?: string
  categories?: readonly string[]
  tags?: readonly string[]
  path?: string
  tokenCount?: number
}

export interface SnapshotChunkInput {
  /** Index of the chunk's document in `SnapshotInput.documents`. */
  documentIndex: number
  /** The embedding; normalised to unit length here unless it already is (±1e-6). None with encoding `none`. */
  vector?: ArrayLike<number>
  /** Heading path of the chunk's section, outermost first. */
  heading?: readonly string[]
  /** The embedded text, for the lexical index; not stored. */
  text?: string
}

export interface SnapshotInput {
  /** Fingerprint of the embedding model and chunking settings (empty with encoding `none`). */
  model: string
  documents: readonly SnapshotDocumentInput[]
  chunks: readonly SnapshotChunkInput[]
  /** Vector length; taken from the first chunk when omitted (0 without chunks). */
  dimensions?: number
  /**
   * `int8` (default): a byte per dimension plus {@link REFINE_BITS} bits of
   * refinement and a float32 scale per chunk, about 0.35 of `float32`. Search
   * scans the bytes and rescores the close candidates with all the bits, so
   * rankings follow float32 within about ±0.0002 of similarity.
   * `none`: no vectors (a knowledge base built with no model); needs `lexical`.
   */
  encoding?: 'float32' | 'int8' | 'none'
  /** A lexical index of the chunks: `true` builds it from each chunk's `text`; or pass one built by `buildLexicalIndex`. */
  lexical?: boolean | LexicalIndex
  /**
   * The chunks' vectors, encoded already (a streaming build sets each row as its
   * vector arrives); the chunks then carry none. Its encoding and dimensions must
   * be the snapshot's, and every row set.
   */
  vectors?: SnapshotVectors
}

/**
 * Bits stored beyond each int8 component: the fewest whose vector top 5 equals
 * float32's on 99 % of real queries, for 3/8 more vector bytes
 * (figures: bench/RESULTS.md, "Figures behind the defaults").
 */
export const REFINE_BITS = 3

/** Vectors whose length is within this of 1 are stored as given (so decoding and re-encoding is idempotent). */
const UNIT_TOLERANCE = 1e-6

const encoder = new TextEncoder()

function stringField(doc: SnapshotDocumentInput, key: 'title' | 'description' | 'category' | 'path'): string {
  const value = doc[key] ?? ''
  if (typeof value !== 'string')
    fail(`document ${JSON.stringify(doc.id)} has a non-string ${key}.`)
  return value
}

function listField(doc: SnapshotDocumentInput, key: 'categories' | 'tags'): string[] {
  const value = doc[key] ?? []
  if (!Array.isArray(value) || value.some(v => typeof v !== 'string'))
    fail(`document ${JSON.stringify(doc.id)} has ${key} that are not a list of strings.`)
  return [...value]
}

function normaliseDocument(doc: SnapshotDocumentInput): SnapshotDocument {
  if (typeof doc?.id !== 'string' || doc.id === '')
    fail(`a document has no ID.`)
  const tokenCount = doc.tokenCount ?? 0
  if (!Number.isSafeInteger(tokenCount) || tokenCount < 0)
    fail(`document ${JSON.stringify(doc.id)} has an invalid tokenCount: ${String(tokenCount)}.`)
  const title = stringField(doc, 'title')
  return {
    id: doc.id,
    // A title that is the ID is left out: a reader takes the ID for a missing title.
    ...(title !== '' && title !== doc.id ? { title } : {}),
    description: stringField(doc, 'description'),
    category: stringField(doc, 'category'),
    categories: listField(doc, 'categories'),
    tags: listField(doc, 'tags'),
    path: stringField(doc, 'path'),
    tokenCount,
  }
}

/**
 * What chunk `c`'s vector is divided by to be of unit length: its norm, or 1
 * when it is within {@link UNIT_TOLERANCE} of it (stored as given, so that
 * decoding and re-encoding is idempotent). Fails on a wrong length, a
 * non-finite component or a zero vector.
 */
function unitScale(v: ArrayLike<number>, c: number, dims: number): number {
  if (v.length !== dims)
    fail(`chunk ${c} has ${v.length || 'no'} dimensions, expected ${dims}.`)
  let norm = 0
  for (let i = 0; i < dims; i++) {
    const x = Number(v[i])
    if (!Number.isFinite(x))
      fail(`chunk ${c} has a non-finite component at ${i}.`)
    norm += x * x
  }
  norm = Math.sqrt(norm)
  if (norm === 0)
    fail(`chunk ${c} has a zero vector.`)
  return Math.abs(norm - 1) > UNIT_TOLERANCE ? norm : 1
}

/**
 * The vector sections of a snapshot, filled a row at a time: each vector is
 * normalised and quantized when it is set, so a build that streams its vectors
 * keeps one encoded copy instead of every float vector. Rows grow as needed;
 * `sections(n)` requires rows 0 to n − 1, every one set.
 */
export class SnapshotVectors {
  private vectors: Int8Array | Float32Array = new Int8Array(0)
  private scales = new Float32Array(0)
  private refinement = new Uint8Array(0)
  private filled = new Uint8Array(0)
  private rows = 0
  private capacity = 0

  /** `dimensions` 0: learned from the first vector set. */
  constructor(readonly encoding: 'int8' | 'float32', public dimensions = 0) {}

  /** Rows up to the highest one set. */
  get count(): number {
    return this.rows
  }

  set(row: number, vector: ArrayLike<number>): void {
    if (this.dimensions === 0)
      this.dimensions = vector.length
    const dims = this.dimensions
    const scale = unitScale(vector, row, dims)
    this.reserve(row + 1)
    this.rows = Math.max(this.rows, row + 1)
    this.filled[row] = 1
    const at = row * dims
    // Component i at unit length is vector[i] / scale (as float64), as unitVector gives it.
    if (this.encoding === 'float32') {
      const out = this.vectors as Float32Array
      for (let i = 0; i < dims; i++)
        out[at + i] = scale === 1 ? Number(vector[i]) : Number(vector[i]) / scale
      return
    }
    const out = this.vectors as Int8Array
    let maxAbs = 0
    for (let i = 0; i < dims; i++)
      maxAbs = Math.max(maxAbs, Math.abs(scale === 1 ? Number(vector[i]) : Number(vector[i]) / scale))
    const step = Math.fround(maxAbs / 127)
    this.scales[row] = step
    // 8 + REFINE_BITS bits per component: w = round(v / (step / L)) = L·hi + lo, hi the int8
    // value, lo ∈ [−L/2, L/2) stored + L/2 in the refinement row, bit-packed from the low bits.
    const levels = 1 << REFINE_BITS
    const half = levels >> 1
    const fine = step / levels
    const refineRow = refineRowBytes(dims, REFINE_BITS)
    const rowStart = row * refineRow
    const refinement = this.refinement
    refinement.fill(0, rowStart, rowStart + refineRow)
    for (let i = 0; i < dims; i++) {
      const u = scale === 1 ? Number(vector[i]) : Number(vector[i]) / scale
      const w = Math.max(-127 * levels - half, Math.min(127 * levels + half - 1, Math.round(u / fine)))
      const hi = Math.floor((w + half) / levels)
      out[at + i] = hi
      const lo = w - levels * hi + half
      const bit = i * REFINE_BITS
      const byte = rowStart + (bit >> 3)
      refinement[byte]! |= (lo << (bit & 7)) & 0xFF
      if ((bit & 7) + REFINE_BITS > 8)
        refinement[byte + 1]! |= lo >> (8 - (bit & 7))
    }
  }

  /** The SCAL, VECT and VREF sections (int8), or VECT (float32), of rows 0 to `n` − 1. */
  sections(n: number): PendingSection[] {
    if (this.rows > n)
      fail(`the vectors hold ${this.rows} rows for ${n} chunks.`)
    this.reserve(n)
    const missing = this.filled.subarray(0, n).indexOf(0)
    if (missing >= 0)
      fail(`chunk ${missing} has no dimensions, expected ${this.dimensions}.`)
    const dims = this.dimensions
    const vectors = { tag: 'VECT', type: this.encoding === 'int8' ? ElementType.i8 : ElementType.f32, bytes: bytesOf(this.vectors.subarray(0, n * dims)) }
    if (this.encoding === 'float32')
      return [vectors]
    return [
      { tag: 'SCAL', type: ElementType.f32, bytes: bytesOf(this.scales.subarray(0, n)) },
      vectors,
      { tag: 'VREF', type: ElementType.u8, bytes: this.refinement.subarray(0, n * refineRowBytes(dims, REFINE_BITS)) },
    ]
  }

  private reserve(rows: number): void {
    if (rows <= this.capacity)
      return
    const capacity = Math.max(rows, this.capacity * 2, 64)
    const dims = this.dimensions
    const grow = <T extends Int8Array | Float32Array | Uint8Array>(old: T, make: (length: number) => T, per: number): T => {
      const next = make(capacity * per)
      next.set(old as ArrayLike<number> & T)
      return next
    }
    this.filled = grow(this.filled, l => new Uint8Array(l), 1)
    if (this.encoding === 'float32') {
      this.vectors = grow(this.vectors as Float32Array, l => new Float32Array(l), dims)
    }
    else {
      this.vectors = grow(this.vectors as Int8Array, l => new Int8Array(l), dims)
      this.scales = grow(this.scales, l => new Float32Array(l), 1)
      this.refinement = grow(this.refinement, l => new Uint8Array(l), refineRowBytes(dims, REFINE_BITS))
    }
    this.capacity = capacity
  }
}

function lexicalSections(index: LexicalIndex, chunks: readonly SnapshotChunkInput[]): PendingSection[] {
  const n = chunks.length
  const { terms, offsets, postings, frequencies, lengths } = index
  if (lengths.length !== n || index.chunkDocuments.length !== n || chunks.some((chunk, c) => index.chunkDocuments[c] !== chunk.documentIndex))
    fail('the lexical index was not built from these chunks.')
  if (offsets.length !== terms.length + 1 || offsets[terms.length] !== postings.length || frequencies.length !== postings.length)
    fail('the lexical index is inconsistent.')
  for (let t = 0; t < terms.length; t++) {
    if (terms[t]!.includes('\n') || (t > 0 && !(terms[t - 1]! < terms[t]!)))
      fail('lexical terms must be unique, sorted and free of line breaks.')
  }
  let maxLength = 0
  for (let c = 0; c < n; c++)
    maxLength = Math.max(maxLength, lengths[c]!)
  return [
    { tag: 'LTRM', type: ElementType.utf8, bytes: encoder.encode(terms.join('\n')) },
    { tag: 'LOFF', type: ElementType.u32, bytes: bytesOf(new Uint32Array(offsets)) },
    indexSection('LPST', postings, n - 1),
    { tag: 'LFRQ', type: ElementType.u8, bytes: bytesOf(new Uint8Array(frequencies)) },
    indexSection('LLEN', lengths, maxLength),
  ]
}

/** Encodes a knowledge snapshot. Documents are stored sorted by ID; chunks keep their order. */
export function encodeSnapshot(input: SnapshotInput): Uint8Array {
  if (typeof input.model !== 'string')
    fail('the model fingerprint must be a string.')
  const encoding = input.encoding ?? 'int8'
  if (encoding !== 'int8' && encoding !== 'float32' && encoding !== 'none')
    fail(`unknown encoding ${JSON.stringify(encoding)}.`)
  const withVectors = encoding !== 'none'
  if (!withVectors && !input.lexical)
    fail('a snapshot without vectors needs the lexical index.')

  // Documents, sorted by ID (UTF-16 code units) so that ties by ID are ties by index.
  const given = input.documents.map(normaliseDocument)
  const order = given.map((_, i) => i).sort((a, b) => (given[a]!.id < given[b]!.id ? -1 : given[a]!.id > given[b]!.id ? 1 : 0))
  const documents = order.map(i => given[i]!)
  const newIndex = new Uint32Array(given.length)
  for (const [rank, i] of order.entries()) {
    if (rank > 0 && documents[rank - 1]!.id === documents[rank]!.id)
      fail(`the document ID ${JSON.stringify(documents[rank]!.id)} is not unique.`)
    newIndex[i] = rank
  }

  // Chunks.
  const chunks = input.chunks
  const n = chunks.length
  const dims = withVectors ? input.dimensions ?? input.vectors?.dimensions ?? chunks[0]?.vector?.length ?? 0 : 0
  if (!Number.isSafeInteger(dims) || dims < 0 || (n > 0 && withVectors && dims === 0))
    fail(`invalid dimensions: ${String(dims)}.`)
  const chunkDocuments = new Uint32Array(n)
  let rows: SnapshotVectors | undefined
  if (input.vectors) {
    rows = input.vectors
    if (!withVectors || rows.encoding !== encoding)
      fail(`the vectors are ${rows.encoding}, but the encoding is ${JSON.stringify(encoding)}.`)
    if (rows.count !== n || rows.dimensions !== dims)
      fail(`the vectors hold ${rows.count} of ${n} chunks' vectors, of ${rows.dimensions} dimensions (expected ${dims}).`)
  }
  else if (encoding !== 'none') {
    rows = new SnapshotVectors(encoding, dims)
  }
  const headingIds = new Map<string, number>()
  const headings: string[][] = []
  const chunkHeadings = new Uint32Array(n)
  for (const [c, chunk] of chunks.entries()) {
    if (!Number.isSafeInteger(chunk.documentIndex) || chunk.documentIndex < 0 || chunk.documentIndex >= given.length)
      fail(`chunk ${c} refers to document ${String(chunk.documentIndex)} of ${given.length}.`)
    chunkDocuments[c] = newIndex[chunk.documentIndex]!
    if (!withVectors || input.vectors) {
      if (chunk.vector !== undefined)
        fail(`chunk ${c} has a vector, but ${withVectors ? 'the vectors are given apart' : 'the encoding is "none"'}.`)
    }
    else {
      rows!.set(c, chunk.vector ?? [])
    }
    const heading = chunk.heading ?? []
    if (!Array.isArray(heading) || heading.some(h => typeof h !== 'string'))
      fail(`chunk ${c} has a heading path that is not a list of strings.`)
    // Each heading after its length: an unambiguous key, cheaper than JSON for 100k chunks.
    const key = heading.map(h => `${h.length}:${h}`).join('')
    let id = headingIds.get(key)
    if (id === undefined) {
      headingIds.set(key, id = headings.length)
      headings.push([...heading])
    }
    chunkHeadings[c] = id
  }
  const withHeadings = headings.some(h => h.length > 0)

  let lexical: LexicalIndex | undefined
  if (input.lexical === true) {
    for (const [c, chunk] of chunks.entries()) {
      if (typeof chunk.text !== 'string')
        fail(`chunk ${c} has no text for the lexical index.`)
    }
    // A chunk's fields count with its text: once, in the first window of a chunk cut into several (the others have no text).
    lexical = buildLexicalIndex(chunks.map(chunk => chunk.text
      ? { text: chunk.text, documentIndex: chunk.documentIndex, heading: chunk.heading ?? [], documentId: given[chunk.documentIndex]!.id }
      : { text: '', documentIndex: chunk.documentIndex }))
  }
  else if (input.lexical) {
    lexical = input.lexical
  }

  const meta = {
    model: input.model,
    documents: documents.map(documentRow),
    ...(withHeadings ? { headings } : {}),
    ...(encoding === 'int8' ? { refineBits: REFINE_BITS } : {}),
  }
  const sections: PendingSection[] = [
    { tag: 'META', type: ElementType.utf8, bytes: encoder.encode(JSON.stringify(meta)) },
    indexSection('CDOC', chunkDocuments, documents.length - 1),
  ]
  if (withHeadings)
    sections.push(indexSection('HEAD', chunkHeadings, headings.length - 1))
  if (rows)
    sections.push(...rows.sections(n))
  if (lexical)
    sections.push(...lexicalSections(lexical, chunks))
  return assemble(dims, n, documents.length, sections.map(littleEndian), withVectors ? 0 : FLAG_NO_VECTORS)
}
