import type { QueryTableCore, QueryTableTokenizer } from '../../runtime/knowledge/vector/encoder/format'

/**
 * A query table before it is written (see `runtime/knowledge/vector/encoder/format.ts`):
 * float rows, already mapped into the snapshot's vector space, with the weight
 * of each piece.
 */
export interface QueryTable {
  model: string
  dimensions: number
  tokenizer: QueryTableTokenizer
  pooling: QueryTableCore['pooling']
  vocabulary: readonly string[]
  /** vocabulary.length × dimensions, row-major. */
  rows: Float32Array
  /** One weight per row. */
  weights: Float32Array
  bias: Float32Array
  /** How often the corpus uses each row's piece: the files put frequent pieces in small shards (absent: all alike). */
  counts?: Float32Array
}
