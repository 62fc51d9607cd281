// The lexical (BM25) index of a snapshot's chunks, built at build time a chunk
// at a time (see lexical.ts for how text becomes terms and how it is searched).

import { stem, words } from './tokens'

/** A BM25 index of chunks: a serialisable set of typed arrays (see the LT… sections of the snapshot). */
export interface LexicalIndex {
  /** Vocabulary, sorted by UTF-16 code units. */
  terms: string[]
  /** Term `t`'s postings are `postings[offsets[t] … offsets[t + 1]]`; `terms.length + 1` entries. */
  offsets: Uint32Array
  /** Posting → chunk index, ascending within a term. */
  postings: Uint16Array | Uint32Array
  /** Posting → occurrences of the term in the chunk, capped at 255 (BM25 saturates long before). */
  frequencies: Uint8Array
  /** Chunk → token count. */
  lengths: Uint16Array | Uint32Array
  /** Chunk → document index. */
  chunkDocuments: Uint16Array | Uint32Array
  documentCount: number
}

export interface LexicalChunk {
  text: string
  documentIndex: number
  /** The chunk's heading path (its own heading last); its words count {@link FIELD_WEIGHT} times. */
  heading?: readonly string[]
  /** The chunk's document ID; its words count {@link FIELD_WEIGHT} times. */
  documentId?: string
}

/** BM25 parameters (the usual defaults). */
export const BM25_K1 = 1.2
export const BM25_B = 0.75
/** How many times a word of a chunk's heading path or document ID counts. */
export const FIELD_WEIGHT = 2

/**
 * Builds a lexical index a chunk at a time (in snapshot chunk order), so that a
 * build can index each chunk as it reads it, while its vectors are on the way.
 * Deterministic: the same chunks give the same arrays.
 */
export class LexicalIndexBuilder {
  private readonly ids = new Map<string, number>()
  /** Each word seen (lowercased, not stemmed) to its term's ID: stemming every occurrence again took most of the indexing. */
  private readonly wordIds = new Map<string, number>()
  /** By term ID: [chunk, tf, chunk, tf, …]. */
  private readonly lists: number[][] = []
  private readonly lengths: number[] = []
  private readonly documents: number[] = []
  private documentCount = 0
  /** Scratch, by term ID: the current chunk's count, and the IDs it has. */
  private counts = new Float64Array(1024)
  private readonly touched: number[] = []

  /** Chunks added so far. */
  get size(): number {
    return this.lengths.length
  }

  add(chunk: LexicalChunk): void {
    const c = this.lengths.length
    if (!Number.isSafeInteger(chunk.documentIndex) || chunk.documentIndex < 0)
      throw new TypeError(`Chunk ${c} has an invalid documentIndex: ${String(chunk.documentIndex)}.`)
    this.documentCount = Math.max(this.documentCount, chunk.documentIndex + 1)
    let length = 0
    const count = (text: string, weight: number) => {
      for (const word of words(text)) {
        let id = this.wordIds.get(word)
        if (id === undefined) {
          id = this.termId(stem(word))
          this.wordIds.set(word, id)
        }
        if (this.counts[id] === 0)
          this.touched.push(id)
        this.counts[id]! += weight
        length += weight
      }
    }
    count(chunk.text, 1)
    count((chunk.heading ?? []).join('\n'), FIELD_WEIGHT)
    count(chunk.documentId ?? '', FIELD_WEIGHT)
    this.lengths.push(length)
    this.documents.push(chunk.documentIndex)
    for (const id of this.touched) {
      this.lists[id]!.push(c, Math.min(this.counts[id]!, 255))
      this.counts[id] = 0
    }
    this.touched.length = 0
  }

  /** The ID of `term`, new if it is. */
  private termId(term: string): number {
    let id = this.ids.get(term)
    if (id === undefined) {
      this.ids.set(term, id = this.lists.length)
      this.lists.push([])
      if (id >= this.counts.length) {
        const grown = new Float64Array(this.counts.length * 2)
        grown.set(this.counts)
        this.counts = grown
      }
    }
    return id
  }

  /** The index of the chunks added. */
  finish(): LexicalIndex {
    const { ids, lists, lengths, documents, documentCount } = this
    const terms = [...ids.keys()].sort()
    const offsets = new Uint32Array(terms.length + 1)
    let total = 0
    for (const [t, term] of terms.entries()) {
      total += lists[ids.get(term)!]!.length / 2
      offsets[t + 1] = total
    }
    const wide = lengths.length > 0x10000
    const postings = wide ? new Uint32Array(total) : new Uint16Array(total)
    const frequencies = new Uint8Array(total)
    let p = 0
    for (const term of terms) {
      const list = lists[ids.get(term)!]!
      for (let i = 0; i < list.length; i += 2, p++) {
        postings[p] = list[i]!
        frequencies[p] = list[i + 1]!
      }
    }
    const maxLength = lengths.reduce((a, b) => Math.max(a, b), 0)
    return {
      terms,
      offsets,
      postings,
      frequencies,
      lengths: maxLength > 0xFFFF ? Uint32Array.from(lengths) : Uint16Array.from(lengths),
      chunkDocuments: documentCount > 0x10000 ? Uint32Array.from(documents) : Uint16Array.from(documents),
      documentCount,
    }
  }
}

/** The lexical index of `chunks` (in snapshot chunk order); see {@link LexicalIndexBuilder}. */
export function buildLexicalIndex(chunks: readonly LexicalChunk[]): LexicalIndex {
  const builder = new LexicalIndexBuilder()
  for (const chunk of chunks)
    builder.add(chunk)
  return builder.finish()
}
