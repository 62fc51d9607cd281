// BERT's basic tokenizer and WordPiece, zero-dependency, cutting a query into
// the pieces of a query table's vocabulary. With a model's whole vocabulary it
// gives the ids Transformers.js's tokenizer gives (tokenizers.js 0.2: its
// BertNormalizer, BertPreTokenizer and WordPiece model, quirks included: CJK
// characters are found per UTF-16 unit, so only those of the Basic
// Multilingual Plane are split apart; lowercasing applies to the whole text, so
// a final sigma stays one), so that a table row matches the model's token.
// test/runtime/knowledge/vector/encoder/wordpiece.test.ts checks it on thousands of
// strings against the real tokenizer.

import type { QueryTableTokenizer } from './format'

/** The row of a word no piece of the vocabulary spells (BERT's `[UNK]`), or a special token the vocabulary lacks. */
export const UNKNOWN_PIECE = -1

/**
 * Cuts a text into the rows of its pieces, in order: vocabulary indexes,
 * {@link UNKNOWN_PIECE} for an unknown word; its first `limit` only, when
 * given (a long prompt's later words are then never cut).
 */
export type PieceTokenizer = (text: string, limit?: number) => number[]

// BertNormalizer's clean_text: NUL, U+FFFD and control characters (Cc, Cf, Co, Cs; not tab, LF, CR) go, whitespace becomes a space.
const REMOVED = /[\0\uFFFD]|(?![\t\n\r])[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/gu
const WHITESPACE = /\s/g
// tokenize_chinese_chars tests each UTF-16 unit, so only these BMP ranges of its list can match.
const CJK = /[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]/g
const MARKS = /\p{Mn}/gu
// BertPreTokenizer: runs of what is neither whitespace nor punctuation, or one punctuation character (\p{P} and ASCII symbols).
const PUNCTUATION = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E'
const WORDS = new RegExp(`[^\\s${PUNCTUATION}]+|[${PUNCTUATION}]`, 'gu')

/** A trie of the special tokens by UTF-16 unit, matched longest first at each place, as tokenizers.js's DictionarySplitter does. */
interface Trie { [unit: string]: Trie | string | undefined, end?: string }

function buildTrie(tokens: readonly string[]): Trie {
  const root: Trie = Object.create(null)
  for (const token of tokens) {
    let node = root
    for (let i = 0; i < token.length; i++)
      node = (node[token[i]!] ??= Object.create(null)) as Trie
    node.end = token
  }
  return root
}

/** `text` cut around the special tokens it holds: plain sections and tokens, in order. */
function splitSpecial(text: string, trie: Trie): { text: string, special: boolean }[] {
  const sections: { text: string, special: boolean }[] = []
  let start = 0
  for (let i = 0; i < text.length;) {
    let node: Trie | undefined = trie
    let match: string | undefined
    for (let j = i; j < text.length && (node = node[text[j]!] as Trie | undefined); j++)
      match = node.end ?? match
    if (!match) {
      i++
      continue
    }
    if (i > start)
      sections.push({ text: text.slice(start, i), special: false })
    sections.push({ text: match, special: true })
    i += match.length
    start = i
  }
  if (start < text.length)
    sections.push({ text: text.slice(start), special: false })
  return sections
}

/**
 * The tokenizer of a query table: `vocabulary[i]` is row i; `settings` are the
 * core's. Never throws: any string cuts into pieces (none for an empty one).
 */
export function wordPieceTokenizer(vocabulary: readonly string[], settings: QueryTableTokenizer): PieceTokenizer {
  const rows = new Map<string, number>()
  // In UTF-16 units: at least a piece's length in code points, so still a bound on the pieces worth looking up.
  let longest = 0
  for (let i = 0; i < vocabulary.length; i++) {
    rows.set(vocabulary[i]!, i)
    longest = Math.max(longest, vocabulary[i]!.length)
  }
  const { lowercase, stripAccents, continuingPrefix, maxCharsPerWord } = settings
  const prefixLength = [...continuingPrefix].length
  const trie = buildTrie(settings.specialTokens ?? [])

  const normalize = (text: string): string => {
    let out = text.replace(REMOVED, '').replace(WHITESPACE, ' ').replace(CJK, ' $& ')
    if (lowercase)
      out = out.toLowerCase()
    return stripAccents ? out.normalize('NFD').replace(MARKS, '') : out
  }

  /** Greedy longest-match-first pieces of one word; a substring longer than any piece is never looked up. */
  const wordPieces = (word: string, out: number[]): void => {
    // offsets[c]: where code point c starts in the word (one past its end for c = count).
    const offsets = [0]
    for (let i = 0; i < word.length; i++) {
      const code = word.charCodeAt(i)
      if (code >= 0xD800 && code <= 0xDBFF && i + 1 < word.length && (word.charCodeAt(i + 1) & 0xFC00) === 0xDC00)
        i++
      offsets.push(i + 1)
    }
    const count = offsets.length - 1
    if (count > maxCharsPerWord) {
      out.push(UNKNOWN_PIECE)
      return
    }
    const at = out.length
    for (let start = 0; start < count;) {
      const room = longest - (start > 0 ? prefixLength : 0)
      let end = Math.min(count, start + room)
      let row: number | undefined
      for (; end > start; end--) {
        const piece = word.slice(offsets[start], offsets[end])
        row = rows.get(start > 0 ? continuingPrefix + piece : piece)
        if (row !== undefined)
          break
      }
      if (row === undefined) {
        out.length = at
        out.push(UNKNOWN_PIECE)
        return
      }
      out.push(row)
      start = end
    }
  }

  return (text, limit = Infinity) => {
    const out: number[] = []
    for (const section of splitSpecial(text, trie)) {
      if (out.length >= limit)
        break
      if (section.special) {
        out.push(rows.get(section.text) ?? UNKNOWN_PIECE)
        continue
      }
      for (const [word] of normalize(section.text).trim().matchAll(WORDS)) {
        if (out.length >= limit)
          break
        wordPieces(word, out)
      }
    }
    return out.length > limit ? out.slice(0, limit) : out
  }
}
