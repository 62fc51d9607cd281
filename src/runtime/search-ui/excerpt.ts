// Excerpts of search results: a section's Markdown as the text a reader sees,
// the passage around the query's words, and the ranges to mark. A word is the
// query's when its stem is one the query searches (the lexical index's
// tokenizer and stemmer: `animations` is marked for `animating`), or when the
// query's last word, still being typed, begins it (`dial` marks `dialog`).

import type { SearchUIExcerpt } from './types'
import { STOPWORDS, stem, termsOfWords, TOKEN, words } from '../knowledge/lexical/tokens'

/** The query term a word stands for (its stem, or the typed word it begins with), or `undefined`. */
export type WordMatcher = (word: string) => string | undefined

/** Matches words against `query`'s terms, as the lexical search does (stopwords dropped unless the query is nothing else). */
export function queryMatcher(query: string): WordMatcher {
  const all = words(query)
  const stems = new Set(termsOfWords(all))
  const typed = /[\p{L}\p{M}\p{N}]$/u.test(query) ? all.at(-1) : undefined
  // A stopword being typed (`the`) would mark half the page: only informative words are completed.
  const prefix = typed !== undefined && typed.length >= 2 && stems.has(stem(typed)) && !STOPWORDS.has(typed) ? typed : undefined
  return (word) => {
    const lower = word.normalize('NFKC').toLowerCase()
    const term = stem(lower)
    if (stems.has(term))
      return term
    return prefix !== undefined && lower.startsWith(prefix) ? stem(prefix) : undefined
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'', nbsp: ' ', '#39': '\'' }

/** One line of Markdown outside code blocks as text: code spans kept as written, links to their text, tags and markers dropped. */
function plainLine(line: string): string {
  const bare = line
    .replace(/^ {0,3}(?:>[ \t]?)+/, '')
    .replace(/^[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?/, '')
  if (/^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/.test(bare) || /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(bare))
    return ''
  // Links first: their text may hold code spans.
  const unlinked = bare.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
  return unlinked.split(/(`+[^`]*`+)/).map((part, i) => i % 2 === 1
    ? part.replace(/^`+\s?|\s?`+$/g, '')
    : part
        .replace(/<\/?[a-z][^>]*>/gi, ' ')
        .replace(/(\*{1,3}|_{1,3}|~~)(\S(?:.*?\S)?)\1/g, '$2')
        .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name]!)
        .replace(/\\([!-/:-@[-`{-~])/g, '$1')
        .replace(/\|/g, ' '))
    .join('')
}

/** A section's Markdown as plain text on one line: fences dropped (their code kept), markup removed, spaces collapsed. */
export function plainText(markdown: string): string {
  const out: string[] = []
  let fence: string | undefined
  for (const line of markdown.split('\n')) {
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

/** A word of a text and the query term it matched. */
interface Word { start: number, end: number, term: string | undefined }

function wordsOf(text: string, match: WordMatcher): Word[] {
  return [...text.matchAll(TOKEN)].map(m => ({ start: m.index, end: m.index + m[0].length, term: match(m[0]) }))
}

/** How well a text answers the query: distinct terms first, then how often they occur (capped, so one repeated word cannot win). */
export function matchScore(text: string, match: WordMatcher): number {
  const counts = new Map<string, number>()
  for (const word of wordsOf(text, match)) {
    if (word.term !== undefined)
      counts.set(word.term, (counts.get(word.term) ?? 0) + 1)
  }
  let score = 0
  for (const count of counts.values())
    score += 10 + Math.min(count, 5)
  return score
}

/** Characters of text before the first matched word of an excerpt, so that it reads in context. */
const LEAD = 40

/**
 * The passage of `text` (plain, see {@link plainText}) of about `length`
 * characters whose window holds the most distinct query terms (then the most
 * matched words), cut at word boundaries, `…` where text was cut, with the
 * query's words marked. The text's start when nothing matches.
 */
export function excerptOf(text: string, match: WordMatcher, length: number): SearchUIExcerpt {
  const all = wordsOf(text, match)
  const matched = all.filter(w => w.term !== undefined)
  let from = 0
  let best = -1
  for (const first of matched) {
    const start = Math.max(0, first.start - LEAD)
    const inside = matched.filter(w => w.start >= start && w.end <= start + length)
    const score = new Set(inside.map(w => w.term)).size * 1000 + inside.length
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
  for (const word of all) {
    if (word.term !== undefined && word.start >= from && word.end <= from + body.length)
      marks.push([word.start - from + before.length, word.end - from + before.length])
  }
  return { text: `${before}${body}${to < text.length ? '…' : ''}`, marks }
}
