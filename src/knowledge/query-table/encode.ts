// Writes a query table (see `runtime/knowledge/vector/encoder/format.ts`): a JSON core
// with the vocabulary, and the int8 rows in shards of a few rows, so that a
// query fetches only the shards of its own pieces. The bytes depend on the
// table's content only (no time, no map order, not the order of its pieces),
// so that unchanged builds publish byte-identical files, which caches keep.

import type { FrontCodedPieces, QueryTableCore, QueryTableTokenizer } from '../../runtime/knowledge/vector/encoder/format'
import type { QueryTable } from './table'
import { QUERY_TABLE_FORMAT, QUERY_TABLE_MAGIC, QUERY_TABLE_SHARD_HEADER } from '../../runtime/knowledge/vector/encoder/format'
import { crc32 } from '../../runtime/knowledge/format/crc32'
import { DEFAULT_MAX_SHARDS, layoutRows } from './layout'

/** How {@link encodeQueryTable} cuts the rows. */
export interface EncodeQueryTableOptions {
  /**
   * Shards at most (default {@link DEFAULT_MAX_SHARDS}): frequent pieces (by
   * the table's `counts`) in small shards, rare ones in large ones (see layout.ts).
   */
  maxShards?: number
  /** The same rows a shard for every piece (its last shard the rest), instead of `maxShards`'s layout: for benchmarks. */
  rowsPerShard?: number
}

/** A query table's files: `query-table.json` (the core) and `query-table-<s>.bin` (shard s). */
export interface EncodedQueryTable {
  core: Uint8Array
  shards: Uint8Array[]
}

/** A float32 as the shortest decimal of at most 9 significant digits that reads back to it. */
function float32Number(value: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const short = Number(value.toPrecision(digits))
    if (Math.fround(short) === value)
      return short
  }
  return Number(value.toPrecision(9))
}

function check(table: QueryTable, { maxShards, rowsPerShard }: EncodeQueryTableOptions): void {
  const { dimensions: d, vocabulary, rows, weights, bias } = table
  if (!Number.isInteger(d) || d <= 0)
    throw new Error(`A query table needs a positive whole number of dimensions, not ${d}.`)
  for (const [name, value] of [['rowsPerShard', rowsPerShard], ['maxShards', maxShards]] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw new Error(`${name} must be a positive whole number, not ${value}.`)
  }
  if (table.counts && table.counts.length !== vocabulary.length)
    throw new Error(`A query table of ${vocabulary.length} pieces has ${table.counts.length} counts.`)
  if (rows.length !== vocabulary.length * d || weights.length !== vocabulary.length || bias.length !== d)
    throw new Error(`A query table of ${vocabulary.length} pieces × ${d} dimensions has ${rows.length} row values, ${weights.length} weights and ${bias.length} bias values.`)
  if (new Set(vocabulary).size !== vocabulary.length || vocabulary.some(piece => typeof piece !== 'string' || piece === ''))
    throw new Error('A query table\'s pieces must be unique, non-empty strings.')
  for (const [name, values] of [['row', rows], ['weight', weights], ['bias', bias]] as const) {
    if (!values.every(Number.isFinite))
      throw new Error(`A query table's ${name} values must be finite numbers.`)
  }
}

/** Sorted pieces front-coded: each as the units it shares with the one before (whole code points) and the rest. */
function frontCode(pieces: readonly string[]): FrontCodedPieces {
  const shared: number[] = []
  const suffixes: string[] = []
  let previous = ''
  for (const piece of pieces) {
    let k = 0
    while (k < piece.length && k < previous.length && piece.charCodeAt(k) === previous.charCodeAt(k))
      k++
    // Never end the shared part between the halves of a surrogate pair.
    if (k > 0 && k < piece.length && /[\uD800-\uDBFF]/.test(piece[k - 1]!))
      k--
    shared.push(k)
    suffixes.push(piece.slice(k))
    previous = piece
  }
  return { shared, suffixes }
}

/** The tokenizer settings with their keys in the format's order. */
function tokenizerSettings(tokenizer: QueryTableTokenizer): QueryTableTokenizer {
  const { lowercase, stripAccents, continuingPrefix, maxCharsPerWord, maxPieces, specialTokens } = tokenizer
  return { lowercase, stripAccents, continuingPrefix, maxCharsPerWord, maxPieces, ...specialTokens ? { specialTokens: [...specialTokens] } : {} }
}

/** Every row's bytes, in `order`: its scale, weight and int8 values (format.ts). */
function encodeRows(table: QueryTable, order: readonly number[]): Uint8Array {
  const d = table.dimensions
  const bytes = new Uint8Array(order.length * (8 + d))
  const dv = new DataView(bytes.buffer)
  order.forEach((source, r) => {
    const row = table.rows.subarray(source * d, (source + 1) * d)
    let max = 0
    for (let k = 0; k < d; k++)
      max = Math.max(max, Math.abs(row[k]!))
    const scale = Math.fround(max / 127)
    const at = r * (8 + d)
    dv.setFloat32(at, scale, true)
    dv.setFloat32(at + 4, table.weights[source]!, true)
    for (let k = 0; k < d; k++)
      dv.setInt8(at + 8 + k, scale === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(row[k]! / scale))))
  })
  return bytes
}

/** Shard `s`: its header, then rows [first, first + count) of `rows`. */
function encodeShard(rows: Uint8Array, rowBytes: number, build: number, s: number, first: number, count: number): Uint8Array {
  const bytes = new Uint8Array(QUERY_TABLE_SHARD_HEADER + count * rowBytes)
  const dv = new DataView(bytes.buffer)
  for (let i = 0; i < 4; i++)
    bytes[i] = QUERY_TABLE_MAGIC.charCodeAt(i)
  dv.setUint32(4, QUERY_TABLE_FORMAT, true)
  dv.setUint32(12, build, true)
  dv.setUint32(16, s, true)
  dv.setUint32(20, first, true)
  dv.setUint32(24, count, true)
  bytes.set(rows.subarray(first * rowBytes, (first + count) * rowBytes), QUERY_TABLE_SHARD_HEADER)
  dv.setUint32(8, crc32(bytes, 12), true)
  return bytes
}

/**
 * The files of `table`: deterministic bytes (the same table gives
 * byte-identical files), rows quantised to int8 with a scale each, in at
 * most `maxShards` shards. Throws an Error for a table that is not whole
 * (lengths that disagree, repeated pieces, values that are not finite): a
 * build-time bug, not user input.
 */
export function encodeQueryTable(table: QueryTable, options: EncodeQueryTableOptions = {}): EncodedQueryTable {
  check(table, options)
  // Sorted pieces: the files do not depend on the order the table lists them in, and the core front-codes them.
  const sorted = table.vocabulary.map((_, i) => i).sort((a, b) => table.vocabulary[a]! < table.vocabulary[b]! ? -1 : 1)
  const { order, groups } = options.rowsPerShard !== undefined
    ? { order: sorted, groups: sorted.length > 0 ? [{ pieces: sorted.length, rowsPerShard: options.rowsPerShard }] : [] }
    : layoutRows(table.counts ?? new Float32Array(sorted.length), sorted, options.maxShards ?? DEFAULT_MAX_SHARDS)
  const rows = encodeRows(table, order)
  const build = crc32(rows)
  const shards: Uint8Array[] = []
  let first = 0
  for (const { pieces, rowsPerShard } of groups) {
    for (let at = 0; at < pieces; at += rowsPerShard)
      shards.push(encodeShard(rows, 8 + table.dimensions, build, shards.length, first + at, Math.min(rowsPerShard, pieces - at)))
    first += pieces
  }
  const core: Omit<QueryTableCore, 'vocabulary' | 'groups'> & { groups: [number, number][], vocabulary: FrontCodedPieces } = {
    format: QUERY_TABLE_FORMAT,
    model: table.model,
    dimensions: table.dimensions,
    tokenizer: tokenizerSettings(table.tokenizer),
    pooling: table.pooling,
    bias: Array.from(table.bias, float32Number),
    groups: groups.map(({ pieces, rowsPerShard }) => [pieces, rowsPerShard]),
    shards: shards.length,
    build,
    vocabulary: frontCode(order.map(i => table.vocabulary[i]!)),
  }
  return { core: new TextEncoder().encode(JSON.stringify(core)), shards }
}
