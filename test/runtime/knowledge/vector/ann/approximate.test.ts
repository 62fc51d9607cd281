// Approximate vector search of a sharded snapshot with vector cells: on
// clustered vectors (as embeddings are: topics, documents near a topic,
// chunks near their document), it ranks as exact search does while fetching
// a fraction of the vectors, and its cells are checked like any shard.

import type { SnapshotChunkInput } from '../../../../../src/knowledge/snapshot'
import type { KnowledgeBase, KnowledgeSearchMode } from '../../../../../src/runtime'
import { describe, expect, it } from 'vitest'
import { encodeSnapshot } from '../../../../../src/knowledge/snapshot'
import { encodeShardedSnapshot } from '../../../../../src/knowledge/snapshot-shards'
import { ALL_CELLS_RESCORE } from '../../../../../src/knowledge/snapshot-shard-sizes'
import { createKnowledgeBase, decodeSnapshot, KnowledgeError } from '../../../../../src/runtime'
import { PEAK_DEPTH } from '../../../../../src/runtime/knowledge/ranking/fusion-weight'
import { openShardedSnapshot, ShardKind } from '../../../../../src/runtime/knowledge/format/snapshot-shards'
import { near, rng, unitVector } from '../../../../support/random'
import { withoutRefinement } from '../../../../support/without-refinement'

const DIMS = 48

/** Topics of documents of chunks, each near its parent; each topic has words of its own, as real corpora do. */
function clusteredCorpus(topics: number, documentsPerTopic: number, chunksPerDocument: number, seed: number, encoding: 'int8' | 'float32' = 'int8') {
  const random = rng(seed)
  const chunks: SnapshotChunkInput[] = []
  const documents = []
  const vectors: number[][] = []
  for (let t = 0; t < topics; t++) {
    const topic = unitVector(DIMS, random)
    const words = Array.from({ length: 12 }, (_, w) => `t${t}w${w}`)
    for (let d = 0; d < documentsPerTopic; d++) {
      const documentIndex: number = documents.length
      documents.push({ id: `doc-${String(documentIndex).padStart(4, '0')}` })
      const doc = near(topic, 0.6, random)
      for (let c = 0; c < chunksPerDocument; c++) {
        const vector = near(doc, 0.6, random)
        vectors.push(vector)
        const text = Array.from({ length: 12 }, () => random() < 0.5 ? words[Math.floor(random() * words.length)] : `g${Math.floor(random() * 300)}`).join(' ')
        chunks.push({ documentIndex, vector, text, heading: [`Part ${c}`] })
      }
    }
  }
  const snapshot = encodeSnapshot({ model: 'test', encoding, lexical: true, documents, chunks })
  // Queries: a few words of a chunk, embedded near that chunk.
  const queryVectors = new Map<string, number[]>()
  for (let q = 0; q < 60; q++) {
    const c = Math.floor(random() * chunks.length)
    const words = chunks[c]!.text!.split(' ')
    queryVectors.set(`${words[q % 5]} ${words[5 + (q % 4)]} q${q}`, near(vectors[c]!, 0.5, random))
  }
  return { snapshot, queryVectors, chunkCount: chunks.length }
}

const corpus = clusteredCorpus(30, 12, 8, 27) // 2,880 chunks
const documents = decodeSnapshot(corpus.snapshot).documents
const embedQuery = async (query: string) => corpus.queryVectors.get(query)!
const files = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, vectorBytes: 2048, cells: 48, probe: 8 })
/** Every shard's entry: the core lists those up to the centroid shard, which lists the others. */
async function shardsOf(f: typeof files, docs = documents) {
  const opened = openShardedSnapshot(f.core, docs, { load: async i => f.shards[i]!, name: String })
  await opened.loadVectorRows()
  return opened.shards
}

function sharded(f: typeof files, fetched: number[] = []): KnowledgeBase {
  return createKnowledgeBase({
    name: 'clustered',
    documents,
    bodies: [],
    embedQuery,
    loadSnapshot: async () => f.core,
    shards: { load: async (index) => {
      fetched.push(index)
      return f.shards[index]!
    }, name: index => `shard-${index}.skillkit` },
  })
}
const whole = createKnowledgeBase({ name: 'clustered', documents, bodies: [], embedQuery, loadSnapshot: async () => corpus.snapshot })
/** Exact search of the int8 rows alone (no refinement bits): what an approximate search that reads every cell ranks its candidates by. */
const int8Exact = createKnowledgeBase({ name: 'clustered', documents, bodies: [], embedQuery, loadSnapshot: async () => withoutRefinement(corpus.snapshot) })

describe('approximate vector search of a sharded snapshot with vector cells', () => {
  it('partitions the vectors into the cells asked for, every chunk in one, deterministically', async () => {
    const shards = await shardsOf(files)
    const cells = shards.filter(s => s.kind === ShardKind.cell)
    expect(cells.length).toBeGreaterThan(40)
    expect(cells.length).toBeLessThanOrEqual(48)
    const again = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, vectorBytes: 2048, cells: 48, probe: 8 })
    expect(Buffer.from(again.core).equals(files.core)).toBe(true)
    expect(again.shards.length).toBe(files.shards.length)
    expect(again.shards.every((s, i) => Buffer.from(s).equals(files.shards[i]!))).toBe(true)
  })

  it('returns the exact search\'s top 5 for 98 % of queries or more, in vector, auto and hybrid mode, fetching a fraction of the vectors', async () => {
    const shards = await shardsOf(files)
    const vectorBytes = (fetched: number[]) => fetched.filter(i => shards[i]!.kind === ShardKind.cell || shards[i]!.kind === ShardKind.vectors).reduce((sum, i) => sum + files.shards[i]!.length, 0)
    const allVectors = shards.flatMap((s, i) => s.kind === ShardKind.vectors ? [files.shards[i]!.length] : []).reduce((a, b) => a + b, 0)
    let found = 0
    let agree = 0
    let fetchedBytes = 0
    for (const mode of ['vector', 'auto', 'hybrid'] as KnowledgeSearchMode[]) {
      for (const query of corpus.queryVectors.keys()) {
        const fetched: number[] = []
        const expected = await whole.search(query, { mode })
        found += expected.length
        const actual = await sharded(files, fetched).search(query, { mode })
        agree += Number(JSON.stringify(actual) === JSON.stringify(expected))
        // A document both return has its exact score: the search read all its chunks.
        for (const hit of actual)
          expect(hit, `${mode} "${query}"`).toEqual(expected.find(e => e.id === hit.id) ?? hit)
        expect(vectorBytes(fetched)).toBeLessThan(allVectors / 2)
        fetchedBytes += vectorBytes(fetched)
      }
    }
    expect(found).toBe(3 * corpus.queryVectors.size * 5)
    expect(agree).toBeGreaterThanOrEqual(0.98 * 3 * corpus.queryVectors.size)
    expect(fetchedBytes / (3 * corpus.queryVectors.size)).toBeLessThan(allVectors / 3)
  })

  it('reads its cells\' low-bit codes, then the int8 rows of the few documents they rank highest, a document a vector shard', async () => {
    const rescore = 3
    const narrow = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, vectorBytes: 1, cells: 48, probe: 8, codeBits: 2, rescore })
    const shards = await shardsOf(narrow)
    // A cell holds 2-bit codes (12 bytes a row of 48 components, a step and a chunk number), not rows of 52 bytes.
    const cellBytes = shards.flatMap((s, i) => s.kind === ShardKind.cell ? [narrow.shards[i]!.length] : []).reduce((a, b) => a + b, 0)
    expect(cellBytes).toBeLessThan(0.4 * corpus.chunkCount * (DIMS + 4))
    // Each vector shard holds one document's rows: its range is of positions in the row order, a document each.
    const vectorShards = shards.filter(s => s.kind === ShardKind.vectors)
    expect(vectorShards.length).toBe(documents.length)
    expect(vectorShards.every(s => s.to - s.from === 1)).toBe(true)
    for (const query of [...corpus.queryVectors.keys()].slice(0, 10)) {
      const fetched: number[] = []
      expect(await sharded(narrow, fetched).search(query, { mode: 'vector' }), query).toEqual(await whole.search(query, { mode: 'vector' }))
      expect(fetched.filter(i => shards[i]!.kind === ShardKind.cell)).toHaveLength(8)
      // rescore a result, of at least the ten results a fused search's weight reads.
      expect(fetched.filter(i => shards[i]!.kind === ShardKind.vectors)).toHaveLength(rescore * PEAK_DEPTH)
    }
  })

  it('fetches every cell with the centroids where a search reads every cell, then only the rows of 1.5 documents a result, in one round trip, and no refinement bits', async () => {
    const all = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, vectorBytes: 1, cells: 8, probe: 8 })
    const shards = await shardsOf(all)
    const kindsOf = (fetched: number[]) => fetched.map(i => shards[i]!.kind)
    for (const query of [...corpus.queryVectors.keys()].slice(0, 10)) {
      const fetched: number[] = []
      const fresh = sharded(all, fetched)
      // Before the query: the centroids and all 8 cells (which cells a search reads does not depend on it), no rows.
      await fresh.preload()
      expect(kindsOf(fetched).sort()).toEqual([ShardKind.centroids, ...Array.from({ length: 8 }, () => ShardKind.cell)].sort())
      fetched.length = 0
      expect(await fresh.search(query, { mode: 'vector', topK: 10 }), query).toEqual(await int8Exact.search(query, { mode: 'vector', topK: 10 }))
      // The query's own requests: the rows of the 1.5·10 documents its codes rank highest, a vector shard each; it ranks them by their int8 rows, so no refinement shard.
      expect(kindsOf(fetched), query).toEqual(Array.from({ length: ALL_CELLS_RESCORE * PEAK_DEPTH }, () => ShardKind.vectors))
    }
  })

  it('asks for every cell before the centroid shard that lists them is in, where a search reads every cell', async () => {
    const all = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, vectorBytes: 1, cells: 8, probe: 8 })
    const shards = await shardsOf(all)
    const centroids = shards.findIndex(s => s.kind === ShardKind.centroids)
    const asked: number[] = []
    let answerCentroids!: () => void
    const centroidsHeld = new Promise<void>(resolve => answerCentroids = resolve)
    const opened = openShardedSnapshot(all.core, documents, { load: async (index) => {
      asked.push(index)
      if (index === centroids)
        await centroidsHeld
      return all.shards[index]!
    }, name: String })
    const rows = opened.loadVectorRows()
    // The centroid shard is not in yet: the cells are asked for already, one request each, and nothing else.
    expect(asked.map(i => shards[i]!.kind).sort()).toEqual([ShardKind.centroids, ...Array.from({ length: 8 }, () => ShardKind.cell)].sort())
    answerCentroids()
    await rows
    // Each cell was read from its first request: none is asked for again once the directory lists it.
    expect(asked).toHaveLength(9)
  })

  it('gives the documents lexical search ranks highest their exact vector score in auto, whatever cells it reads', async () => {
    // One cell read: the fused ranking still holds the lexical leaders, each with the best chunk exact
    // search finds. Their fused scores can differ: the lexical weight comes from the vector side's top
    // ten (fusion-weight.ts), which one cell cannot always give.
    const narrow = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, vectorBytes: 2048, cells: 48, probe: 1 })
    let agree = 0
    for (const query of corpus.queryVectors.keys()) {
      const expected = await whole.search(query, { mode: 'auto', topK: 5 })
      const actual = await sharded(narrow).search(query, { mode: 'auto', topK: 5 })
      for (const hit of actual) {
        const exact = expected.find(e => e.id === hit.id)
        if (exact)
          expect(hit.heading, query).toEqual(exact.heading)
      }
      agree += Number(JSON.stringify(actual.map(h => h.id)) === JSON.stringify(expected.map(h => h.id)))
    }
    expect(agree).toBeGreaterThan(corpus.queryVectors.size / 2)
  })

  it('leaves a lexical search\'s fetches as they were: the centroids are a shard of their own, fetched by vector searches, which lists the shards only they read', async () => {
    const listed = openShardedSnapshot(files.core, documents, { load: async () => new Uint8Array(0), name: String }).shards
    expect(listed.map(s => s.kind)).toEqual([...listed.slice(0, -1).map(() => ShardKind.lexical), ShardKind.centroids])
    const shards = await shardsOf(files)
    expect(shards.length).toBe(files.shards.length)
    const query = [...corpus.queryVectors.keys()][0]!
    const lexical: number[] = []
    await sharded(files, lexical).search(query, { mode: 'lexical' })
    expect(lexical.every(i => shards[i]!.kind === ShardKind.lexical)).toBe(true)
    const vector: number[] = []
    await sharded(files, vector).search(query, { mode: 'vector' })
    expect(vector.filter(i => shards[i]!.kind === ShardKind.centroids)).toHaveLength(1)
    expect(vector.filter(i => shards[i]!.kind === ShardKind.cell)).toHaveLength(8)
  })

  it('is exact again once every row is in', async () => {
    const kb = sharded(files)
    await kb.snapshot()
    for (const query of [...corpus.queryVectors.keys()].slice(0, 10))
      expect(await kb.search(query, { mode: 'vector', topK: 20 })).toEqual(await whole.search(query, { mode: 'vector', topK: 20 }))
  })

  it('keeps the refinement bits in shards of their own where a search reads every cell: exact search reads them, an approximate one never', async () => {
    const all = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, vectorBytes: 1, cells: 8, probe: 8 })
    const shards = await shardsOf(all)
    const vectorShards = shards.filter(s => s.kind === ShardKind.vectors)
    // One refinement shard a vector shard, of the same documents (positions in the row order).
    expect(shards.filter(s => s.kind === ShardKind.refinement).map(s => [s.from, s.to])).toEqual(vectorShards.map(s => [s.from, s.to]))
    const kb = sharded(all)
    await kb.snapshot()
    for (const query of [...corpus.queryVectors.keys()].slice(0, 10))
      expect(await kb.search(query, { mode: 'vector', topK: 20 })).toEqual(await whole.search(query, { mode: 'vector', topK: 20 }))
  })

  it('refuses a cell of another build', async () => {
    const other = encodeShardedSnapshot(clusteredCorpus(30, 12, 8, 28).snapshot, { lexicalBytes: 2048, vectorBytes: 2048, cells: 48, probe: 8 })
    const shards = await shardsOf(files)
    const otherShards = await shardsOf(other)
    const mixed = files.shards.map((s, i) => shards[i]!.kind === ShardKind.cell ? other.shards[otherShards.findIndex(o => o.kind === ShardKind.cell)]! : s)
    const error = await sharded({ core: files.core, shards: mixed }).search([...corpus.queryVectors.keys()][0]!, { mode: 'vector' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KnowledgeError)
    expect((error as KnowledgeError).code).toBe('snapshot-mismatch')
    expect((error as Error).message).toMatch(/^The knowledge snapshot shard shard-\d+\.skillkit does not belong to its core/)
  })

  it('ranks float32 vectors as exact search does too', async () => {
    const float = clusteredCorpus(30, 12, 8, 29, 'float32')
    const floatDocuments = decodeSnapshot(float.snapshot).documents
    const f = encodeShardedSnapshot(float.snapshot, { lexicalBytes: 2048, vectorBytes: 4096, cells: 48, probe: 8 })
    const common = { name: 'float', documents: floatDocuments, bodies: [], embedQuery: async (query: string) => float.queryVectors.get(query)! }
    const exact = createKnowledgeBase({ ...common, loadSnapshot: async () => float.snapshot })
    const fetched: number[] = []
    const approximate = () => createKnowledgeBase({ ...common, loadSnapshot: async () => f.core, shards: { load: async (i) => {
      fetched.push(i)
      return f.shards[i]!
    }, name: String } })
    let agree = 0
    for (const query of float.queryVectors.keys())
      agree += Number(JSON.stringify(await approximate().search(query)) === JSON.stringify(await exact.search(query)))
    expect(agree).toBeGreaterThanOrEqual(0.98 * float.queryVectors.size)
    const kinds = (await shardsOf(f, floatDocuments)).map(s => s.kind)
    expect(fetched.filter(i => kinds[i] === ShardKind.cell).length).toBe(8 * float.queryVectors.size)
  })

  it('makes one cell by default where a search would read every cell, and more where it would not', async () => {
    const cellsOf = async (snapshot: Uint8Array, probe?: number) => (await shardsOf(encodeShardedSnapshot(snapshot, { probe }), decodeSnapshot(snapshot).documents)).filter(s => s.kind === ShardKind.cell).length
    // 1,600 chunks: 6 cells of 250 or more, all of them read (probe 8): one request for the same codes.
    const middling = clusteredCorpus(10, 20, 8, 5)
    expect(await cellsOf(middling.snapshot)).toBe(1)
    expect(await cellsOf(middling.snapshot, 4)).toBe(6)
    // 2,880 chunks: 12 cells, 8 of them read.
    expect(await cellsOf(corpus.snapshot)).toBe(12)
  })

  it('stays exact by default below 1,000 chunks', async () => {
    const small = clusteredCorpus(10, 5, 8, 3)
    const shards = openShardedSnapshot(encodeShardedSnapshot(small.snapshot).core, decodeSnapshot(small.snapshot).documents, { load: async () => new Uint8Array(0), name: String }).shards
    expect(shards.some(s => s.kind === ShardKind.cell)).toBe(false)
    expect(() => encodeShardedSnapshot(small.snapshot, { cells: -1 })).toThrow('Cannot shard the knowledge snapshot: cells must be \'auto\' or a non-negative integer, got -1.')
    expect(() => encodeShardedSnapshot(small.snapshot, { cells: 4, probe: 0 })).toThrow('Cannot shard the knowledge snapshot: probe must be a positive integer, got 0.')
    expect(() => encodeShardedSnapshot(small.snapshot, { cells: 4, codeBits: 3 })).toThrow('Cannot shard the knowledge snapshot: codeBits must be 1, 2 or 4, got 3.')
    expect(() => encodeShardedSnapshot(small.snapshot, { cells: 4, rescore: 0 })).toThrow('Cannot shard the knowledge snapshot: rescore must be a positive number in tenths (such as 2 or 1.5), got 0.')
    expect(() => encodeShardedSnapshot(small.snapshot, { cells: 4, rescore: 1.25 })).toThrow('Cannot shard the knowledge snapshot: rescore must be a positive number in tenths (such as 2 or 1.5), got 1.25.')
  })
})
