// What fused search (`auto`) costs: one scan of the chunk vectors a query,
// as a vector search does. Its lexical weight needs the vector side's ten
// highest document scores, which it pools from that same scan.

import type { SnapshotChunkInput } from '../../../../src/knowledge/snapshot'
import { describe, expect, it, vi } from 'vitest'
import { encodeSnapshot } from '../../../../src/knowledge/snapshot'
import { encodeShardedSnapshot } from '../../../../src/knowledge/snapshot-shards'
import { createKnowledgeBase } from '../../../../src/runtime'
import { scoreCandidates } from '../../../../src/runtime/knowledge/vector/ann/score'
import { searchVectors } from '../../../../src/runtime/knowledge/vector/search'
import { searchFused } from '../../../../src/runtime/knowledge/ranking/search-fused'
import { scoreChunks } from '../../../../src/runtime/knowledge/vector/search-kernels'
import { decodeSnapshot } from '../../../../src/runtime/knowledge/format/snapshot-reader'
import { rng, unitVector } from '../../../support/random'

vi.mock('../../../../src/runtime/knowledge/vector/search-kernels', async (importOriginal) => {
  const kernels = await importOriginal<typeof import('../../../../src/runtime/knowledge/vector/search-kernels')>()
  return { ...kernels, scoreChunks: vi.fn(kernels.scoreChunks) }
})
vi.mock('../../../../src/runtime/knowledge/vector/ann/score', async (importOriginal) => {
  const score = await importOriginal<typeof import('../../../../src/runtime/knowledge/vector/ann/score')>()
  return { ...score, scoreCandidates: vi.fn(score.scoreCandidates) }
})

const random = rng(29)
const words = ['grid', 'flex', 'dialog', 'popover', 'anchor', 'scroll', 'snap', 'toast']
const documents = Array.from({ length: 80 }, (_, d) => ({ id: `doc-${String(d).padStart(2, '0')}` }))
const chunks: SnapshotChunkInput[] = []
for (let d = 0; d < documents.length; d++) {
  for (let k = 1 + Math.floor(random() * 4); k > 0; k--)
    chunks.push({ documentIndex: d, vector: unitVector(32, random), text: Array.from({ length: 8 }, () => words[Math.floor(random() * words.length)]).join(' ') })
}

describe('searchFused scans the vectors once', () => {
  for (const encoding of ['float32', 'int8'] as const) {
    it(`reads each chunk vector once a query, as searchVectors does (${encoding})`, () => {
      const snap = decodeSnapshot(encodeSnapshot({ model: 'test', documents, chunks, encoding, lexical: true }))
      const scans = vi.mocked(scoreChunks)
      for (let q = 0; q < 8; q++) {
        const vector = unitVector(32, random)
        scans.mockClear()
        searchVectors(snap, vector)
        expect(scans).toHaveBeenCalledTimes(1)
        scans.mockClear()
        // Two words every document may hold: lexical evidence, so a weight to compute.
        expect(searchFused(snap, `${words[q]} ${words[(q + 3) % 8]}`, vector, { threshold: -1 })).toHaveLength(5)
        expect(scans).toHaveBeenCalledTimes(1)
      }
    })
  }
})

describe('auto on a sharded snapshot with vector cells', () => {
  it('reads its candidate chunks once a query', async () => {
    const bytes = encodeSnapshot({ model: 'test', documents, chunks, encoding: 'int8', lexical: true })
    const files = encodeShardedSnapshot(bytes, { lexicalBytes: 1024, vectorBytes: 128, refinementBytes: 128, cells: 8, probe: 2 })
    const vectors = Array.from({ length: 6 }, () => unitVector(32, random))
    const knowledgeBase = () => createKnowledgeBase({
      name: 'cells',
      documents: decodeSnapshot(bytes).documents,
      bodies: [],
      embedQuery: async (query: string) => vectors[Number(query.split(' ')[0]!.slice(1))]!,
      loadSnapshot: async () => files.core,
      shards: { load: async index => files.shards[index]!, name: index => `shard-${index}.skillkit` },
    })
    for (let q = 0; q < vectors.length; q++) {
      const kb = knowledgeBase()
      const query = `q${q} ${words[q]} ${words[q + 1]}`
      // The first search fetches the shards its candidates are in, and runs again once they are.
      const first = await kb.search(query, { mode: 'auto', threshold: -1 })
      vi.mocked(scoreCandidates).mockClear()
      vi.mocked(scoreChunks).mockClear()
      expect(await kb.search(query, { mode: 'auto', threshold: -1 })).toEqual(first)
      expect(scoreCandidates).toHaveBeenCalledTimes(1)
      expect(scoreChunks).not.toHaveBeenCalled()
    }
  })
})
