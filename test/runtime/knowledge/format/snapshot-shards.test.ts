// Sharded snapshots: a knowledge base loaded from a core and shards ranks
// exactly as one loaded from the whole snapshot, in every mode, and a lexical
// search fetches only the core and its terms' shards.

import type { SnapshotChunkInput, SnapshotDocumentInput } from '../../../../src/knowledge/snapshot'
import type { KnowledgeBase, KnowledgeSearchMode } from '../../../../src/runtime'
import type { ShardEntry } from '../../../../src/runtime/knowledge/format/snapshot-shards'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { chunkDocument } from '../../../../src/knowledge/chunk'
import { loadKnowledgeFolder } from '../../../../src/knowledge/load-folder'
import { encodeSnapshot } from '../../../../src/knowledge/snapshot'
import { encodeShardedSnapshot } from '../../../../src/knowledge/snapshot-shards'
import { createKnowledgeBase, decodeSnapshot, KnowledgeError, SnapshotError } from '../../../../src/runtime'
import { scoredTerms } from '../../../../src/runtime/knowledge/lexical/searched-terms'
import { openShardedSnapshot, ShardKind } from '../../../../src/runtime/knowledge/format/snapshot-shards'
import { rng, unitVector } from '../../../support/random'

const repo = join(import.meta.dirname, '../../../..')

interface Corpus {
  name: string
  snapshot: Uint8Array
  /** Chunk vectors, to embed queries near them. */
  vectors: number[][]
  queries: string[]
  dims: number
}

/** A knowledge fixture folder, chunked as builds chunk it, with seeded vectors (the ranking code does not care where they come from). */
function fixtureCorpus(dir: string, encoding: 'int8' | 'float32', dims = 24): Corpus {
  const folder = loadKnowledgeFolder(join(repo, dir))
  const random = rng(dims)
  const chunks: SnapshotChunkInput[] = folder.documents.flatMap((doc, d) => chunkDocument(doc, d).map(chunk => ({
    documentIndex: d,
    heading: [...chunk.context, ...(chunk.title ? [chunk.title] : [])],
    text: chunk.text,
    vector: unitVector(dims, random),
  })))
  const documents: SnapshotDocumentInput[] = folder.documents.map(d => ({ id: d.id, description: d.description, path: d.path, tags: d.tags, tokenCount: d.body.length >> 2 }))
  const words = chunks.flatMap(c => c.text!.split(/\W+/).filter(w => w.length > 3))
  const queries = [...words.filter((_, i) => i % 7 === 0).slice(0, 30), 'nightly bakcup schedule', 'wi fi router', 'how do I restore a backup', 'printer', '']
  return { name: dir, snapshot: encodeSnapshot({ model: 'test', encoding, documents, chunks, lexical: true }), vectors: chunks.map(c => Array.from(c.vector!)), queries, dims }
}

/** Many chunks and terms (Zipf-distributed words), so that there are many shards of both kinds. */
function generatedCorpus(chunkCount: number, encoding: 'int8' | 'float32' | 'none', dims = 32): Corpus {
  const random = rng(chunkCount)
  const vocabulary = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}${'abcdefghij'[i % 10]}`)
  const zipf = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * Math.log(vocabulary.length))) - 1)]!
  const documents = Array.from({ length: Math.ceil(chunkCount / 8) }, (_, d) => ({ id: `doc-${String(d).padStart(5, '0')}`, description: `Document ${d}` }))
  const chunks: SnapshotChunkInput[] = Array.from({ length: chunkCount }, (_, c) => ({
    documentIndex: Math.floor(c / 8),
    heading: [`Section ${c % 13}`],
    text: Array.from({ length: 30 }, zipf).join(' '),
    ...(encoding === 'none' ? {} : { vector: unitVector(dims, random) }),
  }))
  const queries = Array.from({ length: 40 }, (_, q) => {
    const text = chunks[(q * 97) % chunkCount]!.text!.split(' ')
    // Short queries, a typo (two letters swapped), words written apart, and long prompts.
    if (q % 4 === 1)
      return `${text[0]!.slice(0, 2)}${text[0]![3] ?? ''}${text[0]![2]}${text[0]!.slice(4)} ${text[1]}`
    if (q % 4 === 2)
      return `${text[2]!.slice(0, 3)} ${text[2]!.slice(3)}`
    return text.slice(0, q % 4 === 3 ? 30 : 3).join(' ')
  })
  const snapshot = encodeSnapshot({ model: encoding === 'none' ? '' : 'test', encoding, documents, chunks, lexical: true })
  return { name: `${chunkCount} generated chunks (${encoding})`, snapshot, vectors: chunks.map(c => c.vector ? Array.from(c.vector) : []), queries, dims }
}

/** A query's embedding: near a chunk picked from its text, so vector search finds something. */
function embedderOf(corpus: Corpus) {
  return async (query: string): Promise<number[]> => {
    let h = 0
    for (const ch of query)
      h = (h * 31 + ch.charCodeAt(0)) >>> 0
    const base = corpus.vectors[h % corpus.vectors.length]!
    const noise = unitVector(corpus.dims, rng(h))
    return base.map((x, i) => x + 0.3 * noise[i]!)
  }
}

/** A knowledge base of the whole snapshot. */
function whole(corpus: Corpus, vectors: boolean): KnowledgeBase {
  const documents = decodeSnapshot(corpus.snapshot).documents
  return createKnowledgeBase({ name: corpus.name, documents, loadSnapshot: async () => corpus.snapshot, bodies: [], embedQuery: vectors ? embedderOf(corpus) : undefined, vectors })
}

/** A knowledge base of the sharded snapshot, recording what it fetches ('core' or the shard's index). */
function sharded(corpus: Corpus, files: { core: Uint8Array, shards: Uint8Array[] }, vectors: boolean, fetched: (string | number)[] = []): KnowledgeBase {
  const documents = decodeSnapshot(corpus.snapshot).documents
  return createKnowledgeBase({
    name: corpus.name,
    documents,
    bodies: [],
    embedQuery: vectors ? embedderOf(corpus) : undefined,
    vectors,
    loadSnapshot: async () => {
      fetched.push('core')
      return files.core
    },
    shards: {
      load: async (index) => {
        fetched.push(index)
        return files.shards[index]!
      },
      name: index => `shard-${index}.skillkit`,
    },
  })
}

// Exact search (no vector cells): approximate search has its own tests (ann/).
const corpora: [Corpus, { lexicalBytes: number, vectorBytes: number, cells: 0 }][] = [
  [fixtureCorpus('test/fixtures/knowledge/home', 'int8'), { lexicalBytes: 96, vectorBytes: 80, cells: 0 }],
  [fixtureCorpus('test/fixtures/knowledge-app/docs/knowledge', 'float32'), { lexicalBytes: 64, vectorBytes: 300, cells: 0 }],
  [generatedCorpus(3000, 'int8'), { lexicalBytes: 2048, vectorBytes: 8192, cells: 0 }],
  [generatedCorpus(1200, 'float32'), { lexicalBytes: 4096, vectorBytes: 16_384, cells: 0 }],
  [generatedCorpus(1500, 'none'), { lexicalBytes: 1024, vectorBytes: 1024, cells: 0 }],
]

describe.each(corpora)('a sharded snapshot of $name', (corpus, options) => {
  const files = encodeShardedSnapshot(corpus.snapshot, options)
  const withVectors = decodeSnapshot(corpus.snapshot).encoding !== 'none'
  const modes: KnowledgeSearchMode[] = withVectors ? ['lexical', 'vector', 'hybrid', 'auto'] : ['lexical', 'auto']
  const entries = (): readonly ShardEntry[] => openShardedSnapshot(files.core, decodeSnapshot(corpus.snapshot).documents, { load: async () => new Uint8Array(0), name: String }).shards

  it('is split into several shards of each kind, deterministically, with a core smaller than the snapshot', () => {
    const shards = entries()
    expect(shards.filter(s => s.kind === ShardKind.lexical).length).toBeGreaterThan(2)
    const vectorShards = shards.filter(s => s.kind === ShardKind.vectors).length
    if (withVectors)
      expect(vectorShards).toBeGreaterThan(2)
    else expect(vectorShards).toBe(0)
    expect(files.core.length).toBeLessThan(corpus.snapshot.length)
    const again = encodeShardedSnapshot(corpus.snapshot, options)
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(b)
    expect(same(again.core, files.core) && again.shards.length === files.shards.length && again.shards.every((s, i) => same(s, files.shards[i]!))).toBe(true)
  })

  it('ranks every query exactly as the whole snapshot does, in every mode', async () => {
    const one = whole(corpus, withVectors)
    const split = sharded(corpus, files, withVectors)
    let found = 0
    for (const mode of modes) {
      for (const query of corpus.queries) {
        const expected = await one.search(query, { mode, topK: 8 })
        found += expected.length
        expect(await split.search(query, { mode, topK: 8 }), `${mode} "${query}"`).toEqual(expected)
      }
    }
    expect(found).toBeGreaterThan(corpus.queries.length)
    // Once every shard is in, the snapshot is the whole one.
    expect(await split.snapshot()).toEqual(await one.snapshot())
  })

  it('answers a lexical query with the core and its terms\' shards only, and the same ranking', async () => {
    const one = whole(corpus, false)
    const shards = entries()
    const lexicalShards = shards.flatMap((s, i) => s.kind === ShardKind.lexical ? [i] : [])
    const index = decodeSnapshot(corpus.snapshot).lexical!
    let fewer = 0
    for (const query of corpus.queries) {
      const fetched: (string | number)[] = []
      // A fresh knowledge base each time: the shards of earlier queries are not there to help.
      const split = sharded(corpus, files, false, fetched)
      expect(await split.search(query, { mode: 'lexical' }), query).toEqual(await one.search(query, { mode: 'lexical' }))
      const needed = new Set(scoredTerms(index, query).map(t => lexicalShards.find(i => shards[i]!.from <= t && t < shards[i]!.to)!))
      expect(fetched[0]).toBe('core')
      expect(new Set(fetched.slice(1))).toEqual(needed)
      expect(fetched.length).toBe(1 + needed.size)
      if (needed.size < lexicalShards.length)
        fewer++
    }
    expect(fewer).toBeGreaterThan(corpus.queries.length / 2)
  })
})

describe('refinement bits (int8), sharded apart', () => {
  const corpus = generatedCorpus(3000, 'int8')
  // 100 chunks' bits a shard: 30 refinement shards.
  const files = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 2048, vectorBytes: 8192, refinementBytes: 1200, cells: 0 })
  const shards = openShardedSnapshot(files.core, decodeSnapshot(corpus.snapshot).documents, { load: async () => new Uint8Array(0), name: String }).shards
  const ofKind = (kind: number) => shards.flatMap((s, i) => s.kind === kind ? [i] : [])

  it('are fetched for the documents near a vector search\'s cut only, and it ranks as the whole snapshot does', async () => {
    const refinement = ofKind(ShardKind.refinement)
    expect(refinement.length).toBe(30)
    const one = whole(corpus, true)
    const counts: Record<string, number[]> = { vector: [], auto: [], hybrid: [] }
    for (const mode of ['vector', 'auto', 'hybrid'] as const) {
      for (const query of corpus.queries) {
        const fetched: (string | number)[] = []
        const split = sharded(corpus, files, true, fetched)
        expect(await split.search(query, { mode, topK: 8 }), `${mode} "${query}"`).toEqual(await one.search(query, { mode, topK: 8 }))
        expect(ofKind(ShardKind.vectors).every(i => fetched.includes(i))).toBe(true)
        counts[mode]!.push(refinement.filter(i => fetched.includes(i)).length)
      }
    }
    // Every search rescores the documents from its K-th best up (8 chunks each here, in one or two
    // shards), and those that could pass it: hybrid takes 20 from each side, and auto weighs lexical
    // evidence by the vector side's top 10 (fusion-weight.ts), a second vector search.
    const all = Object.values(counts).flat()
    expect(Math.min(...all)).toBeGreaterThan(0)
    expect(Math.max(...all)).toBeLessThan(refinement.length)
    expect(Math.max(...counts.vector!)).toBeLessThanOrEqual(refinement.length / 2)
    expect(Math.max(...counts.auto!)).toBeLessThanOrEqual(refinement.length * 2 / 3)
  })

  it('are all in once loadVectors or loadAll resolves, and searches then fetch nothing more', async () => {
    const fetched: number[] = []
    const opened = openShardedSnapshot(files.core, decodeSnapshot(corpus.snapshot).documents, { load: async (i) => {
      fetched.push(i)
      return files.shards[i]!
    }, name: String })
    await opened.loadVectors()
    expect(new Set(fetched)).toEqual(new Set([...ofKind(ShardKind.vectors), ...ofKind(ShardKind.refinement)]))
    expect(opened.snapshot.refinement!.pending).toBeUndefined()
    expect(opened.snapshot.refinement!.data).toEqual(decodeSnapshot(corpus.snapshot).refinement!.data)
  })
})

describe('a damaged or mismatched shard', () => {
  const corpus = generatedCorpus(600, 'int8')
  const files = encodeShardedSnapshot(corpus.snapshot, { lexicalBytes: 1024, vectorBytes: 4096, cells: 0 })
  const other = encodeShardedSnapshot(generatedCorpus(601, 'int8').snapshot, { lexicalBytes: 1024, vectorBytes: 4096, cells: 0 })

  it('fails the search with a KnowledgeError that says what to redeploy, never a result', async () => {
    const damaged = files.shards.map(s => s.slice())
    // The last vector shard: every vector search reads it.
    const shards = openShardedSnapshot(files.core, decodeSnapshot(corpus.snapshot).documents, { load: async () => new Uint8Array(0), name: String }).shards
    const last = shards.findLastIndex(s => s.kind === ShardKind.vectors)
    const target = damaged[last]!
    target[200] = target[200]! ^ 0xFF
    const kb = sharded(corpus, { core: files.core, shards: damaged }, true)
    const error = await kb.search('anything', { mode: 'vector' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KnowledgeError)
    expect((error as KnowledgeError).code).toBe('snapshot-mismatch')
    const crc = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset).getUint32(12, true).toString(16).padStart(8, '0')
    const { crc32 } = await import('../../../../src/runtime/knowledge/format/crc32')
    expect((error as Error).message).toBe(`The knowledge snapshot shard shard-${last}.skillkit does not belong to its core (${damaged[last]!.length} bytes with CRC-32 ${crc32(damaged[last]!, 16).toString(16).padStart(8, '0')}; the core lists ${files.shards[last]!.length} bytes with ${crc(files.shards[last]!)}): the core and its shards come from different builds, or the shard was damaged in transfer. Deploy the build's whole output folder again, so that all of its files match.`)
  })

  it('refuses a shard of another build, and searches once the right one is served', async () => {
    let serve = other.shards
    const kb = createKnowledgeBase({
      name: 'mixed',
      documents: decodeSnapshot(corpus.snapshot).documents,
      bodies: [],
      loadSnapshot: async () => files.core,
      shards: { load: async index => serve[index]!, name: index => `shard-${index}.skillkit` },
    })
    const query = corpus.queries[0]!
    const error = await kb.search(query, { mode: 'lexical' }).catch((e: unknown) => e)
    expect((error as KnowledgeError).code).toBe('snapshot-mismatch')
    serve = files.shards
    expect(await kb.search(query, { mode: 'lexical' })).toEqual(await whole(corpus, false).search(query, { mode: 'lexical' }))
  })

  it('refuses a core whose documents are not those its module lists', async () => {
    const documents = decodeSnapshot(corpus.snapshot).documents.map((d, i) => i === 3 ? { ...d, description: 'Edited since' } : d)
    const kb = createKnowledgeBase({
      name: 'mixed',
      documents,
      bodies: [],
      loadSnapshot: async () => files.core,
      shards: { load: async index => files.shards[index]!, name: index => `shard-${index}.skillkit` },
    })
    const error = await kb.search('anything', { mode: 'lexical' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KnowledgeError)
    expect((error as KnowledgeError).code).toBe('snapshot-mismatch')
    expect((error as Error).message).toBe(`The knowledge snapshot core does not list the ${documents.length} documents its module does: they come from different builds. Deploy the build's whole output folder again, so that all of its files match.`)
  })

  it('refuses a core that lists another number of shards than its module names', async () => {
    const kb = createKnowledgeBase({
      name: 'mixed',
      documents: decodeSnapshot(corpus.snapshot).documents,
      bodies: [],
      loadSnapshot: async () => files.core,
      shards: { load: async index => files.shards[index]!, name: String, count: files.shards.length + 1 },
    })
    const error = await kb.search('anything', { mode: 'lexical' }).catch((e: unknown) => e)
    expect((error as KnowledgeError).code).toBe('snapshot-mismatch')
    expect((error as Error).message).toBe(`The knowledge snapshot core lists ${files.shards.length} shards where its module names ${files.shards.length + 1}: they come from different builds. Deploy the build's whole output folder again, so that all of its files match.`)
  })

  it('fails every search and snapshot() on a damaged core with KnowledgeError snapshot-unavailable, its SnapshotError as the cause', async () => {
    const flipped = files.core.slice()
    flipped[files.core.length - 1] = flipped[files.core.length - 1]! ^ 0xFF
    const magic = files.core.slice()
    magic[0] = 0x00
    const damaged: [string, Uint8Array, string][] = [
      ['truncated', files.core.subarray(0, files.core.length >> 1), `Truncated knowledge snapshot: ${files.core.length >> 1} of ${files.core.length} bytes. Rebuild it, or check that it was transferred completely.`],
      ['not-a-snapshot', magic, 'Not a knowledge snapshot (wrong magic bytes).'],
      ['checksum', flipped, 'Corrupt knowledge snapshot: checksum mismatch'],
    ]
    for (const [code, core, message] of damaged) {
      const kb = sharded(corpus, { core, shards: files.shards }, true)
      const failures = await Promise.all([
        ...(['lexical', 'vector', 'hybrid', 'auto'] as const).map(mode => kb.search('restore', { mode }).catch((e: unknown) => e)),
        kb.snapshot().catch((e: unknown) => e),
      ])
      for (const error of failures) {
        expect(error).toBeInstanceOf(KnowledgeError)
        expect(error).toMatchObject({ code: 'snapshot-unavailable', cause: { name: 'SnapshotError', code } })
        expect((error as Error).message.startsWith(`Cannot read the knowledge snapshot core of "${corpus.name}": ${message}`), (error as Error).message).toBe(true)
      }
      // Read alone, the core is refused the same way, named as its source names it.
      expect(() => openShardedSnapshot(core, decodeSnapshot(corpus.snapshot).documents, { load: async () => new Uint8Array(0), name: String, coreName: 'core.skillkit' }))
        .toThrow(expect.objectContaining({ name: 'KnowledgeError', code: 'snapshot-unavailable', message: expect.stringContaining(`Cannot read the knowledge snapshot core core.skillkit: ${message}`) }))
    }
    // A whole snapshot, damaged, is refused the same way.
    const kb = createKnowledgeBase({ name: 'whole', documents: decodeSnapshot(corpus.snapshot).documents, bodies: [], loadSnapshot: async () => corpus.snapshot.subarray(0, 100) })
    const error = await kb.search('restore', { mode: 'lexical' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KnowledgeError)
    expect(error).toMatchObject({ code: 'snapshot-unavailable', message: `Cannot read the knowledge snapshot of "whole": Truncated knowledge snapshot: 100 of ${corpus.snapshot.length} bytes. Rebuild it, or check that it was transferred completely.` })
  })

  it('is not a snapshot to decodeSnapshot, nor is the core', () => {
    const error = (() => {
      try {
        decodeSnapshot(files.core)
      }
      catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(SnapshotError)
    expect((error as SnapshotError).code).toBe('sharded')
    expect((error as Error).message).toBe('This is the core of a sharded knowledge snapshot (the plugin\'s shards option): it is read with its shards by the generated knowledge module, not decoded alone.')
    expect(() => decodeSnapshot(files.shards[0]!)).toThrow('Corrupt knowledge snapshot: unknown header flags. Rebuild it.')
  })
})
