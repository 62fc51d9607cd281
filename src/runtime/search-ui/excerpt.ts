// Excerpts of search results: a section's Markdown as the text a reader sees,
// its words (stemmed once per text, not per query), the passage around the
// query's words, and the ranges to mark. A word is the
// query's when its stem is one the query searches (the lexical index's
// tokenizer and stemmer: `animations` is marked for `animating`), or when the
// query's last word, still being typed, begins it (`dial` marks `dialog`).

import type { SearchUIExcerpt } from './types'
import { STOPWORDS, stem, termsOfWords, TOKEN, words } from '../knowledge/lexical/tokens'
import { inlineText } from './inline'

/** The terms a query marks: its stems (stopwords dropped unless it has nothing else), and the word being typed. */
export interface QueryMarks {
  stems: ReadonlySet<string>
  /** The query's last word when it is still being typed (no space after it) and informative: words it begins are marked. */
  prefix?: string
}

/** What {@link queryMarks} reads a query for, as the lexical search does. */
export function queryMarks(query: string): QueryMarks {
  const all = words(query)
  const stems = new Set(termsOfWords(all))
  const typed = /[\p{L}\p{M}\p{N}]$/u.test(query) ? all.at(-1) : undefined
  // A stopword being typed (`the`) would mark half the page: only informative words are completed.
  const prefix = typed !== undefined && typed.length >= 2 && stems.has(stem(typed)) && !STOPWORDS.has(typed) ? typed : undefined
  return { stems, ...(prefix !== undefined ? { prefix } : {}) }
}

/** A word of a text, where it is, lowercased and stemmed: what every query compares, worked out once per text. */
export interface TextWord {
  start: number
  end: number
  lower: string
  stem: string
}

/** Stems of the words seen: a document's words repeat, and stemming is most of the work. Bounded, as a page may search many documents. */
const stemmed = new Map<string, string>()
const STEM_MEMO = 50_000

/** The words of a text with their offsets and stems. */
export function textWords(text: string): TextWord[] {
  const out: TextWord[] = []
  for (const match of text.matchAll(TOKEN)) {
    const lower = match[0].normalize('NFKC').toLowerCase()
    let term = stemmed.get(lower)
    if (term === undefined) {
      if (stemmed.size >= STEM_MEMO)
        stemmed.clear()
      stemmed.set(lower, term = stem(lower))
    }
    out.push({ start: match.index, end: match.index + match[0].length, lower, stem: term })
  }
  return out
}

/** The query term a word stands for (its stem, or the typed word it begins with), or `undefined`. */
export function termOf(word: TextWord, query: QueryMarks): string | undefined {
  if (query.stems.has(word.stem))
    return word.stem
  return query.prefix !== undefined && word.lower.startsWith(query.prefix) ? query.prefix : undefined
}

/** One line of Markdown outside code blocks as text: quote and list markers, table rules and pipes dropped, inline markup as it renders. */
function plainLine(line: string): string {
  const bare = line
    .replace(/^ {0,3}(?:>[ \t]?)+/, '')
    .replace(/^[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/, '')
  if (/^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/.test(bare) || /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(bare))
    return ''
  return inlineText(bare).replace(/\|/g, ' ')
}

/**
 * Characters of a section's Markdown that {@link plainText} reads: an excerpt
 * and a section's match need no more, and a hostile section (a megabyte of
 * one word) then costs what a long real one does.
 */
export const MAX_SECTION_CHARS = 32_768

/** A section's Markdown (its first {@link MAX_SECTION_CHARS} characters) as plain text on one line: fences dropped (their code kept), markup removed, spaces collapsed. */
export function plainText(markdown: string): string {
  const out: string[] = []
  let fence: string | undefined
  for (const line of markdown.slice(0, MAX_SECTION_CHARS).split('\n')) {
    const mark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence) {
      if (mark && mark[0] === fence[0] && mark.length >= fence.length && line.trim() === mark)
        fence = undefined
      else
        out.push(line)
    }
    else if (mark) {
      fence = mark
    }
    else {
      out.push(plainLine(line))
    }
  }
  return out.join(' ').replace(/\s+/g, ' ').trim()
}

/** How well texts (a heading and its section) answer the query: distinct terms first, then how often they occur (capped, so one repeated word cannot win). */
export function matchScore(texts: readonly (readonly TextWord[])[], query: QueryMarks): number {
  const counts = new Map<string, number>()
  for (const text of texts) {
    for (const word of text) {
      const term = termOf(word, query)
      if (term !== undefined)
        counts.set(term, (counts.get(term) ?? 0) + 1)
    }
  }
  let score = 0
  for (const count of counts.values())
    score += 10 + Math.min(count, 5)
  return score
}

/** Characters of text before the first matched word of an excerpt, so that it reads in context. */
const LEAD = 40

/**
 * The passage of `text` (plain, see {@link plainText}; `all` its words) of
 * about `length` characters whose window holds the most distinct query terms
 * (then the most matched words), cut at word boundaries, `…` where text was
 * cut, with the query's words marked. The text's start when nothing matches.
 */
export function excerptOf(text: string, all: readonly TextWord[], query: QueryMarks, length: number): SearchUIExcerpt {
  const matched = all.map(word => ({ word, term: termOf(word, query)! })).filter(m => m.term !== undefined)
  // The windows, each starting LEAD before a matched word, slide one way: the words inside are a
  // queue (linear in the matches, where a scan per window is quadratic on a page of one word repeated).
  let from = 0
  let best = -1
  const inside = new Map<string, number>()
  let first = 0
  let last = 0
  for (const { word } of matched) {
    const start = Math.max(0, word.start - LEAD)
    while (last < matched.length && matched[last]!.word.end <= start + length) {
      const term = matched[last++]!.term
      inside.set(term, (inside.get(term) ?? 0) + 1)
    }
    while (first < last && matched[first]!.word.start < start) {
      const term = matched[first++]!.term
      const count = inside.get(term)! - 1
      if (count === 0)
        inside.delete(term)
      else
        inside.set(term, count)
    }
    const score = inside.size * 1_000_000 + (last - first)
    if (score > best) {
      best = score
      from = start
    }
  }
  if (from > 0) {
    // Start at a word: the first one at or after `from`.
    const word = all.find(w => w.start >= from)
    from = word ? word.start : from
  }
  let to = Math.min(text.length, from + length)
  if (to < text.length) {
    const cut = text.lastIndexOf(' ', to)
    to = cut > from ? cut : to
  }
  const before = from > 0 ? '…' : ''
  const body = text.slice(from, to).trim()
  const marks: [number, number][] = []
  for (const { word } of matched) {
    if (word.start >= from && word.end <= from + body.length)
      marks.push([word.start - from + before.length, word.end - from + before.length])
  }
  return { text: `${before}${body}${to < text.length ? '…' : ''}`, marks }
}
