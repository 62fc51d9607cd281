import type { SnapshotChunkInput, SnapshotDocumentInput } from '../../../../src/knowledge/snapshot'
import type { Snapshot } from '../../../../src/runtime/knowledge/format/snapshot-layout'
import { describe, expect, it } from 'vitest'
import { encodeSnapshot } from '../../../../src/knowledge/snapshot'
import { searchVectors } from '../../../../src/runtime/knowledge/vector/search'
import { dotFloat32, dotInt8, quantizeQuery, scoreChunks } from '../../../../src/runtime/knowledge/vector/search-kernels'
import { searchWasmModule } from '../../../../src/runtime/knowledge/vector/search-wasm'
import { decodeSnapshot } from '../../../../src/runtime/knowledge/format/snapshot-reader'
import { rng, unitVector } from '../../../support/random'

/** A vector at cosine `cos` from the first axis (the query below). */
function at(cos: number, dims = 16, axis = 1): number[] {
  const v = new Array(dims).fill(0)
  v[0] = cos
  v[axis] = Math.sqrt(1 - cos * cos)
  return v
}
const QUERY = at(1)

/** T · ln(mean of e^(s / T)), written plainly. */
const logMeanExp = (scores: number[]) => 0.05 * Math.log(scores.reduce((sum, s) => sum + Math.exp(s / 0.05), 0) / scores.length)

/**
 * The Semantic Skill Kit's ranking, written plainly: full cosine per chunk, each document's
 * scores, a sort of all; a document scores its best chunk (`max`) or the log-mean-exp of
 * its chunks (`soft`), and competes when its best chunk reaches the threshold.
 */
function naiveRank(documents: { id: string }[], chunks: { id: string, vector: number[] }[], query: number[], topK = 5, threshold = 0.3, pooling: 'max' | 'soft' = 'max') {
  const all = new Map<string, number[]>()
  for (const chunk of chunks) {
    let dot = 0
    let qq = 0
    let vv = 0
    for (let i = 0; i < query.length; i++) {
      dot += query[i]! * chunk.vector[i]!
      qq += query[i]! * query[i]!
      vv += chunk.vector[i]! * chunk.vector[i]!
    }
    all.set(chunk.id, [...all.get(chunk.id) ?? [], dot / Math.sqrt(qq * vv)])
  }
  return documents.filter(d => all.has(d.id) && Math.max(...all.get(d.id)!) >= threshold)
    .map(d => ({ id: d.id, score: pooling === 'max' ? Math.max(...all.get(d.id)!) : logMeanExp(all.get(d.id)!) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, topK)
}

function snapshotOf(docs: SnapshotDocumentInput[], chunks: SnapshotChunkInput[], encoding: 'float32' | 'int8' = 'float32'): Snapshot {
  return decodeSnapshot(encodeSnapshot({ model: 'test', documents: docs, chunks, encoding }))
}

/** A random corpus: `docCount` documents of 1–`maxChunks` chunks each. */
function corpus(docCount: number, maxChunks: number, dims: number, seed: number) {
  const random = rng(seed)
  const documents = Array.from({ length: docCount }, (_, d) => ({ id: `doc-${String(d).padStart(4, '0')}` }))
  const chunks: (SnapshotChunkInput & { vector: number[] })[] = []
  for (let d = 0; d < docCount; d++) {
    const count = 1 + Math.floor(random() * maxChunks)
    for (let k = 0; k < count; k++)
      chunks.push({ documentIndex: d, vector: unitVector(dims, random) })
  }
  return { documents, chunks, random }
}

/** A query near a random chunk (cosine about 0.7), so that some documents pass 0.3. */
function plantedQuery(chunks: { vector: number[] }[], dims: number, random: () => number): number[] {
  const base = chunks[Math.floor(random() * chunks.length)]!.vector
  const noise = unitVector(dims, random)
  return base.map((x, i) => x + noise[i]!)
}

describe('searchVectors: the seed\'s ranking rules', () => {
  const docs = [
    { id: 'c', description: 'C', category: 'x', tags: ['t'] },
    { id: 'a', description: 'A', category: 'x' },
    { id: 'b', description: 'B', category: 'y' },
    { id: 'e' },
    { id: 'd' },
    { id: 'f' },
    { id: 'g' },
    { id: 'h' },
  ]

  it('scores a document by its best chunk with pooling \'max\'', () => {
    const snap = snapshotOf(docs.slice(0, 2), [
      { documentIndex: 0, vector: at(0.5), heading: ['Low'] },
      { documentIndex: 0, vector: at(0.875), heading: ['High'] },
      { documentIndex: 0, vector: at(0.625) },
      { documentIndex: 1, vector: at(0.75) },
    ])
    const results = searchVectors(snap, QUERY, { pooling: 'max' })
    expect(results.map(r => [r.id, r.score])).toEqual([['c', 0.875], ['a', 0.75]])
    expect(results[0]!.heading).toEqual(['High'])
    expect(results[0]!.chunk).toBe(1)
  })

  it('scores a document by the log-mean-exp of its chunks by default, so that many weak chunks do not help', () => {
    const snap = snapshotOf(docs.slice(0, 3), [
      { documentIndex: 0, vector: at(0.5), heading: ['Low'] },
      { documentIndex: 0, vector: at(0.875), heading: ['High'] },
      { documentIndex: 0, vector: at(0.625) },
      { documentIndex: 1, vector: at(0.75) },
      // b: a broad document whose best chunk is the best of all, among 19 weak ones.
      { documentIndex: 2, vector: at(0.89, 16, 2) },
      ...Array.from({ length: 19 }, () => ({ documentIndex: 2, vector: at(0.2, 16, 2) })),
    ])
    const results = searchVectors(snap, QUERY)
    expect(results.map(r => r.id)).toEqual(['c', 'a', 'b'])
    // Float32 vectors: similarities within 1e-7 of the cosines above.
    expect(results[0]!.score).toBeCloseTo(logMeanExp([0.5, 0.875, 0.625]), 6)
    expect(results[0]!.score).toBeCloseTo(0.8204, 4)
    expect(results[1]!.score).toBeCloseTo(0.75, 6) // one chunk: its similarity
    expect(results[2]!.score).toBeCloseTo(logMeanExp([0.89, ...new Array(19).fill(0.2)]), 6)
    expect(results[2]!.score).toBeCloseTo(0.7402, 4)
    expect(results[0]!.heading).toEqual(['High'])
    expect(searchVectors(snap, QUERY, { pooling: 'max' }).map(r => r.id)).toEqual(['b', 'c', 'a'])
  })

  it('applies the threshold to a document\'s best chunk, not to its pooled score', () => {
    const snap = snapshotOf(docs.slice(0, 2), [
      { documentIndex: 0, vector: at(0.35) },
      { documentIndex: 0, vector: at(0) },
      { documentIndex: 0, vector: at(0) },
      { documentIndex: 1, vector: at(0.29) },
    ])
    const results = searchVectors(snap, QUERY)
    expect(results.map(r => r.id)).toEqual(['c'])
    expect(results[0]!.score).toBeCloseTo(logMeanExp([0.35, 0, 0]), 6)
    expect(results[0]!.score).toBeLessThan(0.3)
    expect(() => searchVectors(snap, QUERY, { pooling: 'mean' as 'max' })).toThrow(expect.objectContaining({ name: 'KnowledgeError', code: 'invalid-options', message: 'pooling must be \'soft\' or \'max\', got mean.' }))
  })

  it('keeps scores ≥ threshold (inclusive) and drops the rest', () => {
    const snap = snapshotOf(docs.slice(0, 3), [
      { documentIndex: 0, vector: at(0.375) },
      { documentIndex: 1, vector: at(0.3749) },
      { documentIndex: 2, vector: at(-0.5) },
    ])
    expect(searchVectors(snap, QUERY, { threshold: 0.375 }).map(r => r.id)).toEqual(['c'])
    expect(searchVectors(snap, QUERY).map(r => r.id)).toEqual(['c', 'a'])
    expect(searchVectors(snap, QUERY, { threshold: 0.9 })).toEqual([])
    expect(searchVectors(snap, QUERY, { threshold: -1 }).map(r => r.id)).toEqual(['c', 'a', 'b'])
  })

  it('returns the top 5 by default, best first, ties by ID', () => {
    const cos = [0.5, 0.75, 0.75, 0.5, 0.625, 0.75, 0.25, 0.875] // c a b e d f g h
    const snap = snapshotOf(docs, cos.map((c, d) => ({ documentIndex: d, vector: at(c, 16, 1 + d) })))
    const results = searchVectors(snap, QUERY)
    expect(results.map(r => r.id)).toEqual(['h', 'a', 'b', 'f', 'd'])
    expect(results.map(r => r.score)).toEqual([0.875, 0.75, 0.75, 0.75, 0.625])
    expect(searchVectors(snap, QUERY, { topK: 2 }).map(r => r.id)).toEqual(['h', 'a'])
    expect(searchVectors(snap, QUERY, { topK: 100 }).map(r => r.id)).toEqual(['h', 'a', 'b', 'f', 'd', 'c', 'e'])
  })

  it('breaks ties by ID in UTF-16 code unit order, whatever the input order', () => {
    const ids = ['beta', 'Beta', 'alpha', 'alpha-2', 'alpha/1', 'ä']
    const snap = snapshotOf(ids.map(id => ({ id })), ids.map((_, d) => ({ documentIndex: d, vector: at(0.5) })))
    expect(searchVectors(snap, QUERY, { topK: 10 }).map(r => r.id)).toEqual(['Beta', 'alpha', 'alpha-2', 'alpha/1', 'beta', 'ä'])
  })

  it('returns metadata only, never a body', () => {
    const snap = snapshotOf([{ id: 'a', description: 'A doc', category: 'x', categories: ['x', 'y'], tags: ['t'], path: 'a.md', tokenCount: 42 }], [{ documentIndex: 0, vector: at(0.5), heading: ['Intro'] }])
    expect(searchVectors(snap, QUERY)).toEqual([{ id: 'a', description: 'A doc', category: 'x', categories: ['x', 'y'], tags: ['t'], path: 'a.md', tokenCount: 42, score: 0.5, documentIndex: 0, chunk: 0, heading: ['Intro'] }])
  })

  it('normalises the query, and rejects a query of the wrong shape', () => {
    const snap = snapshotOf(docs.slice(0, 1), [{ documentIndex: 0, vector: at(0.5) }])
    expect(searchVectors(snap, QUERY.map(x => x * 7))[0]!.score).toBeCloseTo(0.5, 12)
    expect(searchVectors(snap, new Array(16).fill(0))).toEqual([])
    expect(() => searchVectors(snap, [1, 0])).toThrow(/2 dimensions, the snapshot 16/)
    expect(() => searchVectors(snap, [Number.NaN, ...QUERY.slice(1)])).toThrow(/non-finite/)
    expect(() => searchVectors(snap, QUERY, { topK: 0 })).toThrow(/topK/)
    expect(() => searchVectors(snap, QUERY, { topK: 1.5 })).toThrow(/topK/)
    expect(() => searchVectors(snap, QUERY, { threshold: 1.5 })).toThrow(/threshold/)
    expect(() => searchVectors(snap, QUERY, { threshold: Number.NaN })).toThrow(/threshold/)
  })

  it('finds nothing in an empty snapshot, and skips documents without chunks', () => {
    expect(searchVectors(snapshotOf([], []), [])).toEqual([])
    const snap = snapshotOf([{ id: 'a' }, { id: 'b' }], [{ documentIndex: 1, vector: at(0.5) }])
    expect(searchVectors(snap, QUERY, { threshold: -1 }).map(r => r.id)).toEqual(['b'])
  })
})

describe('searchVectors agrees with the naive ranking', () => {
  it.each([
    ['float32, 384 dims (WebAssembly)', 384, true, 'max'],
    ['float32, 384 dims (JavaScript)', 384, false, 'max'],
    ['float32, 20 dims (JavaScript tail loop)', 20, true, 'max'],
    ['float32, 384 dims, soft pooling', 384, true, 'soft'],
    ['float32, 20 dims, soft pooling (JavaScript)', 20, false, 'soft'],
  ] as const)('%s', (_, dims, accelerate, pooling) => {
    const { documents, chunks, random } = corpus(120, 6, dims, dims)
    const snap = snapshotOf(documents, chunks)
    for (let q = 0; q < 60; q++) {
      const query = q % 2 ? plantedQuery(chunks, dims, random) : unitVector(dims, random)
      const threshold = q % 3 === 0 ? -1 : 0.3
      const expected = naiveRank(documents, chunks.map(c => ({ id: documents[c.documentIndex]!.id, vector: c.vector })), query, 5, threshold, pooling)
      const actual = searchVectors(snap, query, { threshold, accelerate, pooling })
      expect(actual.map(r => r.id)).toEqual(expected.map(r => r.id))
      for (const [i, r] of actual.entries())
        expect(Math.abs(r.score - expected[i]!.score)).toBeLessThan(1e-6)
    }
  })
})

describe('kernels', () => {
  it('WebAssembly SIMD runs in Node 20', () => {
    expect(searchWasmModule()).not.toBeNull()
  })

  it.each(['float32', 'int8'] as const)('WebAssembly and JavaScript give bit-identical %s scores', (encoding) => {
    const { documents, chunks, random } = corpus(50, 8, 384, 11)
    const snap = snapshotOf(documents, chunks, encoding)
    for (let q = 0; q < 5; q++) {
      const unit = Float64Array.from(unitVector(384, random))
      const wasm = scoreChunks(snap, unit, true)
      const wasmValues = wasm.values.slice()
      const js = scoreChunks(snap, unit, false)
      expect(js.values).toEqual(wasmValues)
      expect(js.encoding === 'int8' && wasm.encoding === 'int8' ? js.queryScale === wasm.queryScale : true).toBe(true)
      const a = searchVectors(snap, unit, { threshold: -1, topK: 20, accelerate: true })
      expect(searchVectors(snap, unit, { threshold: -1, topK: 20, accelerate: false })).toEqual(a)
    }
  })

  it('int8 with dimensions that are not a multiple of 16 runs in JavaScript, close to float32', () => {
    const { documents, chunks, random } = corpus(40, 4, 20, 21)
    const f32 = snapshotOf(documents, chunks, 'float32')
    const i8 = snapshotOf(documents, chunks, 'int8')
    for (let q = 0; q < 10; q++) {
      const query = unitVector(20, random)
      const a = searchVectors(i8, query, { threshold: -1, topK: 40 })
      expect(searchVectors(i8, query, { threshold: -1, topK: 40, accelerate: false })).toEqual(a)
      const exact = new Map(searchVectors(f32, query, { threshold: -1, topK: 40 }).map(r => [r.id, r.score]))
      for (const r of a)
        expect(Math.abs(r.score - exact.get(r.id)!)).toBeLessThan(0.01)
    }
  })

  it('quantises the query so that no int32 sum can overflow', () => {
    for (const dims of [384, 4096]) {
      const q = new Float64Array(dims)
      q.fill(1 / Math.sqrt(dims)) // the largest Σ|q| a unit vector can have
      const ints = new Float64Array(dims)
      const scale = quantizeQuery(q, ints)
      const sum = ints.reduce((a, b) => a + Math.abs(b), 0)
      expect(127 * sum).toBeLessThanOrEqual(2 ** 31 - 1)
      expect(Math.max(...ints)).toBeLessThanOrEqual(32767)
      // The worst case, all +127 against all-positive q, still fits.
      const v = new Int8Array(dims).fill(127)
      const out = new Int32Array(1)
      dotInt8(ints, v, 1, dims, out)
      expect(out[0]).toBe(127 * sum)
      expect(Math.abs(out[0]! * scale / 127 / Math.sqrt(dims) - 1)).toBeLessThan(1e-4) // ≈ dot(q, all-ones)
    }
  })

  it('the float32 JavaScript kernel handles dimensions that are not a multiple of 8', () => {
    const v = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    const out = new Float64Array(1)
    dotFloat32(new Float64Array(11).fill(1), v, 1, 11, out)
    expect(out[0]).toBe(66)
  })
})

describe('int8 with refinement bits', () => {
  /** Every chunk's refined components (the int8 value and the low bits under it), read plainly from the bit stream. */
  function refinedComponents(snapshot: Snapshot): Float64Array {
    const dims = snapshot.dimensions
    const { bits, data } = snapshot.refinement!
    const levels = 2 ** bits
    const refined = new Float64Array(snapshot.chunkCount * dims)
    for (let c = 0; c < snapshot.chunkCount; c++) {
      for (let i = 0; i < dims; i++) {
        const bit = c * Math.ceil(dims * bits / 8) * 8 + i * bits
        const lo = (((data[bit >> 3]! | ((data[(bit >> 3) + 1] ?? 0) << 8)) >> (bit & 7)) & (levels - 1)) - levels / 2
        refined[c * dims + i] = levels * snapshot.vectors[c * dims + i]! + lo
      }
    }
    return refined
  }

  /** The ranking of the refined vectors, computed plainly. */
  function refinedRank(snapshot: Snapshot, refined: Float64Array, query: number[], topK: number, threshold: number, pooling: 'max' | 'soft') {
    const dims = snapshot.dimensions
    const norm = Math.hypot(...query)
    const levels = 2 ** snapshot.refinement!.bits
    const all = new Map<number, number[]>()
    for (let c = 0; c < snapshot.chunkCount; c++) {
      let dot = 0
      for (let i = 0; i < dims; i++)
        dot += query[i]! / norm * refined[c * dims + i]!
      const score = dot * snapshot.scales![c]! / levels
      const d = snapshot.chunkDocuments[c]!
      all.set(d, [...all.get(d) ?? [], score])
    }
    return [...all].filter(([, s]) => Math.max(...s) >= threshold)
      .map(([d, s]) => [d, pooling === 'max' ? Math.max(...s) : logMeanExp(s)] as const)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, topK)
  }

  it.each([
    [true, 'max'],
    [false, 'max'],
    [true, 'soft'],
    [false, 'soft'],
  ] as const)('ranks exactly as the refined vectors (WebAssembly: %s, pooling %s)', (accelerate, pooling) => {
    const dims = 384
    const { documents, chunks, random } = corpus(300, 10, dims, 11)
    const i8 = snapshotOf(documents, chunks, 'int8')
    expect(i8.refinement).not.toBeNull()
    const refined = refinedComponents(i8)
    for (let q = 0; q < 60; q++) {
      const [query, threshold, topK] = q % 2 ? [unitVector(dims, random), -1, 5] : [plantedQuery(chunks, dims, random), 0.3, 3 + (q % 7)]
      const expected = refinedRank(i8, refined, query, topK, threshold, pooling)
      const found = searchVectors(i8, query, { topK, threshold, accelerate, pooling })
      expect(found.map(r => r.documentIndex)).toEqual(expected.map(([d]) => d))
      found.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i]![1], 12))
    }
  })
})

describe('int8 vs float32', () => {
  const report = (what: string, r: { ordered: number, overlap: number, maxError: number, maxSwappedGap: number }) =>
    `int8 vs float32 (3,000 chunks × 384, 300 documents, 200 ${what}): same top 5 in order ${(r.ordered * 100).toFixed(1)}%, `
    + `top-5 overlap ${(r.overlap * 100).toFixed(1)}%, max |Δscore| ${r.maxError.toExponential(1)}, largest float32 gap reordered ${r.maxSwappedGap.toExponential(1)}`

  /**
   * Share of queries whose top 5 (IDs, in order) is the same with both
   * encodings, mean overlap of the two top-5 sets, and the largest float32 score
   * gap between two documents that int8 ranks the other way round.
   */
  function agreement(threshold: number, planted: boolean) {
    const dims = 384
    const { documents, chunks, random } = corpus(300, 10, dims, planted ? 5 : 6)
    const f32 = snapshotOf(documents, chunks, 'float32')
    const i8 = snapshotOf(documents, chunks, 'int8')
    let same = 0
    let overlap = 0
    let maxError = 0
    let maxSwappedGap = 0
    const queries = 200
    for (let q = 0; q < queries; q++) {
      const query = planted ? plantedQuery(chunks, dims, random) : unitVector(dims, random)
      const a = searchVectors(f32, query, { threshold })
      const b = searchVectors(i8, query, { threshold })
      if (a.map(r => r.id).join() === b.map(r => r.id).join())
        same++
      overlap += a.length ? a.filter(r => b.some(x => x.id === r.id)).length / a.length : 1
      const exact = new Map(searchVectors(f32, query, { threshold: -1, topK: 1000 }).map(r => [r.id, r.score]))
      for (const r of b) {
        maxError = Math.max(maxError, Math.abs(exact.get(r.id)! - r.score))
        for (const other of b) {
          if (exact.get(r.id)! < exact.get(other.id)! && b.indexOf(r) < b.indexOf(other))
            maxSwappedGap = Math.max(maxSwappedGap, exact.get(other.id)! - exact.get(r.id)!)
        }
      }
      // A document that int8 drops from the top 5 is within a near-tie of the last one it keeps.
      for (const r of a.filter(r => !b.some(x => x.id === r.id)))
        maxSwappedGap = Math.max(maxSwappedGap, r.score - exact.get(b.at(-1)!.id)!)
    }
    return { ordered: same / queries, overlap: overlap / queries, maxError, maxSwappedGap }
  }

  it('agree on the top 5 of random unit vectors (threshold −1: the closest call, every score near 0)', () => {
    const rate = agreement(-1, false)
    console.log(report('random queries, threshold -1', rate))
    expect(rate.ordered).toBeGreaterThanOrEqual(0.9)
    expect(rate.overlap).toBeGreaterThanOrEqual(0.99)
    expect(rate.maxError).toBeLessThan(0.0006)
    expect(rate.maxSwappedGap).toBeLessThan(0.001)
  })

  it('agree on the top 5 of queries near a chunk (threshold 0.3)', () => {
    const rate = agreement(0.3, true)
    console.log(report('queries near a chunk, threshold 0.3', rate))
    expect(rate.ordered).toBeGreaterThanOrEqual(0.99)
    expect(rate.maxSwappedGap).toBeLessThan(0.001)
  })
})
