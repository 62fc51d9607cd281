// The static query encoder: a query's vector from a query table (format.ts),
// with no model, no WebAssembly and no dependency. It cuts the query into the
// table's pieces, fetches the shards holding those pieces' rows (each once,
// in parallel, kept for later queries), and pools them: microseconds a query
// once its shards are in, a few KB fetched for a short one.

import type { EmbedQuery } from '../../query-embedder'
import type { QueryTableCore } from './format'
import type { QueryTableShard } from './read'
import type { PieceTokenizer } from './wordpiece'
import { quoteForMessage } from '../../../redact'
import { KnowledgeError } from '../../errors'
import { wellFormed } from '../pooling'
import { QUERY_TABLE_CORE_NAME, queryTableShardName, queryTableShardOf, readQueryTableCore, readQueryTableShard } from './read'
import { UNKNOWN_PIECE, wordPieceTokenizer } from './wordpiece'

type Bytes = ArrayBufferLike | ArrayBufferView

/** Where a query table's files come from (Node: files beside the bundle; browsers: fetch). */
export interface QueryTableSource {
  /** The core's bytes (`query-table.json`). */
  core: () => Promise<Bytes>
  /** Shard `index`'s bytes (`query-table-<index>.bin`). */
  shard: (index: number) => Promise<Bytes>
  /** Shard `index`'s name in messages (its URL or file); default `query-table-<index>.bin`. */
  name?: (index: number) => string
  /** The core's name in messages; default `query-table.json`. */
  coreName?: string
  /** The snapshot's model fingerprint: a table distilled from another model is refused (`snapshot-mismatch`). */
  model?: string
}

/** A loaded core: its settings and its tokenizer. */
interface Table {
  core: QueryTableCore
  tokenize: PieceTokenizer
}

/**
 * `weight · row` of each piece found, pooled as the core says, plus its bias,
 * normalised. `rows` are vocabulary indexes whose shards are all in `shards`.
 */
function pool(core: QueryTableCore, shards: Map<number, QueryTableShard>, rows: readonly number[]): Float32Array {
  const d = core.dimensions
  const vector = new Float32Array(d)
  if (rows.length === 0)
    return vector
  const sum = new Float64Array(d)
  let weights = 0
  for (const row of rows) {
    const shard = shards.get(queryTableShardOf(core, row).index)!
    const r = row - shard.firstRow
    const weight = shard.weights[r]!
    const factor = weight * shard.scales[r]!
    const values = shard.values
    for (let k = 0, at = r * d; k < d; k++, at++)
      sum[k]! += factor * values[at]!
    weights += weight
  }
  // Weights that sum to 0 pool to nothing (not NaN): the bias alone remains.
  const divisor = core.pooling === 'mean' ? rows.length : weights
  const scale = divisor === 0 ? 0 : 1 / divisor
  let norm = 0
  for (let k = 0; k < d; k++) {
    sum[k] = sum[k]! * scale + core.bias[k]!
    norm += sum[k]! * sum[k]!
  }
  if (norm === 0)
    return vector
  const inverse = 1 / Math.sqrt(norm)
  for (let k = 0; k < d; k++)
    vector[k] = sum[k]! * inverse
  return vector
}

/**
 * A query embedder over a query table: loads the core on the first query
 * (again after a failure), then per query fetches only the shards of its
 * pieces not fetched yet, in parallel. A file that is not intact is a
 * KnowledgeError `snapshot-unavailable` naming it; a shard of another build,
 * or a table of another model than `source.model`, `snapshot-mismatch`. Errors of `source` itself (a
 * failed fetch) reach the caller as they are, and the next query tries again.
 * A query with none of the table's pieces embeds as the zero vector.
 */
export function staticQueryEmbedder(source: QueryTableSource): EmbedQuery {
  const shardName = source.name ?? queryTableShardName
  let table: Promise<Table> | undefined
  const shards = new Map<number, QueryTableShard>()
  const loading = new Map<number, Promise<void>>()

  const loadTable = async (): Promise<Table> => {
    const bytes = await source.core()
    // Read when the core arrives: a source may name it by a getter.
    const coreName = source.coreName ?? QUERY_TABLE_CORE_NAME
    const core = readQueryTableCore(bytes, coreName)
    if (source.model !== undefined && core.model !== source.model)
      throw new KnowledgeError('snapshot-mismatch', `The query table ${coreName} was distilled from another model than the knowledge snapshot's (${quoteForMessage(core.model)}, not ${quoteForMessage(source.model)}): they come from different builds. Deploy the build's whole output folder again, so that all of its files match.`)
    return { core, tokenize: wordPieceTokenizer(core.vocabulary, core.tokenizer) }
  }

  const loadShard = (core: QueryTableCore, index: number): Promise<void> => {
    let promise = loading.get(index)
    if (!promise) {
      promise = source.shard(index).then((bytes) => {
        shards.set(index, readQueryTableShard(bytes, core, index, shardName(index)))
      })
      promise.catch(() => loading.delete(index))
      loading.set(index, promise)
    }
    return promise
  }

  return async (query) => {
    table ??= loadTable().catch((error: unknown) => {
      table = undefined
      throw error
    })
    const { core, tokenize } = await table
    const rows = tokenize(wellFormed(query), core.tokenizer.maxPieces).filter(row => row !== UNKNOWN_PIECE)
    const wanted = new Set<number>()
    for (const row of rows) {
      const { index } = queryTableShardOf(core, row)
      if (!shards.has(index))
        wanted.add(index)
    }
    if (wanted.size > 0)
      await Promise.all(Array.from(wanted, index => loadShard(core, index)))
    return pool(core, shards, rows)
  }
}
