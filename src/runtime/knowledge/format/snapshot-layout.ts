// The binary knowledge snapshot's format: written at build time by
// `src/knowledge/snapshot.ts`, read by snapshot-container.ts and
// snapshot-reader.ts. Both sides take its constants and types from here.
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
//                 tags[], path, tokenCount(, title)], …] sorted by id (title only when it is not the id), "headings": [[heading, …], …] (only with HEAD)}
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
  /**
   * Frontmatter `title`, else the first heading's text, else absent: then
   * the title is the ID (see {@link documentTitle}). Snapshots written before
   * titles have none.
   */
  title?: string
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

/** A document as a row of META's document table: 7 fields, and its title as an 8th when it has one. */
export function documentRow(doc: SnapshotDocument): unknown[] {
  const row: unknown[] = [doc.id, doc.description, doc.category, doc.categories, doc.tags, doc.path, doc.tokenCount]
  if (doc.title !== undefined)
    row.push(doc.title)
  return row
}

/** What a document is called: its title, else its ID. */
export function documentTitle(doc: Pick<SnapshotDocument, 'id' | 'title'>): string {
  return doc.title ?? doc.id
}

/** The heading path of a chunk (empty when it has none, e.g. a metadata chunk). */
export function chunkHeading(snapshot: Snapshot, chunk: number): string[] {
  return snapshot.chunkHeadings && snapshot.headings ? snapshot.headings[snapshot.chunkHeadings[chunk]!] ?? [] : []
}
