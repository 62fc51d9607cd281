// A small WordPiece model for the query table's tests: a tokenizer.json, a
// tokenizer that cuts words into its pieces, and an embedder whose vector of a
// window is a fixed linear function of its pieces' hidden vectors (so a
// distilled table can match it), counting what it is asked to embed.

import type { Embedder } from '../../src/knowledge/embedder'

const WORDS = ['the', 'an', 'of', 'to', 'and', 'form', 'forms', 'input', 'validation', 'button', 'dialog', 'modal', 'focus', 'trap', 'cache', 'service', 'worker', 'offline', 'image', 'lazy', 'loading', 'font', 'layout', 'grid', 'color', 'dark', 'mode', 'theme', 'css', 'html', 'view', 'transition', 'scroll', 'animation', 'how', 'do', 'we', 'use', 'with', 'for', 'in', 'my', 'page', 'site', 'fast', 'error', 'check', 'submit', 'open', 'close']
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('')

/** The fake model's vocabulary, token ID = index. */
export const FAKE_PIECES: string[] = ['[PAD]', '[unused0]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...LETTERS, ...LETTERS.map(l => `##${l}`), ...WORDS]
export const FAKE_DIMENSIONS = 8

/** The fake model's tokenizer.json (the fields the table reads). */
export function fakeTokenizerJson(): string {
  return JSON.stringify({
    normalizer: { type: 'BertNormalizer', lowercase: true, strip_accents: null },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    model: { type: 'WordPiece', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(FAKE_PIECES.map((p, i) => [p, i])) },
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map(content => ({ id: FAKE_PIECES.indexOf(content), content, special: true })),
  })
}

/** Whole words of the vocabulary as one piece, others letter by letter. */
export function fakeTokenize(text: string): number[] {
  const ids: number[] = []
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const id = FAKE_PIECES.indexOf(word)
    if (id >= 0)
      ids.push(id)
    else [...word].forEach((c, k) => ids.push(FAKE_PIECES.indexOf(k === 0 ? c : `##${c}`)))
  }
  return ids
}

/** A deterministic pseudo-random number in [-1, 1) from two integers. */
function noise(a: number, b: number): number {
  let h = Math.imul(a + 1, 0x9E3779B1) ^ Math.imul(b + 7, 0x85EBCA77)
  h = Math.imul(h ^ (h >>> 15), 0x2C1B3C6D)
  h ^= h >>> 12
  return ((h >>> 0) / 2 ** 32) * 2 - 1
}

/** The hidden vector of a piece. */
function hidden(id: number): number[] {
  return Array.from({ length: FAKE_DIMENSIONS }, (_, d) => noise(id, d))
}

/** The fixed map a window's mean hidden vector goes through. */
const MIX = Array.from({ length: FAKE_DIMENSIONS }, (_, i) => Array.from({ length: FAKE_DIMENSIONS }, (_, o) => (i === o ? 2 : 0) + 0.5 * noise(100 + i, o)))
/** Another for a piece alone, as a transformer's output for one token is not in its sentences' space. */
const ALONE = Array.from({ length: FAKE_DIMENSIONS }, (_, i) => Array.from({ length: FAKE_DIMENSIONS }, (_, o) => (i === o ? 1 : 0) + noise(200 + i, o)))
const SHIFT = Array.from({ length: FAKE_DIMENSIONS }, (_, d) => 0.3 * noise(999, d))

function normalize(v: number[]): Float32Array {
  const n = Math.hypot(...v) || 1
  return Float32Array.from(v, x => x / n)
}

/** What the fake model answers for a window: normalize(mean(hidden) · MIX + SHIFT), or normalize(hidden · ALONE) for one piece. */
export function fakeVector(ids: readonly number[]): Float32Array {
  const mean = Array.from({ length: FAKE_DIMENSIONS }, () => 0)
  for (const id of ids) {
    hidden(id).forEach((v, d) => {
      mean[d]! += v / ids.length
    })
  }
  const [mix, shift] = ids.length === 1 ? [ALONE, SHIFT.map(() => 0)] : [MIX, SHIFT]
  return normalize(Array.from({ length: FAKE_DIMENSIONS }, (_, o) => shift[o]! + mean.reduce((s, v, i) => s + v * mix[i]![o]!, 0)))
}

/** The fake embedder, with the windows it was asked to embed. */
export function fakeEmbedder(fingerprint = 'fake-model'): Embedder & { asked: number[][] } {
  const asked: number[][] = []
  return {
    asked,
    fingerprint,
    dimensions: FAKE_DIMENSIONS,
    maxTokens: 64,
    reservedTokens: { document: 2, query: 2 },
    tokenize: fakeTokenize,
    embed: async texts => texts.map(t => fakeVector(fakeTokenize(t))),
    embedTokens: async (windows) => {
      asked.push(...windows.map(w => [...w]))
      return windows.map(w => fakeVector(w))
    },
    dispose: async () => {},
  }
}
