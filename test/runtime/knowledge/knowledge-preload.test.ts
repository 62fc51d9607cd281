// The loading order of a first search: its query is embedded while the
// snapshot loads, and `preload` fetches, before any query, what every search
// needs first (the core, the centroids, the query table's core), never a
// query's own shards.

import type { SnapshotChunkInput } from '../../../src/knowledge/snapshot'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { encodeQueryTable } from '../../../src/knowledge/query-table/encode'
import { encodeSnapshot } from '../../../src/knowledge/snapshot'
import { encodeShardedSnapshot } from '../../../src/knowledge/snapshot-shards'
import { createKnowledgeBase, decodeSnapshot, KnowledgeError, QueryModelUnavailableError } from '../../../src/runtime'
import { queryTableShardName } from '../../../src/runtime/knowledge/vector/encoder/read'
import { defineKnowledge } from '../../../src/runtime/knowledge/knowledge-module'
import { openShardedSnapshot, ShardKind } from '../../../src/runtime/knowledge/format/snapshot-shards'
import { rng, unitVector } from '../../support/random'
import { seededTable } from '../../support/seeded-table'

const DIMS = 6

/** 1,200 chunks of 120 documents, in 12 topics with words of their own: enough for vector cells. */
function corpus() {
  const random = rng(5)
  const documents = []
  const chunks: SnapshotChunkInput[] = []
  for (let d = 0; d < 120; d++) {
    documents.push({ id: `doc-${String(d).padStart(3, '0')}` })
    const topic = d % 12
    for (let c = 0; c < 10; c++)
      chunks.push({ documentIndex: d, vector: unitVector(DIMS, random), text: `topic${topic} word${(d * 10 + c) % 37} page${c}` })
  }
  return encodeSnapshot({ model: 'test', encoding: 'int8', lexical: true, documents, chunks })
}

const snapshot = corpus()
const documents = decodeSnapshot(snapshot).documents
const files = encodeShardedSnapshot(snapshot, { lexicalBytes: 512, vectorBytes: 2048, cells: 8, probe: 2 })
/** The centroid shard's index (the core lists the shards up to it). */
async function centroidShard(): Promise<number> {
  const opened = openShardedSnapshot(files.core, documents, { load: async i => files.shards[i]!, name: String })
  await opened.loadVectorRows()
  return opened.shards.findIndex(shard => shard.kind === ShardKind.centroids)
}

/** A knowledge base over the sharded files whose loads are recorded: `core`, then shard indexes. */
function recorded(overrides: Partial<Parameters<typeof createKnowledgeBase>[0]> = {}) {
  const loads: (number | 'core')[] = []
  const kb = createKnowledgeBase({
    name: 'topics',
    documents,
    bodies: [],
    embedQuery: async () => unitVector(DIMS, rng(9)),
    loadSnapshot: async () => {
      loads.push('core')
      return files.core
    },
    shards: {
      load: async (index) => {
        loads.push(index)
        return files.shards[index]!
      },
      name: index => `shard-${index}`,
    },
    ...overrides,
  })
  return { kb, loads }
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('a first search', () => {
  it('embeds its query while the snapshot is still loading', async () => {
    let deliver!: () => void
    const delivered = new Promise<void>(resolve => deliver = resolve)
    const embedQuery = vi.fn(async () => unitVector(DIMS, rng(9)))
    const { kb } = recorded({ embedQuery, loadSnapshot: () => delivered.then(() => files.core) })
    const searching = kb.search('topic3 word4')
    // The snapshot's core is withheld until the query is being embedded: in series, the search would wait forever.
    await vi.waitFor(() => expect(embedQuery).toHaveBeenCalledWith('topic3 word4'))
    deliver()
    expect((await searching).length).toBeGreaterThan(0)
  })
})

describe('preload', () => {
  it('loads the core, the centroids and the embedder\'s start, and no shard a query chooses', async () => {
    const prepareQuery = vi.fn(async () => {})
    const { kb, loads } = recorded({ prepareQuery })
    await kb.preload()
    expect(prepareQuery).toHaveBeenCalledTimes(1)
    // The centroids are what every vector search reads before it chooses its cells.
    expect(loads).toEqual(['core', await centroidShard()])

    // The search after it asks for neither again, and for its cells.
    await kb.search('topic3 word4', { mode: 'vector' })
    expect(loads.slice(2)).not.toContain('core')
    expect(loads.slice(2)).not.toContain(await centroidShard())
    expect(loads.length).toBeGreaterThan(2)
  })

  it('loads the core only for lexical search, and without vectors or an embedder', async () => {
    const prepareQuery = vi.fn(async () => {})
    const lexical = recorded({ prepareQuery })
    await lexical.kb.preload({ mode: 'lexical' })
    expect(lexical.loads).toEqual(['core'])
    const none = recorded({ prepareQuery, embedQuery: undefined })
    await none.kb.preload()
    expect(none.loads).toEqual(['core'])
    expect(prepareQuery).not.toHaveBeenCalled()
  })

  it('resolves for auto when the query model cannot load (its searches are lexical), rejects for vector as a search would', async () => {
    const unavailable = async () => {
      throw new QueryModelUnavailableError('/srv/models/test lacks config.json', 'build with includeModel')
    }
    const { kb } = recorded({ prepareQuery: unavailable })
    await expect(kb.preload()).resolves.toBeUndefined()
    const error = await kb.preload({ mode: 'vector' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KnowledgeError)
    expect(error).toMatchObject({ code: 'model-unavailable', message: 'A vector search of "topics" needs its query model, but /srv/models/test lacks config.json. Build with includeModel, or search with mode: \'lexical\'.' })
    const broken = recorded({ prepareQuery: async () => { throw new Error('out of memory') } })
    await expect(broken.kb.preload()).rejects.toThrow('out of memory')
    await expect(kb.preload({ mode: 'fuzzy' as 'auto' })).rejects.toThrow('mode must be \'auto\', \'vector\', \'lexical\', \'hybrid\'; got "fuzzy".')
  })
})

describe('preload of a knowledge module with a query table', () => {
  it('fetches the snapshot\'s core, its centroids and the table\'s core, and none of the table\'s shards', async () => {
    const vocabulary = [...Array.from({ length: 38 }, (_, i) => `topic${i}`), '[CLS]', '[SEP]']
    const table = encodeQueryTable({ ...seededTable(vocabulary.length, DIMS), vocabulary }, { rowsPerShard: 4 })
    // The files' rows are the pieces sorted.
    const shardOf = (piece: string) => queryTableShardName(Math.floor([...vocabulary].sort().indexOf(piece) / 4))
    const served = new Map<string, Uint8Array | string>([
      ['/core.skillkit', files.core],
      ...files.shards.map((bytes, i) => [`/shard-${i}.skillkit`, bytes] as [string, Uint8Array]),
      ['/table/query-table.json', table.core],
      ...table.shards.map((bytes, i) => [`/table/${queryTableShardName(i)}`, bytes] as [string, Uint8Array]),
    ])
    const fetched: string[] = []
    vi.stubGlobal('fetch', async (href: string) => {
      const path = new URL(href).pathname
      fetched.push(path)
      const body = served.get(path)
      return body === undefined ? new Response(null, { status: 404 }) : new Response(typeof body === 'string' ? body : new Uint8Array(body))
    })
    const origin = 'http://assets.test'
    let listed = 0
    const knowledge = defineKnowledge({
      name: 'topics',
      documents,
      bodies: [],
      model: { id: 'org/model', revision: 'main', dtype: 'q8', maxTokens: 128, queryPrefix: '' },
      queryEncoder: 'auto',
      queryTable: () => new URL('/table/query-table.json', origin),
      snapshotUrl: () => new URL('/core.skillkit', origin),
      shardUrls: () => {
        listed++
        return files.shards.map((_, i) => new URL(`/shard-${i}.skillkit`, origin))
      },
    })
    await knowledge.preload()
    const centroids = fetched.filter(path => path.startsWith('/shard-'))
    expect([...fetched].sort()).toEqual(['/core.skillkit', ...centroids, '/table/query-table.json'].sort())
    expect(centroids).toHaveLength(1)

    // A query then fetches its own pieces' table shards, and neither core again.
    fetched.length = 0
    await knowledge.search('topic3 topic17', { mode: 'vector' })
    expect(fetched.filter(path => path.startsWith('/table/')).sort()).toEqual([`/table/${shardOf('topic3')}`, `/table/${shardOf('topic17')}`].sort())
    expect(fetched).not.toContain('/core.skillkit')
    // The generated list makes a URL per shard: it is made once, not once per shard loaded.
    expect(fetched.filter(path => path.startsWith('/shard-')).length).toBeGreaterThan(1)
    expect(listed).toBe(1)
  })
})
