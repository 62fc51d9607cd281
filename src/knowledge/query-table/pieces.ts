// Which of the model's pieces a table ships, and the weight of each.

import type { ModelVocabulary } from './vocabulary'

/** Pieces of the model's vocabulary kept beside the corpus's own (default of `commonPieces`). */
export const DEFAULT_COMMON_PIECES = 5000

/**
 * The token IDs a table keeps, ascending: every piece the corpus uses, the
 * `common` most frequent other pieces (a BERT vocabulary lists whole words
 * roughly by frequency after its single characters, so its first ones are the
 * common ones), and every single character with its continuing form, so that
 * any word of the model's alphabet still cuts into pieces the table has.
 */
export function keptPieces(vocabulary: ModelVocabulary, corpusCounts: ReadonlyMap<number, number>, common: number): number[] {
  const { pieces, special, tokenizer } = vocabulary
  const keep = new Set<number>()
  for (const id of corpusCounts.keys()) {
    if (!special.has(id) && id < pieces.length)
      keep.add(id)
  }
  let added = 0
  for (let id = 0; id < pieces.length; id++) {
    if (special.has(id))
      continue
    const piece = pieces[id]!
    const bare = piece.startsWith(tokenizer.continuingPrefix) ? piece.slice(tokenizer.continuingPrefix.length) : piece
    if ([...bare].length <= 1) {
      keep.add(id)
    }
    else if (added < common && !keep.has(id)) {
      keep.add(id)
      added++
    }
  }
  return [...keep].sort((a, b) => a - b)
}

/** How often each token ID occurs in the tokenized corpus. */
export function countPieces(tokenized: Iterable<readonly number[]>): Map<number, number> {
  const counts = new Map<number, number>()
  for (const ids of tokenized) {
    for (const id of ids)
      counts.set(id, (counts.get(id) ?? 0) + 1)
  }
  return counts
}

/**
 * Smooth inverse frequency weights (Arora et al.): `a / (a + p)`, p being the
 * piece's share of the corpus's pieces, so that a piece the corpus repeats
 * everywhere counts little in a query and one it never uses counts fully.
 */
export function sifWeights(ids: readonly number[], counts: ReadonlyMap<number, number>, a: number): Float32Array {
  let total = 0
  for (const c of counts.values())
    total += c
  const weights = new Float32Array(ids.length)
  ids.forEach((id, i) => {
    const p = total > 0 ? (counts.get(id) ?? 0) / total : 0
    weights[i] = a / (a + p)
  })
  return weights
}
