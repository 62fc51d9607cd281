// Reads and checks a query table's files (see format.ts). They come over the
// network or from a deployed folder, so nothing in them is trusted: a file
// that is not what its core promises is refused whole, as a KnowledgeError
// naming it, never read out of bounds or half used: `snapshot-unavailable`
// for a damaged file, `snapshot-mismatch` for a shard of another build (as a
// sharded snapshot's shards are), so callers handle the codes they know.
// What the files say reaches a message only quoted and bounded.

import type { QueryTableCore, QueryTableTokenizer } from './format'
import { quoteForMessage } from '../../../redact'
import { KnowledgeError } from '../../errors'
import { bytesOf } from '../../format/snapshot-container'
import { crc32 } from '../../format/crc32'
import { QUERY_TABLE_FORMAT, QUERY_TABLE_MAGIC, QUERY_TABLE_SHARD_HEADER } from './format'

/** The rows of one shard, checked against its core. */
export interface QueryTableShard {
  index: number
  /** Row (vocabulary index) of the shard's first row. */
  firstRow: number
  rowCount: number
  /** Per row: its values are `scales[r] × values[r·D + k]`. */
  scales: Float32Array
  weights: Float32Array
  /** rowCount × D int8 values, row-major. */
  values: Int8Array
}

/** The name of shard `index` for messages, as the plugin names its file. */
export const queryTableShardName = (index: number): string => `query-table-${index}.bin`
/** The core's name for messages, as the plugin names its file. */
export const QUERY_TABLE_CORE_NAME = 'query-table.json'

/** Most dimensions a core may declare: far above any embedding model, low enough that a damaged number allocates nothing absurd. */
const MAX_DIMENSIONS = 65_536
const REBUILD = 'Rebuild the project, and deploy its whole output folder.'
const DEPLOY = 'Deploy the build\'s whole output folder again, so that all of its files match.'
const hex = (n: number) => n.toString(16).padStart(8, '0')

function unreadable(name: string, problem: string, fix = REBUILD): never {
  throw new KnowledgeError('snapshot-unavailable', `Cannot read the query table file ${name}: ${problem}. ${fix}`)
}

const isString = (value: unknown): value is string => typeof value === 'string'
const isCount = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && (value as number) >= min

function readTokenizer(raw: unknown, name: string): QueryTableTokenizer {
  const t = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>
  const { lowercase, stripAccents, continuingPrefix, maxCharsPerWord, maxPieces, specialTokens } = t
  if (typeof lowercase !== 'boolean' || typeof stripAccents !== 'boolean' || !isString(continuingPrefix) || !isCount(maxCharsPerWord, 1) || !isCount(maxPieces, 1))
    unreadable(name, 'its tokenizer settings are missing or invalid')
  if (specialTokens !== undefined && !(Array.isArray(specialTokens) && specialTokens.every(s => isString(s) && s !== '')))
    unreadable(name, 'its special tokens are not a list of non-empty strings')
  return { lowercase, stripAccents, continuingPrefix, maxCharsPerWord, maxPieces, ...specialTokens ? { specialTokens } : {} }
}

/** The runs of `groups` (format.ts), or `undefined` unless each is a pair of positive whole numbers. */
function readGroups(raw: unknown): QueryTableCore['groups'] | undefined {
  if (!Array.isArray(raw) || !raw.every(g => Array.isArray(g) && g.length === 2 && isCount(g[0], 1) && isCount(g[1], 1)))
    return undefined
  return raw.map(([pieces, rowsPerShard]: [number, number]) => ({ pieces, rowsPerShard }))
}

/** The pieces of a front-coded vocabulary (format.ts), or `undefined` unless they are unique, non-empty and sorted within each run of `groups`. */
function readPieces(raw: unknown, groups: QueryTableCore['groups']): string[] | undefined {
  const { shared, suffixes } = (typeof raw === 'object' && raw !== null ? raw : {}) as { shared?: unknown, suffixes?: unknown }
  if (!Array.isArray(shared) || !Array.isArray(suffixes) || shared.length !== suffixes.length)
    return undefined
  const starts = new Set<number>()
  for (let g = 0, at = 0; g < groups.length; at += groups[g]!.pieces, g++)
    starts.add(at)
  const pieces: string[] = []
  let previous = ''
  for (let i = 0; i < shared.length; i++) {
    const k = shared[i]
    const suffix = suffixes[i]
    if (!Number.isInteger(k) || k < 0 || k > previous.length || !isString(suffix))
      return undefined
    const piece = previous.slice(0, k) + suffix
    if (!(piece > previous) && !(starts.has(i) && piece !== ''))
      return undefined
    pieces.push(piece)
    previous = piece
  }
  return new Set(pieces).size === pieces.length ? pieces : undefined
}

/** The shard that holds `row`, and the rows it holds, by the core's groups. */
export function queryTableShardOf(core: Pick<QueryTableCore, 'groups'>, row: number): { index: number, firstRow: number, rowCount: number } {
  let index = 0
  let first = 0
  for (const { pieces, rowsPerShard } of core.groups) {
    if (row < first + pieces) {
      const s = Math.floor((row - first) / rowsPerShard)
      return { index: index + s, firstRow: first + s * rowsPerShard, rowCount: Math.min(rowsPerShard, pieces - s * rowsPerShard) }
    }
    index += Math.ceil(pieces / rowsPerShard)
    first += pieces
  }
  return { index, firstRow: first, rowCount: 0 }
}

/** The first row and row count of shard `index`, by the core's groups; `undefined` past the last shard. */
function shardRows(core: QueryTableCore, index: number): { firstRow: number, rowCount: number } | undefined {
  let shard = 0
  let first = 0
  for (const { pieces, rowsPerShard } of core.groups) {
    const count = Math.ceil(pieces / rowsPerShard)
    if (index < shard + count) {
      const s = index - shard
      return { firstRow: first + s * rowsPerShard, rowCount: Math.min(rowsPerShard, pieces - s * rowsPerShard) }
    }
    shard += count
    first += pieces
  }
  return undefined
}

/** Bytes of a shard of `rows` rows of `dimensions` values. */
export const queryTableShardBytes = (rows: number, dimensions: number): number => QUERY_TABLE_SHARD_HEADER + rows * (8 + dimensions)

/**
 * The core of a query table, checked: its format, every field's type, the
 * bias's and the shard list's lengths. Throws a KnowledgeError
 * `snapshot-unavailable` naming the file (`name`) otherwise.
 */
export function readQueryTableCore(input: ArrayBufferLike | ArrayBufferView, name = QUERY_TABLE_CORE_NAME): QueryTableCore {
  let raw: Record<string, unknown>
  try {
    raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytesOf(input)))
  }
  catch {
    unreadable(name, 'it is not UTF-8 JSON')
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    unreadable(name, 'it is not a JSON object')
  if (raw.format !== QUERY_TABLE_FORMAT)
    unreadable(name, `it is in format ${raw.format === undefined ? 'none' : quoteForMessage(raw.format)}, and this version of unplugin-skill-kit reads format ${QUERY_TABLE_FORMAT}`, 'Rebuild the project with the version of unplugin-skill-kit that searches it, and deploy its whole output folder.')
  const { model, dimensions, pooling, bias, shards, build, vocabulary } = raw
  if (!isString(model))
    unreadable(name, 'it names no model')
  if (!isCount(dimensions, 1) || dimensions > MAX_DIMENSIONS)
    unreadable(name, `its dimensions (${quoteForMessage(dimensions)}) are not a whole number from 1 to ${MAX_DIMENSIONS}`)
  const tokenizer = readTokenizer(raw.tokenizer, name)
  if (pooling !== 'mean' && pooling !== 'weighted-mean')
    unreadable(name, `its pooling ${quoteForMessage(pooling)} is neither "mean" nor "weighted-mean"`)
  if (!Array.isArray(bias) || bias.length !== dimensions || !bias.every(Number.isFinite))
    unreadable(name, `its bias is not ${dimensions} numbers`)
  const groups = readGroups(raw.groups)
  if (!groups)
    unreadable(name, 'its groups are not a list of [pieces, rows a shard] pairs of positive whole numbers')
  const pieces = readPieces(vocabulary, groups)
  if (!pieces)
    unreadable(name, 'its vocabulary is not a front-coded list of unique, non-empty pieces, sorted within each group')
  const grouped = groups.reduce((sum, g) => sum + g.pieces, 0)
  if (grouped !== pieces.length)
    unreadable(name, `its groups hold ${grouped} pieces where its vocabulary has ${pieces.length}`)
  const filled = groups.reduce((sum, g) => sum + Math.ceil(g.pieces / g.rowsPerShard), 0)
  if (shards !== filled)
    unreadable(name, `it does not count the ${filled} shards its ${pieces.length} pieces fill`)
  if (!isCount(build, 0) || build > 0xFFFFFFFF)
    unreadable(name, 'its build is not a CRC-32')
  return { format: QUERY_TABLE_FORMAT, model, dimensions, tokenizer, pooling, bias: bias.map(Math.fround), groups, shards, build, vocabulary: pieces }
}

/**
 * Shard `index` of `core`, checked: its length, its CRC-32 (damage in
 * transfer), its build, its header, every scale and weight. Throws a
 * KnowledgeError naming the file (`name`) otherwise: `snapshot-mismatch` for
 * a shard of another build of the table, else `snapshot-unavailable`.
 */
export function readQueryTableShard(input: ArrayBufferLike | ArrayBufferView, core: QueryTableCore, index: number, name = queryTableShardName(index)): QueryTableShard {
  const bytes = bytesOf(input)
  if (!(Number.isInteger(index) && index >= 0 && index < core.shards))
    unreadable(name, `its core counts ${core.shards} shards, not shard ${index}`)
  const d = core.dimensions
  const { firstRow, rowCount } = shardRows(core, index)!
  const length = queryTableShardBytes(rowCount, d)
  if (bytes.length !== length)
    unreadable(name, `it has ${bytes.length} bytes where shard ${index} of its core has ${length}: the core and its shards come from different builds, or the shard was cut short in transfer`, DEPLOY)
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const magic = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!)
  if (magic !== QUERY_TABLE_MAGIC || dv.getUint32(4, true) !== QUERY_TABLE_FORMAT)
    unreadable(name, `it is not a query table shard in format ${QUERY_TABLE_FORMAT}`)
  const crc = crc32(bytes, 12)
  if (crc !== dv.getUint32(8, true))
    unreadable(name, `its CRC-32 is ${hex(crc)} where its header says ${hex(dv.getUint32(8, true))}: it was damaged in transfer`, DEPLOY)
  const build = dv.getUint32(12, true)
  if (build !== core.build)
    throw new KnowledgeError('snapshot-mismatch', `The query table file ${name} belongs to build ${hex(build)} of the query table, and its core to build ${hex(core.build)}: they come from different builds. ${DEPLOY}`)
  if (dv.getUint32(16, true) !== index || dv.getUint32(20, true) !== firstRow || dv.getUint32(24, true) !== rowCount)
    unreadable(name, `its header is not that of shard ${index} (rows ${firstRow} to ${firstRow + rowCount - 1})`)
  const scales = new Float32Array(rowCount)
  const weights = new Float32Array(rowCount)
  const values = new Int8Array(rowCount * d)
  for (let r = 0; r < rowCount; r++) {
    const at = QUERY_TABLE_SHARD_HEADER + r * (8 + d)
    scales[r] = dv.getFloat32(at, true)
    weights[r] = dv.getFloat32(at + 4, true)
    if (!(scales[r]! >= 0 && scales[r]! < Infinity) || !Number.isFinite(weights[r]!))
      unreadable(name, `row ${firstRow + r} has scale ${scales[r]} and weight ${weights[r]}`)
    values.set(new Int8Array(bytes.buffer, bytes.byteOffset + at + 8, d), r * d)
  }
  return { index, firstRow, rowCount, scales, weights, values }
}
