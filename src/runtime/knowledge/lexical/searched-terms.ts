// Which index terms a query searches: its informative terms, a short query's
// typos corrected, words written apart joined (see lexical.ts).

import type { LexicalIndex } from './lexical-index'
import { STOPWORDS, stem, termsOfWords, words } from './tokens'
import { closestTerm, lowerBound } from './typos'

/** From this many chunks on, query terms in more than half of them are not scored (see `searchLexical`). */
export const LARGE_INDEX_CHUNKS = 10_000

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
 * Both gain on short queries and lose nowhere on bench/retrieval.bench.mjs
 * (figures: bench/RESULTS.md, "Figures behind the defaults").
 */
export function searchedTerms(index: LexicalIndex, query: string): number[] {
  const all = words(query)
  return searchedTermsOf(index, all, termsOfWords(all))
}

/** {@link searchedTerms} of a query's words and their {@link queryTerms}. */
export function searchedTermsOf(index: LexicalIndex, all: readonly string[], stems: readonly string[]): number[] {
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

/**
 * Whether the postings of searched term `t` (of `termCount`) are read. In a large index, a term in
 * more than half the chunks (idf under ln 2) hardly moves the ranking, and its postings are most of
 * a long prompt's cost: skipped. (On the benchmark's guides, 1,382 chunks, skipping them changed
 * no ranking; in a small index they still count.)
 */
export function isScored(index: LexicalIndex, t: number, termCount: number): boolean {
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
