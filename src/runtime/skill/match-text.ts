// Topic and project-code matching for conditional activation: every phrase is
// compiled once and indexed by one of its words (the longest); a text is
// scanned once, word by word, and only the phrases indexed under a word of the
// text are tested, at that word only.
//
// Semantics (the reference a per-phrase regex would give, and the tests check):
// - A word character is a letter, a number, a combining mark or `_`
//   (`\p{L}`, `\p{N}`, `\p{M}`, `_`), in any script.
// - A phrase matches where its characters appear in the text, with a word
//   boundary required only on a side where the phrase has a word character:
//   `database` is not found in `databases` nor `my_database`, `c++` is found in
//   `c++17`, `.net` in `asp.net` but not in `.network`.
// - Whitespace inside a phrase (any run of it) matches any run of whitespace in
//   the text (`\s+`, line breaks included): `schema migration` matches
//   `Schema\n   migration`. Phrases are trimmed.
// - Topics compare case-insensitively, with Unicode simple case folding (the
//   JavaScript `iu` flags); project codes compare case-sensitively, and `#` in a
//   code stands for one ASCII digit `0-9`.
// - Texts are not Unicode-normalised: a composed `é` and `e` + U+0301 differ.
//
// Why an index word is enough: each word of a phrase maps, in any match, to a
// whole word of the text (a maximal run of word characters), because on each
// of its sides there is either a boundary or a non-word character of the
// phrase, and case folding never turns a word character into a non-word one
// (tested). So a phrase can only match where the text has a word with the
// same key as its index word; it is tested there by a sticky regex whose
// lookbehind checks the part of the phrase before that word.

import { work } from '../work'

const WORD_CLASS = '[\\p{L}\\p{N}\\p{M}_]'
// Compiling a regex with these Unicode classes costs about 0.7 ms, so they are
// compiled once, here, and no per-phrase regex contains them: the boundaries
// around a match are checked with `WORD_AT`. The class is closed under case
// folding, so the same regexes serve case-insensitive topics (tested).
/** Runs of word characters. */
const WORD_RUN = new RegExp(`${WORD_CLASS}+`, 'gu')
/** A word character at `lastIndex`. */
const WORD_AT = new RegExp(WORD_CLASS, 'uy')

/** Most phrases without a word character one index keeps: each costs a search of the whole text. */
export const MAX_WORDLESS_PHRASES = 20

/** What a text observation found for one owner (skill). */
export interface PhraseHit {
  /** Index of the phrase in the owner's list. */
  order: number
  /** The phrase as written. */
  value: string
  /** The text it matched. */
  matched: string
  /** Where the match starts in the text. */
  start: number
}

/** A skill that lists a phrase: which one, where in its list, and as written. */
interface PhraseUser {
  owner: number
  order: number
  value: string
}

/** A phrase (trimmed), tested once per place for every skill that lists it. */
interface Phrase {
  /** The phrase trimmed: what decides its key and regex. */
  text: string
  users: PhraseUser[]
  /** Regex source tested at the index word (sticky), or over the whole text for a phrase without words. */
  source: string
  /** Whether `source` starts with a capturing lookbehind for the text before the index word. */
  prefixed: boolean
  /** The phrase starts with a word character before its index word: the text must not have one before the match. */
  boundaryBefore: boolean
  /** The phrase ends with a word character: the text must not continue with one. */
  boundaryAfter: boolean
  /** Compiled on first use; `null` when the engine refused it (the phrase is skipped). */
  regex?: RegExp | null
}

/** A phrase's regex, or `null` when it cannot be compiled (too large for the engine): one phrase never breaks the scan. */
function compile(source: string, flags: string): RegExp | null {
  try {
    return new RegExp(source, flags)
  }
  catch {
    return null
  }
}

interface PhraseOptions {
  /** Regex flags besides `y`/`g`: `iu` for topics, `u` for codes. */
  flags: string
  /** `#` is a digit placeholder (project codes). */
  digitHash: boolean
  /** Key of a phrase's index word. */
  phraseKey: (word: string) => string
  /** Key of a word of the text; equal to `phraseKey` of every word it can match. */
  textKey: (word: string) => string
}

/**
 * Regex source of a piece of a phrase: whitespace runs match any whitespace
 * run, `#` one digit for codes, every other character itself.
 */
function pieceSource(piece: string, digitHash: boolean): string {
  const source = piece.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&').replace(/\s+/gu, '\\s+')
  return digitHash ? source.replace(/#/g, '[0-9]') : source
}

/** Whether a surrogate pair (one character outside the BMP) starts at `index`. */
function pairAt(text: string, index: number): boolean {
  if (index < 0)
    return false
  const high = text.charCodeAt(index)
  const low = text.charCodeAt(index + 1)
  return high >= 0xD800 && high <= 0xDBFF && low >= 0xDC00 && low <= 0xDFFF
}

/** Whether the last character of a non-empty text is a word character. */
function endsWithWord(text: string): boolean {
  return wordAt(text, pairAt(text, text.length - 2) ? text.length - 2 : text.length - 1)
}

/** Whether the character before `index` of `text` is a word character. */
function wordBefore(text: string, index: number): boolean {
  if (index === 0)
    return false
  return wordAt(text, pairAt(text, index - 2) ? index - 2 : index - 1)
}

/** Whether a word character starts at `index` of `text`. */
function wordAt(text: string, index: number): boolean {
  WORD_AT.lastIndex = index
  return WORD_AT.test(text)
}

/** Topics: case-insensitive; the key is the word lower- then upper-cased, which folds every case pair JavaScript's `iu` matching equates. */
export const TOPIC_OPTIONS: PhraseOptions = {
  flags: 'iu',
  digitHash: false,
  phraseKey: word => word.toLowerCase().toUpperCase(),
  textKey: word => word.toLowerCase().toUpperCase(),
}

/** Project codes: case-sensitive; the key is the word's shape, digits and `#` alike. */
export const PROJECT_OPTIONS: PhraseOptions = {
  flags: 'u',
  digitHash: true,
  phraseKey: word => word.replace(/[0-9#]/g, '#'),
  textKey: word => word.replace(/[0-9]/g, '#'),
}

/**
 * Phrases of many owners, each indexed by the key of its longest word. A
 * phrase that several owners list is stored and tested once.
 */
export class PhraseIndex {
  private readonly byKey = new Map<string, Phrase[]>()
  /** Each indexed phrase by its trimmed text (which decides its key and regex). */
  private readonly byText = new Map<string, Phrase>()
  /** Phrases without any word character, tested over the whole text. */
  private wordless: Phrase[] = []
  private readonly keysOf = new Map<number, string[]>()
  constructor(private readonly options: PhraseOptions) {}

  get size(): number {
    return this.byKey.size + this.wordless.length
  }

  add(owner: number, phrases: readonly string[]): void {
    const { digitHash, phraseKey } = this.options
    const keys: string[] = []
    phrases.forEach((raw, order) => {
      const value = raw.trim()
      if (value === '')
        return
      // The index word: the longest (the first of the longest), as the rarest
      // guess (`the database` goes under `database`). In a code, `#` is a word
      // character (a digit), as `0` is.
      const words = digitHash ? value.replace(/#/g, '0') : value
      let start = -1
      let end = -1
      WORD_RUN.lastIndex = 0
      let m: RegExpExecArray | null
      // eslint-disable-next-line no-cond-assign
      while ((m = WORD_RUN.exec(words))) {
        if (m[0].length > end - start) {
          start = m.index
          end = m.index + m[0].length
        }
      }
      if (start < 0) {
        // No word character: no boundary either. Each is searched for over the
        // whole text, so only the first few of all skills are (the compiler
        // refuses them; a registry written by hand may still have some).
        if (this.wordless.length >= MAX_WORDLESS_PHRASES)
          return
        this.wordless.push({ text: value, users: [{ owner, order, value: raw }], source: pieceSource(value, digitHash), prefixed: false, boundaryBefore: false, boundaryAfter: false })
        return
      }
      const key = phraseKey(value.slice(start, end))
      if (!keys.includes(key))
        keys.push(key)
      const known = this.byText.get(value)
      if (known) {
        known.users.push({ owner, order, value: raw })
        return
      }
      // The regex is tried where a word of the text starts, so the boundary
      // before the index word holds already. The text before it must match
      // the rest of the phrase, and the boundary before that is checked by
      // hand (a regex with the word class would cost 0.7 ms to compile).
      const prefix = value.slice(0, start)
      const behind = prefix === '' ? '' : `(?<=(${pieceSource(prefix, digitHash)}))`
      const source = behind + pieceSource(value.slice(start), digitHash)
      const phrase: Phrase = {
        text: value,
        users: [{ owner, order, value: raw }],
        source,
        prefixed: prefix !== '',
        boundaryBefore: prefix !== '' && wordAt(words, 0),
        boundaryAfter: endsWithWord(words),
      }
      const bucket = this.byKey.get(key)
      if (bucket)
        bucket.push(phrase)
      else this.byKey.set(key, [phrase])
      this.byText.set(value, phrase)
    })
    if (keys.length > 0)
      this.keysOf.set(owner, keys)
  }

  /** Drops an owner's phrases (its skill is active now). */
  remove(owner: number): void {
    const others = (phrase: Phrase) => {
      phrase.users = phrase.users.filter(u => u.owner !== owner)
      return phrase.users.length > 0
    }
    for (const key of this.keysOf.get(owner) ?? []) {
      const bucket = this.byKey.get(key)!.filter((phrase) => {
        if (others(phrase))
          return true
        this.byText.delete(phrase.text)
        return false
      })
      if (bucket.length === 0)
        this.byKey.delete(key)
      else this.byKey.set(key, bucket)
    }
    this.keysOf.delete(owner)
    this.wordless = this.wordless.filter(others)
  }

  /**
   * For every owner with a phrase in the text, its first match: the one that
   * starts first, then the one listed first.
   */
  scan(text: string): Map<number, PhraseHit> {
    const hits = new Map<number, PhraseHit>()
    if (this.size === 0 || text === '')
      return hits
    const better = (owner: number, hit: PhraseHit) => {
      const prev = hits.get(owner)
      if (!prev || hit.start < prev.start || (hit.start === prev.start && hit.order < prev.order))
        hits.set(owner, hit)
    }
    const { textKey, flags } = this.options
    for (const phrase of this.wordless) {
      work.steps += text.length
      const regex = phrase.regex === undefined ? (phrase.regex = compile(phrase.source, flags)) : phrase.regex
      const m = regex?.exec(text)
      for (const { owner, order, value } of m ? phrase.users : [])
        better(owner, { order, value, matched: m![0], start: m!.index })
    }
    if (this.byKey.size === 0)
      return hits
    const words = WORD_RUN
    words.lastIndex = 0
    let m: RegExpExecArray | null
    // eslint-disable-next-line no-cond-assign
    while ((m = words.exec(text))) {
      work.steps += m[0].length
      const bucket = this.byKey.get(textKey(m[0]))
      if (bucket === undefined)
        continue
      const next = words.lastIndex
      const at = m.index
      for (const phrase of bucket) {
        work.steps += phrase.source.length
        const regex = phrase.regex === undefined ? (phrase.regex = compile(phrase.source, `y${flags}`)) : phrase.regex
        if (regex === null)
          continue
        regex.lastIndex = at
        const found = regex.exec(text)
        if (found === null || (phrase.boundaryAfter && wordAt(text, regex.lastIndex)))
          continue
        const before = phrase.prefixed ? found[1]! : ''
        const start = at - before.length
        if (phrase.boundaryBefore && wordBefore(text, start))
          continue
        for (const { owner, order, value } of phrase.users)
          better(owner, { order, value, matched: before + found[0], start })
      }
      words.lastIndex = next
    }
    return hits
  }
}
