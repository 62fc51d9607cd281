// The model's WordPiece vocabulary and tokenizer settings, read from its
// tokenizer.json: the table's pieces are model token IDs, and a static query
// encoder must cut a query exactly as the model's tokenizer does.

import type { QueryTableTokenizer } from '../../runtime/knowledge/vector/encoder/format'
import { readFileSync } from 'node:fs'
import { locateModelFiles } from '../embedder-files'

/** A WordPiece model's vocabulary (piece `i` is token ID `i`) and how it cuts text. */
export interface ModelVocabulary {
  pieces: readonly string[]
  tokenizer: QueryTableTokenizer
  /** Token IDs of the special tokens ([CLS], [SEP], [PAD], [UNK], [MASK], [unusedN]) and of holes (IDs without a piece, whose piece is ''): never rows of a table. */
  special: ReadonlySet<number>
}

/** Pieces of one query read at most: a query longer than this is a prompt, whose first pieces carry its topic. */
export const DEFAULT_MAX_PIECES = 256

interface TokenizerJson {
  normalizer?: { type?: string, lowercase?: boolean, strip_accents?: boolean | null } | null
  pre_tokenizer?: { type?: string } | null
  model?: { type?: string, vocab?: Record<string, number>, continuing_subword_prefix?: string, max_input_chars_per_word?: number }
  added_tokens?: { id: number, content: string, special?: boolean }[]
}

/**
 * The vocabulary of a BERT WordPiece tokenizer.json (its `BertNormalizer` and
 * `BertPreTokenizer` are what the runtime tokenizer reproduces); `undefined`
 * for any other kind of tokenizer, whose queries no static table can cut.
 */
export function parseModelVocabulary(json: string): ModelVocabulary | undefined {
  let parsed: TokenizerJson
  try {
    parsed = JSON.parse(json) as TokenizerJson
  }
  catch {
    return undefined
  }
  const { normalizer, pre_tokenizer: preTokenizer, model } = parsed
  if (model?.type !== 'WordPiece' || !model.vocab || normalizer?.type !== 'BertNormalizer' || preTokenizer?.type !== 'BertPreTokenizer')
    return undefined
  const pieces: string[] = []
  for (const [piece, id] of Object.entries(model.vocab)) {
    if (!Number.isInteger(id) || id < 0 || id > 1e7 || pieces[id] !== undefined)
      return undefined
    pieces[id] = piece
  }
  const special = new Set<number>()
  // An ID no piece has (Transformers.js accepts such holes) is never produced: an empty piece, never a row.
  for (let i = 0; i < pieces.length; i++) {
    if (pieces[i] === undefined) {
      pieces[i] = ''
      special.add(i)
    }
  }
  for (const token of parsed.added_tokens ?? []) {
    if (token.special)
      special.add(token.id)
  }
  pieces.forEach((piece, id) => {
    if (/^\[(?:unused\d+|PAD|UNK|CLS|SEP|MASK)\]$/.test(piece))
      special.add(id)
  })
  const lowercase = normalizer.lowercase ?? true
  return {
    pieces,
    special,
    tokenizer: {
      lowercase,
      // BertNormalizer: no strip_accents setting means "as lowercase".
      stripAccents: normalizer.strip_accents ?? lowercase,
      continuingPrefix: model.continuing_subword_prefix ?? '##',
      maxCharsPerWord: model.max_input_chars_per_word ?? 100,
      maxPieces: DEFAULT_MAX_PIECES,
    },
  }
}

/**
 * The vocabulary of a model prepared in `cacheDir` (the embedder's model folder,
 * as `createTransformersEmbedder` reads it); `undefined` when its tokenizer.json
 * is missing or is not a BERT WordPiece tokenizer.
 */
export function loadModelVocabulary(cacheDir: string, model: string, revision: string): ModelVocabulary | undefined {
  const path = locateModelFiles(cacheDir, model, revision, 'q8').found['tokenizer.json']
  return path ? parseModelVocabulary(readFileSync(path, 'utf8')) : undefined
}
