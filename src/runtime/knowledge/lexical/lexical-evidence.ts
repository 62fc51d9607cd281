// A query's BM25 evidence over every chunk of a lexical index, and a
// document's soft maximum of it (see lexical.ts for the scoring).

import type { LexicalIndex } from './lexical-index'
import { POOLING_TEMPERATURE } from '../ranking/search-pool'
import { BM25_B, BM25_K1 } from './lexical-index'
import { isScored, searchedTermsOf } from './searched-terms'
import { termsOfWords, words } from './tokens'

/** Query terms whose ceiling is a score's reference (see `searchLexical`). */
export const REFERENCE_TERMS = 4

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
