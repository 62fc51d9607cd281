// Lexical (BM25) search over an index of the same chunks as the vectors, built
// at build time (lexical-index.ts) and searched at run time: the terms of a text
// (tokens.ts), the terms a query searches (searched-terms.ts), each chunk's
// evidence (lexical-evidence.ts), and here the ranking of documents.
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
// `searchedTerms`). Each choice was measured on bench/retrieval.bench.mjs
// (figures: bench/RESULTS.md, "Figures behind the defaults").

import type { Snapshot } from '../format/snapshot-layout'
import type { SearchHit, SearchResult } from '../ranking/search-rank'
import type { VectorPooling } from '../ranking/search-pool'
import type { LexicalIndex } from './lexical-index'
import { KnowledgeError } from '../errors'
import { LEXICAL_THRESHOLD_RULE, POOLING_RULE, TOP_K_RULE } from '../ranking/search-options'
import { kthHighest, POOLING_TEMPERATURE } from '../ranking/search-pool'
import { selectTop, toResult } from '../ranking/search-rank'
import { lexicalEvidence, lexicalPooled, statsOf } from './lexical-evidence'

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
export const LEXICAL_THRESHOLD = 0.25

function validate(topK: number, threshold: number): void {
  if (!TOP_K_RULE.test(topK))
    throw new KnowledgeError('invalid-options', `topK must be ${TOP_K_RULE.expected}, got ${String(topK)}.`)
  if (!LEXICAL_THRESHOLD_RULE.test(threshold))
    throw new KnowledgeError('invalid-options', `threshold must be ${LEXICAL_THRESHOLD_RULE.expected}, got ${String(threshold)}.`)
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
  if (!POOLING_RULE.test(pooling))
    throw new KnowledgeError('invalid-options', `pooling must be ${POOLING_RULE.expected}, got ${String(pooling)}.`)
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
