// The terms of a text, for the lexical index and its queries (see lexical.ts):
// NFKC, lowercase, runs of letters, marks and digits, one token per Han,
// Hiragana or Katakana character, English words stemmed; a query's function
// words dropped.

import { porterStem } from './stemmer'

/**
 * English function words that carry no topic: question words, auxiliaries,
 * pronouns, articles, common prepositions and conjunctions, the pieces the
 * tokenizer leaves of contractions (`don't` → `don`, `t`), and the words of
 * asking for something (`want`, `need`, `use`, `make`, `way`, `instead`…). Only
 * queries lose them; the index keeps every word, so a query of nothing else
 * still finds them.
 */
export const STOPWORDS = /* @__PURE__ */ new Set([
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
/** A word of a text: a run of letters, marks and digits, or one Han, Hiragana or Katakana character. */
export const TOKEN = /* @__PURE__ */ new RegExp(`[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{M}\\p{N}])+`, 'gu')

/** The index term of a word. */
export const stem = (word: string) => porterStem(word)

/** The words of a text, normalised and lowercased, before stemming. */
export function words(text: string): string[] {
  // `match` with the global flag gives the strings alone: no match object per word for the collector.
  return text.normalize('NFKC').toLowerCase().match(TOKEN) ?? []
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
export function termsOfWords(all: readonly string[]): string[] {
  const informative = all.filter(word => !STOPWORDS.has(word))
  return [...new Set((informative.length > 0 ? informative : all).map(stem))]
}
