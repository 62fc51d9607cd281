// The vector shards of a snapshot with vector cells hold documents in a row
// order the centroid shard lists (RORD): with `rowGroups: 'similar'`, similar
// documents share a shard, so a query's rows come in fewer requests than in
// shards of adjacent ones; every document of a shard fetched is scored
// exactly; a damaged or missing row order is refused.

import type { SnapshotChunkInput } from '../../../../../src/knowledge/snapshot'
import type { ShardOptions } from '../../../../../src/knowledge/snapshot-shards'
import type { KnowledgeBase } from '../../../../../src/runtime'
import { describe, expect, it } from 'vitest'
import { encodeSnapshot } from '../../../../../src/knowledge/snapshot'
import { encodeShardedSnapshot } from '../../../../../src/knowledge/snapshot-shards'
import { createKnowledgeBase, decodeSnapshot, KnowledgeError } from '../../../../../src/runtime'
import { crc32 } from '../../../../../src/runtime/knowledge/format/crc32'
import { readContainer } from '../../../../../src/runtime/knowledge/format/snapshot-container'
import { FLAG_SHARD, FLAG_SHARDED_CORE } from '../../../../../src/runtime/knowledge/format/snapshot-layout'
import { openShardedSnapshot, SDIR_ENTRY, SDIR_HEAD, ShardKind } from '../../../../../src/runtime/knowledge/format/snapshot-shards'
import { near, rng, unitVector } from '../../../../support/random'
import { withoutRefinement } from '../../../../support/without-refinement'

const DIMS = 48

/**
 * Documents of `topics` topics, interleaved (document d is of topic d mod topics), so that
 * documents adjacent in id order are of different topics; queries near a chunk.
 */
function interleavedCorpus(topics: number, documentCount: number, chunksPerDocument: number, seed: number) {
  const random = rng(seed)
  const centres = Array.from({ length: topics }, () => unitVector(DIMS, random))
  const chunks: SnapshotChunkInput[] = []
  const vectors: number[][] = []
  const documents = Array.from({ length: documentCount }, (_, d) => ({ id: `doc-${String(d).padStart(4, '0')}` }))
  for (let d = 0; d < documentCount; d++) {
    const doc = near(centres[d % topics]!, 0.5, random)
    for (let c = 0; c < chunksPerDocument; c++) {
      const vector = near(doc, 0.5, random)
      vectors.push(vector)
      chunks.push({ documentIndex: d, vector, text: `topic${d % topics} part ${c} g${Math.floor(random() * 200)}`, heading: [`Part ${c}`] })
    }
  }
  const snapshot = encodeSnapshot({ model: 'test', encoding: 'int8', lexical: true, documents, chunks })
  const queryVectors = new Map<string, number[]>()
  for (let q = 0; q < 40; q++)
    queryVectors.set(`query ${q}`, near(vectors[Math.floor(random() * vectors.length)]!, 0.4, random))
  return { snapshot, queryVectors }
}

const corpus = interleavedCorpus(12, 360, 4, 11) // 1,440 chunks
const documents = decodeSnapshot(corpus.snapshot).documents
const embedQuery = async (query: string) => corpus.queryVectors.get(query)!
const whole = createKnowledgeBase({ name: 'interleaved', documents, bodies: [], embedQuery, loadSnapshot: async () => corpus.snapshot })
/** Exact search of the int8 rows alone (no refinement bits): what an approximate search that reads every cell ranks its candidates by. */
const int8Exact = createKnowledgeBase({ name: 'interleaved', documents, bodies: [], embedQuery, loadSnapshot: async () => withoutRefinement(corpus.snapshot) })
const layout = (options: ShardOptions) => encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, cells: 1, probe: 8, vectorBytes: 6144, ...options })

function sharded(files: { core: Uint8Array, shards: Uint8Array[] }, fetched: number[] = []): KnowledgeBase {
  return createKnowledgeBase({ name: 'interleaved', documents, bodies: [], embedQuery, loadSnapshot: async () => files.core, shards: {
    load: async (index) => {
      fetched.push(index)
      return files.shards[index]!
    },
    name: index => `shard-${index}.skillkit`,
  } })
}

async function kindsOf(files: { core: Uint8Array, shards: Uint8Array[] }): Promise<number[]> {
  const opened = openShardedSnapshot(files.core, documents, { load: async i => files.shards[i]!, name: String })
  await opened.loadVectorRows()
  return opened.shards.map(s => s.kind)
}

describe('vector shards of similar documents', () => {
  it('serve a query\'s rows in fewer requests than shards of adjacent documents, and rank as exact search does', async () => {
    const counts: Record<string, number> = {}
    for (const rowGroups of ['adjacent', 'similar'] as const) {
      const files = layout({ rowGroups })
      const kinds = await kindsOf(files)
      let requests = 0
      let agree = 0
      for (const query of corpus.queryVectors.keys()) {
        const fetched: number[] = []
        const got = await sharded(files, fetched).search(query, { mode: 'auto', topK: 5 })
        agree += Number(JSON.stringify(got) === JSON.stringify(await int8Exact.search(query, { mode: 'auto', topK: 5 })))
        requests += fetched.filter(i => kinds[i] === ShardKind.vectors).length
      }
      if (rowGroups === 'similar')
        expect(agree).toBeGreaterThanOrEqual(0.98 * corpus.queryVectors.size)
      counts[rowGroups] = requests / corpus.queryVectors.size
    }
    // 20 documents read a query, of 360 in 12 topics: adjacent shards hold a document of each of a few topics.
    expect(counts.similar!).toBeLessThan(0.5 * counts.adjacent!)
  })

  it('are the same bytes on every build', () => {
    const files = layout({ rowGroups: 'similar' })
    const again = layout({ rowGroups: 'similar' })
    expect(Buffer.from(again.core).equals(files.core)).toBe(true)
    expect(again.shards.length).toBe(files.shards.length)
    expect(again.shards.every((s, i) => Buffer.from(s).equals(files.shards[i]!))).toBe(true)
    expect(() => layout({ rowGroups: 'nearest' as 'similar' })).toThrow('Cannot shard the knowledge snapshot: rowGroups must be \'adjacent\' or \'similar\', got nearest.')
  })

  it('score every document of a vector shard they fetch exactly: a search rescoring 1 document a result has the exact top 10 for 95 % of queries', async () => {
    const files = layout({ rowGroups: 'similar', rescore: 1, vectorBytes: 36 * 1024 })
    // Shards of documents read together (a topic's, here), not every row in one.
    expect((await kindsOf(files)).filter(k => k === ShardKind.vectors).length).toBeGreaterThan(6)
    let agree = 0
    for (const query of corpus.queryVectors.keys())
      agree += Number(JSON.stringify(await sharded(files).search(query, { mode: 'vector', topK: 10 })) === JSON.stringify(await int8Exact.search(query, { mode: 'vector', topK: 10 })))
    // Rescoring only its 10 leaders by code, it would find the exact top 10 for none of these queries.
    expect(agree).toBeGreaterThanOrEqual(0.95 * corpus.queryVectors.size)
  })
})

describe('the default vector shards', () => {
  it('hold 12 KiB of documents read together, 1.5 a result rescored, where a search reads every cell; 4 KiB in id order, 4 a result, where it reads some', () => {
    const same = (a: { core: Uint8Array, shards: Uint8Array[] }, b: { core: Uint8Array, shards: Uint8Array[] }) =>
      Buffer.from(a.core).equals(b.core) && a.shards.length === b.shards.length && a.shards.every((s, i) => Buffer.from(s).equals(b.shards[i]!))
    const split = (options: ShardOptions) => encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, ...options })
    expect(same(split({ cells: 1 }), split({ cells: 1, rowGroups: 'similar', vectorBytes: 12288, rescore: 1.5 }))).toBe(true)
    expect(same(split({ cells: 1 }), split({ cells: 1, rowGroups: 'similar', vectorBytes: 4096, rescore: 1.5 }))).toBe(false)
    expect(same(split({ cells: 12, probe: 4 }), split({ cells: 12, probe: 4, rowGroups: 'adjacent', vectorBytes: 4096, rescore: 4 }))).toBe(true)
    expect(same(split({ cells: 1 }), split({ cells: 1, rowGroups: 'adjacent', vectorBytes: 12288, rescore: 1.5 }))).toBe(false)
  })
})

describe('the row order of the vector shards', () => {
  const files = layout({ rowGroups: 'similar' })
  /** The files with the centroid shard changed by `edit`, the core's directory and checksum made to match it: only the row order is wrong. */
  const withCentroidShard = async (edit: (shard: Uint8Array) => void) => {
    const centroid = (await kindsOf(files)).indexOf(ShardKind.centroids)
    const shard = files.shards[centroid]!.slice()
    edit(shard)
    const core = files.core.slice()
    const sdir = readContainer(core, true, FLAG_SHARDED_CORE).sections.get('SDIR')!
    const dv = new DataView(core.buffer)
    dv.setUint32(sdir.offset + (SDIR_HEAD + centroid * SDIR_ENTRY + 4) * 4, crc32(shard, 16), true)
    dv.setUint32(12, crc32(core.subarray(16)), true)
    return { core, shards: files.shards.map((s, i) => i === centroid ? shard : s) }
  }
  const searchError = (damaged: { core: Uint8Array, shards: Uint8Array[] }) => sharded(damaged).search([...corpus.queryVectors.keys()][0]!, { mode: 'vector' }).catch((e: unknown) => e)

  it('is refused when it does not list every document once, with a KnowledgeError that names the shard', async () => {
    const damaged = await withCentroidShard((shard) => {
      const rord = readContainer(shard, false, FLAG_SHARD).sections.get('RORD')!
      const values = new Uint16Array(shard.buffer, shard.byteOffset + rord.offset, rord.length / 2)
      values[1] = values[0]!
    })
    const kb = sharded(damaged)
    // Every search fails the same way: the refused shard left nothing half-read behind.
    for (const query of [...corpus.queryVectors.keys()].slice(0, 2)) {
      const error = await kb.search(query, { mode: 'vector' }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(KnowledgeError)
      expect(error).toMatchObject({ code: 'snapshot-unavailable', message: expect.stringMatching(/^Cannot read the knowledge snapshot shard shard-\d+\.skillkit: .*its centroid shard's RORD does not list every document once \(document \d+ at 1\)/) })
    }
  })

  it('is refused where the centroid shard has none (an earlier version\'s): build it again', async () => {
    // The section's tag renamed: the shard is otherwise whole.
    const earlier = await withCentroidShard((shard) => {
      shard.set(new TextEncoder().encode('XORD'), new TextDecoder('latin1').decode(shard).indexOf('RORD'))
    })
    expect(await searchError(earlier)).toMatchObject({ code: 'snapshot-unavailable', message: expect.stringContaining('lacks its u16 or u32 RORD section (a snapshot of an earlier version: build it again)') })
  })
})
