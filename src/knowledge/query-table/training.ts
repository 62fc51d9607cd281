// Short texts of the corpus to fit the table's map on: headings and sentences
// look like what people type in a search box far more than whole windows do.

import { hash } from '../../core/hash'

/** How training texts are picked from the corpus. */
export interface TrainingTextOptions {
  /** Most texts kept (default 8,000): past it, a fixed hash order picks which. */
  maxTexts?: number
  /** Shortest text kept, in words (default 2). */
  minWords?: number
  /** Longest text kept, in words (default 40). */
  maxWords?: number
  /** Whole paragraphs too, beside their sentences: longer texts, like task prompts (default false). */
  paragraphs?: boolean
}

/**
 * The headings and prose sentences of Markdown texts, deduplicated, with
 * Markdown syntax taken off (links keep their text, code blocks are dropped).
 * Deterministic: the same texts in any order give the same list.
 */
export function trainingTexts(texts: readonly string[], options: TrainingTextOptions = {}): string[] {
  const { maxTexts = 8000, minWords = 2, maxWords = 40, paragraphs = false } = options
  const found = new Set<string>()
  for (const text of texts) {
    for (const piece of markdownSentences(text, paragraphs)) {
      const words = piece.split(/\s+/).length
      if (words >= minWords && words <= maxWords)
        found.add(piece)
    }
  }
  // A hash order, not the corpus's: a cap then samples every document alike.
  const keyed = [...found].map(text => ({ text, key: hash(text) }))
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  return keyed.slice(0, maxTexts).map(k => k.text)
}

/** Headings and sentences of one Markdown text (and its paragraphs of more than one sentence, with `paragraphs`). */
export function markdownSentences(text: string, paragraphs = false): string[] {
  const out: string[] = []
  let fence: string | undefined
  let paragraph: string[] = []
  const flush = () => {
    if (paragraph.length > 0) {
      const sentences = splitSentences(paragraph.join(' '))
      out.push(...sentences)
      if (paragraphs && sentences.length > 1)
        out.push(sentences.join(' '))
    }
    paragraph = []
  }
  for (const line of text.split(/\r?\n/)) {
    const fenceMark = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence !== undefined) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length)
        fence = undefined
      continue
    }
    if (fenceMark) {
      flush()
      fence = fenceMark
      continue
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading) {
      flush()
      const title = plain(heading[1]!)
      if (title)
        out.push(title)
      continue
    }
    if (/^\s*$/.test(line) || /^\s*\|/.test(line) || /^\s*(?:[-*_]\s*){3,}$/.test(line)) {
      flush()
      continue
    }
    // A list item or quote starts a sentence of its own.
    if (/^\s*(?:[-*+]|\d+[.)]|>)\s+/.test(line))
      flush()
    paragraph.push(plain(line.replace(/^\s*(?:[-*+]|\d+[.)]|>)\s+/, '')))
  }
  flush()
  return out
}

function splitSentences(paragraph: string): string[] {
  return paragraph.split(/(?<=[.!?:;])\s+(?=[A-Z`"'(\d])/).map(s => s.trim()).filter(s => s.length > 0)
}

/** Markdown inline syntax removed: links and images keep their text, emphasis and code marks go. */
function plain(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/[*_`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}
