import { resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildMiniLM } from '../../../scripts/models/minilm.mjs'
import { DEFAULT_EMBEDDING_MODEL, DEFAULT_EMBEDDING_REVISION } from '../../../src/knowledge/embedder'
import { loadModelVocabulary, parseModelVocabulary } from '../../../src/knowledge/query-table/vocabulary'
import { FAKE_PIECES, fakeTokenizerJson } from '../../support/fake-model'

describe('the model vocabulary a query table is cut from', () => {
  const modelsDir = resolve(process.env.SKILL_KIT_TEST_MODELS ?? '.cache/models')
  beforeAll(() => buildMiniLM(modelsDir), 180_000)

  it('reads all-MiniLM-L6-v2\'s WordPiece vocabulary and settings: lowercase, accents stripped as BertNormalizer does when unset', () => {
    const vocabulary = loadModelVocabulary(modelsDir, DEFAULT_EMBEDDING_MODEL, DEFAULT_EMBEDDING_REVISION)!
    expect(vocabulary.pieces).toHaveLength(30522)
    expect(vocabulary.pieces.slice(1996, 2000)).toEqual(['the', 'of', 'and', 'in'])
    expect(vocabulary.tokenizer).toEqual({ lowercase: true, stripAccents: true, continuingPrefix: '##', maxCharsPerWord: 100, maxPieces: 256 })
    expect([0, 1, 100, 101, 102, 103].every(id => vocabulary.special.has(id))).toBe(true)
    expect(vocabulary.special.has(1996)).toBe(false)
  })

  it('keeps accents when the tokenizer says so, and refuses a tokenizer that is not BERT WordPiece', () => {
    const json = JSON.parse(fakeTokenizerJson())
    expect(parseModelVocabulary(JSON.stringify(json))!.pieces).toEqual(FAKE_PIECES)
    json.normalizer.strip_accents = false
    expect(parseModelVocabulary(JSON.stringify(json))!.tokenizer.stripAccents).toBe(false)
    expect(parseModelVocabulary(JSON.stringify({ ...json, model: { ...json.model, type: 'BPE' } }))).toBeUndefined()
    expect(parseModelVocabulary(JSON.stringify({ ...json, normalizer: { type: 'NFC' } }))).toBeUndefined()
    expect(parseModelVocabulary(JSON.stringify({ ...json, model: { ...json.model, vocab: { a: 0, a2: 0 } } }))).toBeUndefined()
    expect(parseModelVocabulary('{ not json')).toBeUndefined()
  })

  it('accepts IDs no piece has, as Transformers.js does: an empty, special piece that never becomes a row', () => {
    const json = JSON.parse(fakeTokenizerJson())
    const vocabulary = parseModelVocabulary(JSON.stringify({ ...json, added_tokens: [], model: { ...json.model, vocab: { a: 0, b: 2 } } }))!
    expect(vocabulary.pieces).toEqual(['a', '', 'b'])
    expect(vocabulary.special.has(1)).toBe(true)
    expect(vocabulary.special.has(2)).toBe(false)
  })

  it('is undefined for a model folder without tokenizer.json', () => {
    expect(loadModelVocabulary(modelsDir, 'nobody/no-model', 'main')).toBeUndefined()
  })
})
