// A query table of seeded values, for the tests of its writer, reader and encoder.

import type { QueryTable } from '../../src/knowledge/query-table/table'

/** A seeded table: `count` pieces × `dimensions`, values of every sign and size, one row of zeros. */
export function seededTable(count: number, dimensions: number, seed = 1): QueryTable {
  let state = seed
  const random = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 2 ** 32
  }
  const rows = Float32Array.from({ length: count * dimensions }, () => (random() - 0.5) * 3)
  rows.fill(0, 0, dimensions)
  return {
    model: `model-${seed}`,
    dimensions,
    tokenizer: { lowercase: true, stripAccents: true, continuingPrefix: '##', maxCharsPerWord: 100, maxPieces: 254, specialTokens: ['[CLS]', '[SEP]'] },
    pooling: 'weighted-mean',
    vocabulary: Array.from({ length: count }, (_, i) => i % 2 ? `##p${i}` : `p${i}`),
    rows,
    weights: Float32Array.from({ length: count }, () => random()),
    bias: Float32Array.from({ length: dimensions }, () => random() - 0.5),
  }
}
