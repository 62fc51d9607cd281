// A lexical (BM25) index of the same chunks as the vectors, built at build
// time and searched at run time; and reciprocal rank fusion of both rankings.
//
// Tokenisation: NFKC, lowercase, then runs of letters, marks and digits in any
// script; each Han, Hiragana or Katakana character is a token of its own (those
// scripts do not separate words with spaces). Everything else separates tokens,
// so `content-visibility` gives `content` and `visibility`. English words (a–z
// only) are reduced by the Porter stemmer (stemmer.ts), so that `animating`,
// `animated` and `animations` meet; identifiers with digits and other scripts
// are kept as written.
//
// Fields: a chunk's heading path and its document's ID are strong evidence of
// what it is about, so their words count {@link FIELD_WEIGHT} times each in
// the chunk (a simplified BM25F: weighted term frequencies and lengths).
//
// Queries: questions and task prompts wrap a few informative words in function
// words ("How can I …?", "I want to use …"). Those are dropped from a query that
// has other terms (see `queryTerms`), and scores are normalised against the
// query's few most informative terms, not all of them (see `searchLexical`), so
// that a long prompt does not sink the documents its short form finds. Search
// boxes get typos and words written apart: a short query's term the index
// lacks is corrected to the index term one edit away, and two neighbouring
// words the index holds as one term are searched as that term too (see
// `searchedTerms`).
//
// Measured on bench/retrieval.bench.mjs (tune halves, lexical top-1, short
// queries / task prompts / dev / descriptions): plural folding, no fields, best
// chunk 53.0 / 77.8 / 67.5 / 87.5 %; with the Porter stemmer, fields, task
// words as stopwords and soft pooling 67.7 / 79.0 / 72.7 / 94.4 %.

import type { Snapshot } from '../format/snapshot-reader'
import type { SearchHit, SearchResult } from '../ranking/search-rank'
import type { VectorPooling } from '../ranking/search-pool'
import { KnowledgeError } from '../errors'
import { kthHighest, POOLING_TEMPERATURE } from '../ranking/search-pool'
import { selectTop, toResult } from '../ranking/search-rank'
import { porterStem } from './stemmer'
import { closestTerm, lowerBound } from './typos'

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

export interface LexicalSearchOptions {
  /** Documents to return (default 5). */
  topK?: number
  /** Minimum normalised score of a document's best chunk (default 0.25; see `searchLexical`). */
  threshold?: number
  /**
   * How a document's chunk scores make its score (default `soft`: the
   * log-mean-exp of its chunks' normalised scores at temperature 0.05, as
   * vector search does; `max`: its best chunk's).
   */
  pooling?: VectorPooling
}

export interface HybridOptions {
  /** Documents to return (default 5). */
  topK?: number
  /** The RRF constant (default 60, as in Cormack et al. 2009). */
  k?: number
}

/** BM25 parameters (the usual defaults). */
export const BM25_K1 = 1.2
export const BM25_B = 0.75
export const LEXICAL_THRESHOLD = 0.25
/** Query terms whose ceiling is a score's reference (see `searchLexical`). */
export const REFERENCE_TERMS = 4
/** From this many chunks on, query terms in more than half of them are not scored (see `searchLexical`). */
export const LARGE_INDEX_CHUNKS = 10_000
/** How many times a word of a chunk's heading path or document ID counts. */
export const FIELD_WEIGHT = 2

/**
 * English function words that carry no topic: question words, auxiliaries,
 * pronouns, articles, common prepositions and conjunctions, the pieces the
 * tokenizer leaves of contractions (`don't` → `don`, `t`), and the words of
 * asking for something (`want`, `need`, `use`, `make`, `way`, `instead`…). Only
 * queries lose them; the index keeps every word, so a query of nothing else
 * still finds them.
 */
const STOPWORDS = /* @__PURE__ */ new Set([
  'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how',
  'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'do', 'does', 'did', 'doing', 'have', 'has', 'had', 'having',
  'can', 'could', 'will', 'would', 'shall', 'should', 'may', 'might', 'must',
  'i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself', 'yourselves',
  'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its', 'itself',
  'they', 'them', 'their', 'theirs', 'themselves', 'this', 'that', 'these', 'those',
  'a', 'an', 'the',
  'of', 'in', 'on', 'at', 'by', 'for', 'with', 'about', 'from', 'to', 'into', 'onto',
  'and', 'or', 'but', 'if', 'so', 'than', 'then', 'as',
  's', 't', 'm', 're', 've', 'll', 'd',
  'want', 'need', 'like', 'use', 'using', 'used', 'make', 'makes', 'making', 'get', 'gets', 'way', 'ways',
  'also', 'just', 'some', 'any', 'all', 'each', 'every', 'other', 'more', 'most', 'very', 'really', 'currently',
  'instead', 'without', 'only', 'even', 'still', 'much', 'many', 'well', 'try', 'trying', 'tried', 'something',
  'thing', 'things', 'whether', 'there', 'here', 'not', 'no', 'yes', 'out', 'up', 'down', 'over', 'after',
  'before', 'while', 'during', 'since', 'until', 'both', 'either', 'same', 'such', 'own', 'too', 'again',
  'further', 'once', 'let', 'lets', 'able', 'via', 'per', 'etc', 'one', 'two',
])

const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}'
const TOKEN = /* @__PURE__ */ new RegExp(`[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{M}\\p{N}])+`, 'gu')

/** The index term of a word. */
const stem = (word: string) => porterStem(word)
/** The words of a text, normalised and lowercased, before stemming. */
function words(text: string): string[] {
  const out: string[] = []
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(TOKEN))
    out.push(match[0])
  return out
}

/** The index terms of a text, in order, repeats included. */
export function tokenize(text: string): string[] {
  return words(text).map(stem)
}

/**
 * The distinct terms a query searches for: its index terms without
 * stopwords, unless it has nothing else ("how do I" still searches those).
 */
export function queryTerms(query: string): string[] {
  return termsOfWords(words(query))
}

/** {@link queryTerms} of a query's words. */
function termsOfWords(all: readonly string[]): string[] {
  const informative = all.filter(word => !STOPWORDS.has(word))
  return [...new Set((informative.length > 0 ? informative : all).map(stem))]
}

/**
 * Builds a lexical index a chunk at a time (in snapshot chunk order), so that a
 * build can index each chunk as it reads it, while its vectors are on the way.
 * Deterministic: the same chunks give the same arrays.
 */
export class LexicalIndexBuilder {
  private readonly ids = new Map<string, number>()
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
      for (const token of tokenize(text)) {
        let id = this.ids.get(token)
        if (id === undefined) {
          this.ids.set(token, id = this.lists.length)
          this.lists.push([])
          if (id >= this.counts.length) {
            const grown = new Float64Array(this.counts.length * 2)
            grown.set(this.counts)
            this.counts = grown
          }
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

function findTerm(terms: readonly string[], term: string): number {
  const t = lowerBound(terms, term)
  return terms[t] === term ? t : -1
}

/** Queries of at most this many terms (see `queryTerms`) have the terms the index lacks corrected (see typos.ts). */
export const TYPO_QUERY_TERMS = 5

/**
 * The index terms a query searches (positions in `index.terms`; −1 for a term
 * the index lacks, which still counts in the score's reference): the query's
 * terms (see `queryTerms`), where
 * - in a query of at most {@link TYPO_QUERY_TERMS} terms, one the index lacks
 *   is replaced by the index term one edit away (`closestTerm`): a search box
 *   query of three words loses a third of its evidence to one typo, where a
 *   long prompt's unknown word is more often a real word the documents do not
 *   use (`realise`, `portal`);
 * - two neighbouring informative words that the index holds as one term are
 *   searched as that term too: identifiers and compounds written apart
 *   (`show modal` finds `showModal()`, `wi fi` finds `wifi`, `scrolly telling`
 *   finds `scrollytelling`).
 * Measured on bench/retrieval.bench.mjs (tune halves, fused top-1): short
 * queries 78.0 → 79.3 %, prompts, dev and descriptions unchanged; lexical
 * search alone gains on short queries, prompts and dev.
 */
export function searchedTerms(index: LexicalIndex, query: string): number[] {
  const all = words(query)
  return searchedTermsOf(index, all, termsOfWords(all))
}

/** {@link searchedTerms} of a query's words and their {@link queryTerms}. */
function searchedTermsOf(index: LexicalIndex, all: readonly string[], stems: readonly string[]): number[] {
  const { terms, offsets } = index
  const frequency = (t: number) => offsets[t + 1]! - offsets[t]!
  const found: number[] = []
  for (const term of stems) {
    let t = findTerm(terms, term)
    if (t < 0 && stems.length <= TYPO_QUERY_TERMS)
      t = closestTerm(terms, frequency, term)
    if (t < 0 || !found.includes(t))
      found.push(t)
  }
  for (let i = 0; i + 1 < all.length; i++) {
    if (STOPWORDS.has(all[i]!) || STOPWORDS.has(all[i + 1]!))
      continue
    const t = findTerm(terms, stem(all[i]! + all[i + 1]!))
    if (t >= 0 && !found.includes(t))
      found.push(t)
  }
  return found
}

/** Per index: each chunk's BM25 length term, and each document's chunks with text (CSR, ascending). */
export interface IndexStats {
  /** k1 · (1 − b + b · length / average length), per chunk. */
  lengthTerms: Float64Array
  /** Document `d`'s text chunks are `textChunks[textOffsets[d]…textOffsets[d + 1]]`. */
  textOffsets: Uint32Array
  textChunks: Uint32Array
  /** ln(document `d`'s number of text chunks), 0 for a document without any: how far below its best chunk's score its soft maximum may lie. */
  logTextCounts: Float64Array
}

const indexStats = new WeakMap<LexicalIndex, IndexStats>()

/** The per-index figures of {@link IndexStats}, worked out once per index. */
export function statsOf(index: LexicalIndex): IndexStats {
  let stats = indexStats.get(index)
  if (!stats) {
    const { lengths, chunkDocuments, documentCount } = index
    const n = lengths.length
    let sum = 0
    const textOffsets = new Uint32Array(documentCount + 1)
    for (let c = 0; c < n; c++) {
      sum += lengths[c]!
      if (lengths[c]! > 0)
        textOffsets[chunkDocuments[c]! + 1]!++
    }
    for (let d = 0; d < documentCount; d++)
      textOffsets[d + 1]! += textOffsets[d]!
    const textChunks = new Uint32Array(textOffsets[documentCount]!)
    const next = textOffsets.slice(0, -1)
    for (let c = 0; c < n; c++) {
      if (lengths[c]! > 0)
        textChunks[next[chunkDocuments[c]!]!++] = c
    }
    const average = sum / n || 1
    const lengthTerms = new Float64Array(n)
    for (let c = 0; c < n; c++)
      lengthTerms[c] = BM25_K1 * (1 - BM25_B + BM25_B * lengths[c]! / average)
    const logTextCounts = new Float64Array(documentCount)
    for (let d = 0; d < documentCount; d++)
      logTextCounts[d] = Math.log(textOffsets[d + 1]! - textOffsets[d]! || 1)
    indexStats.set(index, stats = { lengthTerms, textOffsets, textChunks, logTextCounts })
  }
  return stats
}

function validate(topK: number, threshold: number): void {
  if (!Number.isSafeInteger(topK) || topK < 1)
    throw new KnowledgeError('invalid-options', `topK must be a positive integer, got ${String(topK)}.`)
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    throw new KnowledgeError('invalid-options', `threshold must be a number from 0 to 1, got ${String(threshold)}.`)
}

function isSnapshot(source: Snapshot | LexicalIndex): source is Snapshot {
  return 'vectors' in source
}

/**
 * BM25 search (k1 = 1.2, b = 0.75, idf = ln(1 + (N − df + 0.5) / (df + 0.5)))
 * over chunks, for the query's terms (see `searchedTerms`: stopwords dropped,
 * typos of short queries corrected, words written apart joined).
 *
 * A chunk's score is normalised to 0–1 as S / (S + R): S its BM25 score, R
 * the query's reference, the BM25 score an average-length chunk gets for
 * holding each of the query's {@link REFERENCE_TERMS} most informative terms
 * once: Σ max(idf(t), ln 2) over the terms of highest idf (terms absent from
 * the vocabulary included, with df = 0; a corrected typo counts as the term
 * it was corrected to). So 0.5 means "as much evidence as each informative
 * query term once", and the default threshold of 0.25 asks
 * for a third of that (one of three equally rare terms, or a rarer one of
 * four), not the 0.3 of cosine similarity, whose scale differs. The ln 2 floor
 * (the idf of a term in half the chunks) keeps a query of only very common
 * words from scoring high. R counts at most four terms, and BM25 adds up only
 * the terms a chunk holds, so a document scores about the same for a
 * three-word query as for a long prompt around those words: the threshold
 * means the same for both.
 *
 * In an index of {@link LARGE_INDEX_CHUNKS} chunks or more, terms in more
 * than half of them are left out of S when the query has others (they still
 * count in R if they are among its rarest).
 *
 * A document competes when its best chunk reaches the threshold; its score is
 * the soft maximum of its chunks' normalised scores (chunks with text only;
 * see search-pool.ts), or with `pooling: 'max'` its best chunk's. Ties go to
 * the lower document index, which in a snapshot is the lower ID. Given a
 * Snapshot, results carry the document metadata like `searchVectors`; given a
 * bare index, `{ documentIndex, chunk, score }`.
 */
export function searchLexical(source: Snapshot, query: string, options?: LexicalSearchOptions): SearchResult[]
export function searchLexical(source: LexicalIndex, query: string, options?: LexicalSearchOptions): SearchHit[]
export function searchLexical(source: Snapshot | LexicalIndex, query: string, { topK = 5, threshold = LEXICAL_THRESHOLD, pooling = 'soft' }: LexicalSearchOptions = {}): SearchHit[] | SearchResult[] {
  validate(topK, threshold)
  const snapshot = isSnapshot(source) ? source : undefined
  const index = snapshot ? snapshot.lexical : source as LexicalIndex
  if (!index)
    throw new KnowledgeError('no-lexical-index', 'This snapshot has no lexical index: build it with the lexical option.')
  if (pooling !== 'soft' && pooling !== 'max')
    throw new KnowledgeError('invalid-options', `pooling must be 'soft' or 'max', got ${String(pooling)}.`)
  const evidence = lexicalEvidence(index, query)
  if (!evidence)
    return []
  const { best, bestChunk } = evidence
  const pooled = new Float64Array(best.length).fill(-Infinity)
  if (pooling === 'max') {
    for (let d = 0; d < best.length; d++)
      pooled[d] = best[d]!
  }
  else {
    // Only documents whose best could still make the top K need their soft maximum, which lies
    // between best − T · ln(text chunks) and best.
    const { logTextCounts } = statsOf(index)
    const lower = best.map((b, d) => b - POOLING_TEMPERATURE * logTextCounts[d]!)
    const floor = kthHighest(lower, d => bestChunk[d]! >= 0 && best[d]! >= threshold, topK)
    for (let d = 0; d < best.length; d++) {
      if (bestChunk[d]! >= 0 && best[d]! >= threshold && best[d]! >= floor)
        pooled[d] = lexicalPooled(index, evidence, d)
    }
  }
  for (let d = 0; d < best.length; d++) {
    if (!(best[d]! >= threshold) || pooled[d] === -Infinity)
      bestChunk[d] = -1
  }
  const hits: SearchHit[] = []
  for (const d of selectTop(pooled, bestChunk, topK, -Infinity))
    hits.push({ documentIndex: d, chunk: bestChunk[d]!, score: pooled[d]! })
  return snapshot ? hits.map(hit => toResult(snapshot, hit)) : hits
}

/**
 * A query's lexical evidence: each chunk's BM25 score, each document's best
 * chunk and its normalised score. Its arrays are reused by the next search of
 * the same index.
 */
export interface LexicalEvidence {
  /** Each chunk's BM25 score S (0 without a query term); its normalised score is S / (S + reference). */
  chunkScores: Float64Array
  /** The query's reference R (see `searchLexical`). */
  reference: number
  /** The best chunk's normalised score (0 when no chunk holds a query term). */
  best: Float64Array
  /** The best chunk, −1 when no chunk holds a query term. */
  bestChunk: Int32Array
  /** How many terms the query has (see `queryTerms`). */
  queryTermCount: number
}

/**
 * Whether the postings of searched term `t` (of `termCount`) are read. In a large index, a term in
 * more than half the chunks (idf under ln 2) hardly moves the ranking, and its postings are most of
 * a long prompt's cost: skipped. (On the benchmark's guides, 1,382 chunks, skipping them changed
 * no ranking; in a small index they still count.)
 */
function isScored(index: LexicalIndex, t: number, termCount: number): boolean {
  const n = index.lengths.length
  return t >= 0 && !(index.offsets[t + 1]! - index.offsets[t]! > n / 2 && n >= LARGE_INDEX_CHUNKS && termCount > 1)
}

/**
 * The terms whose postings a lexical search of `query` reads (positions in
 * `index.terms`): worked out from the vocabulary and offsets alone, so that a
 * sharded snapshot fetches those postings, and only those, before searching.
 */
export function scoredTerms(index: LexicalIndex, query: string): number[] {
  if (index.lengths.length === 0)
    return []
  const terms = searchedTerms(index, query)
  return terms.filter(t => isScored(index, t, terms.length))
}

/**
 * A chunk whose BM25 score is under this share of its document's best so far
 * cannot have the higher normalised score: S / (S + R) changes by a relative
 * 10⁻⁹ · R / (S + R) at least, and S stays under 10⁶ · R (R ≥ ln 2, S at most
 * 2.2 · idf per query term), far above the rounding of one division (10⁻¹⁶).
 * Not exactly 1, because rounding can make S / (S + R) of two S an ulp apart
 * come out in the other order.
 */
const NEAR_BEST = 1 - 1e-9

/** Chunks scored at a time by `lexicalEvidence`: their scores and length terms, 8 bytes each, fit a processor's L1 or L2 cache. */
const SCORING_BLOCK = 2048

/** Per index: the arrays of the last {@link LexicalEvidence}, so that a search of 100k chunks allocates none. */
const evidenceScratch = new WeakMap<LexicalIndex, { chunkScores: Float64Array, bestRaw: Float64Array, best: Float64Array, bestChunk: Int32Array }>()

/** The BM25 score of every chunk for a query (see `searchLexical`); null for a query without terms or an empty index. */
export function lexicalEvidence(index: LexicalIndex, query: string): LexicalEvidence | null {
  const n = index.lengths.length
  if (n === 0)
    return null
  const all = words(query)
  const stems = termsOfWords(all)
  const terms = searchedTermsOf(index, all, stems)
  if (terms.length === 0)
    return null
  const { lengthTerms } = statsOf(index)
  const { offsets, postings, frequencies, chunkDocuments, documentCount } = index
  let scratch = evidenceScratch.get(index)
  if (!scratch) {
    scratch = { chunkScores: new Float64Array(n), bestRaw: new Float64Array(documentCount), best: new Float64Array(documentCount), bestChunk: new Int32Array(documentCount) }
    evidenceScratch.set(index, scratch)
  }
  const { chunkScores: scores, bestRaw, best, bestChunk } = scratch
  const weights: number[] = []
  const scored: number[] = [] // the terms whose postings are scored, and their gains
  const gains: number[] = []
  for (const t of terms) {
    const df = t < 0 ? 0 : offsets[t + 1]! - offsets[t]!
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
    weights.push(Math.max(idf, Math.LN2))
    if (!isScored(index, t, terms.length))
      continue
    scored.push(t)
    gains.push(idf * (BM25_K1 + 1))
  }
  const reference = weights.sort((a, b) => b - a).slice(0, REFERENCE_TERMS).reduce((sum, w) => sum + w, 0)
  bestRaw.fill(0)
  best.fill(0)
  bestChunk.fill(-1)
  // Chunk by chunk, the terms add up in the same order as term by term, but a block of chunks at a
  // time keeps that block's scores and length terms in the processor's cache while every term's
  // postings in it are added: a 40-word prompt has some 175,000 postings in 100,000 chunks, and
  // term by term each would reach for memory the previous term's left.
  const cursors = scored.map(t => offsets[t]!)
  for (let from = 0; from < n; from += SCORING_BLOCK) {
    const to = Math.min(n, from + SCORING_BLOCK)
    scores.fill(0, from, to)
    for (let i = 0; i < scored.length; i++) {
      const gain = gains[i]!
      const end = offsets[scored[i]! + 1]!
      let p = cursors[i]!
      for (; p < end; p++) {
        const c = postings[p]!
        if (c >= to)
          break
        const tf = frequencies[p]!
        scores[c]! += gain * tf / (tf + lengthTerms[c]!)
      }
      cursors[i] = p
    }
    for (let c = from; c < to; c++) {
      const raw = scores[c]!
      const d = chunkDocuments[c]!
      // S / (S + R) grows with S, so only a chunk near its document's highest S so far can have
      // the highest normalised score: the others are not normalised here (see NEAR_BEST).
      if (raw > 0 && raw >= bestRaw[d]! * NEAR_BEST) {
        if (raw > bestRaw[d]!)
          bestRaw[d] = raw
        const s = raw / (raw + reference)
        if (s > best[d]!) {
          best[d] = s
          bestChunk[d] = c
        }
      }
    }
  }
  return { chunkScores: scores, reference, best, bestChunk, queryTermCount: stems.length }
}

/** Document `d`'s soft maximum of its text chunks' normalised scores (−∞ when none holds a query term). */
export function lexicalPooled(index: LexicalIndex, { chunkScores, reference, best, bestChunk }: LexicalEvidence, d: number): number {
  if (bestChunk[d]! < 0)
    return -Infinity
  const { textOffsets, textChunks } = statsOf(index)
  const inverse = 1 / POOLING_TEMPERATURE
  const top = best[d]!
  let sum = 0
  for (let k = textOffsets[d]!; k < textOffsets[d + 1]!; k++) {
    const raw = chunkScores[textChunks[k]!]!
    sum += Math.exp(((raw > 0 ? raw / (raw + reference) : 0) - top) * inverse)
  }
  return top + POOLING_TEMPERATURE * Math.log(sum / (textOffsets[d + 1]! - textOffsets[d]!))
}

export type HybridHit<T extends SearchHit> = T & {
  /** 1-based rank in the vector results, or null when absent there. */
  vectorRank: number | null
  /** 1-based rank in the lexical results, or null when absent there. */
  lexicalRank: number | null
  /** The document's score in the vector results (cosine similarity), or null. */
  vectorScore: number | null
  /** The document's score in the lexical results (normalised BM25), or null. */
  lexicalScore: number | null
}

/**
 * Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): a document scores
 * Σ 1 / (k + rank) over the lists it appears in (rank 1-based, k = 60), so
 * agreement between the two rankings counts and raw scores of different scales
 * never mix. `score` becomes the fused score (at most 2 / (k + 1) ≈ 0.033; not
 * comparable to a similarity threshold: thresholds apply to each list before
 * fusion). Ties go to the lower document index (the lower ID in a snapshot).
 * Both lists must come from the same snapshot; pass longer lists (e.g. topK 20)
 * than the fused topK so that fusion has something to reorder. A document's
 * other fields come from the vector list when it is there.
 */
export function searchHybrid<T extends SearchHit>(vectorResults: readonly T[], lexicalResults: readonly T[], { topK = 5, k = 60 }: HybridOptions = {}): HybridHit<T>[] {
  if (!Number.isSafeInteger(topK) || topK < 1)
    throw new KnowledgeError('invalid-options', `topK must be a positive integer, got ${String(topK)}.`)
  if (!Number.isFinite(k) || k < 0)
    throw new KnowledgeError('invalid-options', `k must be a non-negative number, got ${String(k)}.`)
  const fused = new Map<number, HybridHit<T>>()
  for (const [i, hit] of vectorResults.entries()) {
    if (!fused.has(hit.documentIndex))
      fused.set(hit.documentIndex, { ...hit, score: 1 / (k + i + 1), vectorRank: i + 1, lexicalRank: null, vectorScore: hit.score, lexicalScore: null })
  }
  for (const [i, hit] of lexicalResults.entries()) {
    const entry = fused.get(hit.documentIndex)
    if (!entry) {
      fused.set(hit.documentIndex, { ...hit, score: 1 / (k + i + 1), vectorRank: null, lexicalRank: i + 1, vectorScore: null, lexicalScore: hit.score })
    }
    else if (entry.lexicalRank === null) {
      entry.score += 1 / (k + i + 1)
      entry.lexicalRank = i + 1
      entry.lexicalScore = hit.score
    }
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.documentIndex - b.documentIndex)
    .slice(0, topK)
}
