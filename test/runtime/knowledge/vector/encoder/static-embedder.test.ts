import type { QueryTable } from '../../../../../src/knowledge/query-table/table'
import { describe, expect, it } from 'vitest'
import { encodeQueryTable } from '../../../../../src/knowledge/query-table/encode'
import { readQueryTableCore, readQueryTableShard } from '../../../../../src/runtime/knowledge/vector/encoder/read'
import { staticQueryEmbedder } from '../../../../../src/runtime/knowledge/vector/encoder/static-embedder'
import { KnowledgeError } from '../../../../../src/runtime/knowledge/errors'
import { seededTable } from '../../../../support/seeded-table'

/** A table of real pieces: words, their continuations and every letter, 3 rows a shard. */
const WORDS = ['search', 'vector', 'the', 'fast', '##er', 'index', 'static', 'query', 'table', 'row', 'shard', 'model', 'encoder', 'page']
const LETTERS = Array.from('abcdefghijklmnopqrstuvwxyz')
const VOCABULARY = [...WORDS, ...LETTERS, ...LETTERS.map(l => `##${l}`), '[CLS]']
const DIMENSIONS = 6
const ROWS_PER_SHARD = 3

function table(pooling: QueryTable['pooling'] = 'weighted-mean', seed = 1, maxPieces = 16): QueryTable {
  const seeded = seededTable(VOCABULARY.length, DIMENSIONS, seed)
  return { ...seeded, pooling, vocabulary: VOCABULARY, tokenizer: { ...seeded.tokenizer, maxPieces, specialTokens: ['[CLS]'] } }
}

/** A source over encoded files that records what it is asked for. */
function recordingSource(files = encodeQueryTable(table(), { rowsPerShard: ROWS_PER_SHARD })) {
  const asked: number[] = []
  let cores = 0
  const source = {
    core: async () => {
      cores++
      return files.core
    },
    shard: async (index: number) => {
      asked.push(index)
      return files.shards[index]!
    },
  }
  return { source, asked, files, cores: () => cores }
}

/** The files' rows are the pieces sorted. */
const ROWS = [...VOCABULARY].sort()
const shardOf = (piece: string) => Math.floor(ROWS.indexOf(piece) / ROWS_PER_SHARD)

/** The vector the format defines, computed in float64 from the files read back. */
function expected(files: { core: Uint8Array, shards: Uint8Array[] }, pieces: string[]): number[] {
  const core = readQueryTableCore(files.core)
  const sum = Array.from({ length: DIMENSIONS }, () => 0)
  let weights = 0
  for (const piece of pieces) {
    const row = ROWS.indexOf(piece)
    const shard = readQueryTableShard(files.shards[shardOf(piece)]!, core, shardOf(piece))
    const r = row - shard.firstRow
    weights += shard.weights[r]!
    for (let k = 0; k < DIMENSIONS; k++)
      sum[k]! += shard.weights[r]! * shard.scales[r]! * shard.values[r * DIMENSIONS + k]!
  }
  const divisor = core.pooling === 'mean' ? pieces.length : weights
  const v = sum.map((s, k) => s / divisor + core.bias[k]!)
  const norm = Math.hypot(...v)
  return v.map(x => x / norm)
}

describe('staticQueryEmbedder', () => {
  it('asks the loader for the core once and for the shards of the query\'s pieces, and nothing else', async () => {
    const { source, asked, files, cores } = recordingSource()
    const embed = staticQueryEmbedder(source)
    // "Faster searches!" → fast ##er search ##e ##s ! (no row for "!": skipped)
    const vector = await embed('Faster searches!')
    const pieces = ['fast', '##er', 'search', '##e', '##s']
    expect(asked.sort((a, b) => a - b)).toEqual([...new Set(pieces.map(shardOf))].sort((a, b) => a - b))
    expect(asked.length).toBeLessThan(files.shards.length / 4)
    expect(Array.from(vector).map(x => Number(x.toFixed(6)))).toEqual(expected(files, pieces).map(x => Number(x.toFixed(6))))
    // A second query asks only for the shards it needs that were not fetched yet.
    const before = new Set(asked)
    asked.length = 0
    await embed('the static model')
    expect(asked.sort((a, b) => a - b)).toEqual([...new Set(['the', 'static', 'model'].map(shardOf))].filter(s => !before.has(s)).sort((a, b) => a - b))
    expect(asked).toHaveLength(2)
    expect(cores()).toBe(1)
  })

  it('fetches a shard once for concurrent queries, and again after a failed fetch', async () => {
    const { source, asked, files } = recordingSource()
    let fail = true
    const embed = staticQueryEmbedder({
      ...source,
      shard: async (index) => {
        if (fail && index === shardOf('model')) {
          fail = false
          asked.push(index)
          throw new Error('offline')
        }
        return source.shard(index)
      },
    })
    await expect(embed('model')).rejects.toThrow('offline')
    await Promise.all([embed('model'), embed('model'), embed('model encoder')])
    expect(asked.filter(s => s === shardOf('model'))).toHaveLength(2)
    expect(asked.filter(s => s === shardOf('encoder'))).toHaveLength(shardOf('encoder') === shardOf('model') ? 0 : 1)
    expect(files.shards.length).toBeGreaterThan(5)
  })

  it('pools with the core\'s pooling: "mean" divides by the pieces found, "weighted-mean" by their weights', async () => {
    for (const pooling of ['mean', 'weighted-mean'] as const) {
      const files = encodeQueryTable(table(pooling), { rowsPerShard: ROWS_PER_SHARD })
      const vector = await staticQueryEmbedder(recordingSource(files).source)('static row static')
      expect(Array.from(vector).map(x => Number(x.toFixed(6)))).toEqual(expected(files, ['static', 'row', 'static']).map(x => Number(x.toFixed(6))))
    }
    const mean = await staticQueryEmbedder(recordingSource(encodeQueryTable(table('mean'))).source)('static row')
    const weighted = await staticQueryEmbedder(recordingSource(encodeQueryTable(table('weighted-mean'))).source)('static row')
    expect(Array.from(mean)).not.toEqual(Array.from(weighted))
  })

  it('pools pieces whose weights sum to 0 to nothing: the query\'s vector is its bias, normalised', async () => {
    const zero = { ...table('weighted-mean'), weights: new Float32Array(VOCABULARY.length) }
    const files = encodeQueryTable(zero, { rowsPerShard: ROWS_PER_SHARD })
    const vector = await staticQueryEmbedder(recordingSource(files).source)('static row')
    const bias = Array.from(readQueryTableCore(files.core).bias)
    const norm = Math.hypot(...bias)
    expect(Array.from(vector).map(x => Number(x.toFixed(6)))).toEqual(bias.map(x => Number((x / norm).toFixed(6))))
  })

  it('reads at most maxPieces pieces, and fetches nothing for the pieces after them', async () => {
    const { source, asked, files } = recordingSource(encodeQueryTable(table('mean', 1, 2), { rowsPerShard: ROWS_PER_SHARD }))
    const vector = await staticQueryEmbedder(source)('static table page')
    expect(asked.sort((a, b) => a - b)).toEqual([...new Set([shardOf('static'), shardOf('table')])].sort((a, b) => a - b))
    expect(Array.from(vector).map(x => Number(x.toFixed(6)))).toEqual(expected(files, ['static', 'table']).map(x => Number(x.toFixed(6))))
  })

  it('embeds a query with none of the table\'s pieces as the zero vector, fetching no shard', async () => {
    const { source, asked } = recordingSource()
    const embed = staticQueryEmbedder(source)
    expect(Array.from(await embed(''))).toEqual(Array.from({ length: DIMENSIONS }, () => 0))
    expect(Array.from(await embed('!!! ??? 42'))).toEqual(Array.from({ length: DIMENSIONS }, () => 0))
    expect(asked).toEqual([])
  })

  it('refuses a damaged shard or core naming its file, and a table of another model', async () => {
    const { source, files } = recordingSource()
    const damaged = Uint8Array.from(files.shards[shardOf('vector')]!)
    damaged[30]! ^= 0xFF
    const embed = staticQueryEmbedder({ ...source, shard: async index => index === shardOf('vector') ? damaged : files.shards[index]!, name: index => `/kb/query-table-${index}.bin` })
    const error = await embed('vector').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KnowledgeError)
    expect(error).toMatchObject({ code: 'snapshot-unavailable', message: expect.stringContaining(`Cannot read the query table file /kb/query-table-${shardOf('vector')}.bin: its CRC-32 is`) })
    // The other shards still serve.
    expect(shardOf('model')).not.toBe(shardOf('vector'))
    expect((await embed('model')).length).toBe(DIMENSIONS)

    let core: Uint8Array = files.core.subarray(0, 40)
    const retried = staticQueryEmbedder({ ...source, core: async () => core, coreName: 'https://docs.example/query-table.json' })
    await expect(retried('the')).rejects.toMatchObject({ code: 'snapshot-unavailable', message: expect.stringContaining('https://docs.example/query-table.json: it is not UTF-8 JSON') })
    core = files.core
    expect((await retried('the')).length).toBe(DIMENSIONS)

    const other = staticQueryEmbedder({ ...source, model: 'another-model' })
    await expect(other('the')).rejects.toMatchObject({ code: 'snapshot-mismatch', message: expect.stringContaining('("model-1", not "another-model")') })
  })
})
