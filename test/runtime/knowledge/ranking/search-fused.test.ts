import type { SnapshotChunkInput, SnapshotDocumentInput } from '../../../../src/knowledge/snapshot'
import type { VectorPooling } from '../../../../src/runtime/knowledge/ranking/search-pool'
import { describe, expect, it } from 'vitest'
import { encodeSnapshot } from '../../../../src/knowledge/snapshot'
import { lexicalWeight, peakedness } from '../../../../src/runtime/knowledge/ranking/fusion-weight'
import { searchLexical } from '../../../../src/runtime/knowledge/lexical/lexical'
import { searchVectors } from '../../../../src/runtime/knowledge/vector/search'
import { searchFused } from '../../../../src/runtime/knowledge/ranking/search-fused'
import { decodeSnapshot } from '../../../../src/runtime/knowledge/format/snapshot-reader'
import { rng, unitVector } from '../../../support/random'

/** A vector at cosine `cos` from the first axis (the query below), tilted towards `axis`. */
function at(cos: number, dims = 8, axis = 1): number[] {
  const v = new Array(dims).fill(0)
  v[0] = cos
  v[axis] = Math.sqrt(1 - cos * cos)
  return v
}
const QUERY = at(1)

function snapshotOf(documents: SnapshotDocumentInput[], chunks: SnapshotChunkInput[], encoding: 'float32' | 'int8' = 'float32') {
  return decodeSnapshot(encodeSnapshot({ model: 'test', documents, chunks, encoding, lexical: true }))
}

/** Both sides' ten highest document scores over every document (lexically 0 without a query term), and the weight they give. */
function weightOf(snap: ReturnType<typeof snapshotOf>, query: string, vector: ArrayLike<number>, pooling: VectorPooling = 'soft'): number {
  const all = snap.documents.length
  const vectorTop = searchVectors(snap, vector, { threshold: -1, topK: all, pooling }).map(r => r.score).slice(0, 10)
  const lexical = searchLexical(snap, query, { threshold: 0, topK: all, pooling }).map(r => r.score)
  const lexicalTop = [...lexical, ...new Array(all - lexical.length).fill(0)].sort((a, b) => b - a).slice(0, 10)
  return lexicalWeight(vectorTop, lexicalTop)
}

describe('peakedness', () => {
  it('is the best score minus the mean of the others', () => {
    expect(peakedness([0.9, 0.5, 0.4, 0.3])).toBeCloseTo(0.5, 15)
    expect(peakedness([0.6, 0.6, 0.6])).toBe(0)
    expect(peakedness([0.7])).toBe(0)
    expect(peakedness([])).toBe(0)
  })
})

describe('lexicalWeight', () => {
  it('is 0.7 when both sides are as peaked', () => {
    expect(lexicalWeight([0.6, 0.5], [0.6, 0.5])).toBe(0.7)
    expect(lexicalWeight([0.8, 0.2, 0.2], [0.6, 0, 0, 0, 0])).toBeCloseTo(0.7, 12)
    expect(lexicalWeight([0.5], [])).toBe(0.7) // neither side can tell documents apart
  })

  it('follows the ratio of peakedness (+ 0.01 each) to the power 1.25, up to 2', () => {
    // Lexical twice as peaked: 0.7 · ((0.39 + 0.01) / (0.19 + 0.01))^1.25 = 0.7 · 2^1.25.
    expect(lexicalWeight([0.6, 0.41], [0.8, 0.41])).toBeCloseTo(1.664890, 6)
    // A flat vector side and a clear lexical leader: lexical counts 2 at most.
    expect(lexicalWeight([0.5, 0.5, 0.5], [0.8, 0.2, 0])).toBe(2)
    // A clear vector leader and a lexical side that has every document level: lexical hardly counts.
    expect(lexicalWeight([0.8, 0.4, 0.4, 0.4], [0.3, 0.3, 0.3])).toBeCloseTo(0.7 * (0.01 / 0.41) ** 1.25, 15)
    expect(lexicalWeight([0.8, 0.4, 0.4, 0.4], [0.3, 0.3, 0.3])).toBeCloseTo(0.006747, 6)
  })
})

describe('searchFused', () => {
  const documents = [{ id: 'dialogs' }, { id: 'light-dismiss' }, { id: 'scrolling' }, { id: 'toasts' }]
  const snap = snapshotOf(documents, [
    { documentIndex: 0, vector: at(0.8, 8, 1), heading: ['Dialogs'], text: 'Open a modal dialog with showModal.' },
    { documentIndex: 0, vector: at(0.3, 8, 2), heading: ['Dialogs', 'Closing'], text: 'A dialog closes with its close button.' },
    { documentIndex: 1, vector: at(0.7, 8, 3), heading: ['Light dismiss'], text: 'Close a dialog when the user clicks outside it: closedby any.' },
    { documentIndex: 2, vector: at(0.1, 8, 4), heading: ['Scrolling'], text: 'Snap points and scroll padding.' },
    { documentIndex: 3, vector: at(0.2, 8, 5), heading: ['Toasts'], text: 'A toast announces a dialog result, then goes away.' },
  ])

  it('scores vector + weight · lexical, each the soft maximum of the document\'s chunks', () => {
    const query = 'dismiss dialog on click outside'
    const vector = new Map(searchVectors(snap, QUERY, { threshold: -1, topK: 10 }).map(r => [r.id, r.score]))
    const lexical = new Map(searchLexical(snap, query, { threshold: 0, topK: 10 }).map(r => [r.id, r.score]))
    const fused = searchFused(snap, query, QUERY, { threshold: -1, topK: 10 })
    expect(fused.map(r => r.id)).toEqual(['light-dismiss', 'dialogs', 'toasts', 'scrolling'])
    const weight = weightOf(snap, query, QUERY)
    for (const r of fused)
      expect(r.score).toBeCloseTo(vector.get(r.id)! + weight * (lexical.get(r.id) ?? 0), 12)
    // Vector alone puts the broader dialogs guide first; its lexical lead is light-dismiss's.
    expect(searchVectors(snap, QUERY, { threshold: -1 })[0]!.id).toBe('dialogs')
    expect(fused[0]!.heading).toEqual(['Light dismiss'])
  })

  it('lets a document compete when its best chunk reaches either threshold', () => {
    // toasts: cosine 0.2 < 0.3, but "toast" is in its text and heading, and in no other document's:
    // lexical search is the surer side, and puts it first.
    expect(searchFused(snap, 'toast', QUERY).map(r => r.id)).toEqual(['toasts', 'dialogs', 'light-dismiss'])
    expect(searchFused(snap, 'toast', QUERY, { lexicalThreshold: 1 }).map(r => r.id)).toEqual(['dialogs', 'light-dismiss'])
    expect(searchFused(snap, 'zebra', QUERY, { threshold: 0.75 }).map(r => r.id)).toEqual(['dialogs'])
    expect(searchFused(snap, 'toast', QUERY, { topK: 1 }).map(r => r.id)).toEqual(['toasts'])
  })

  it('fuses the lexical evidence of corrected typos and joined words', () => {
    // `diaolg` is corrected to `dialog`; `show modal` also searches `showmod` (from showModal).
    expect(searchFused(snap, 'diaolg outside', QUERY, { threshold: -1, topK: 10 })).toEqual(searchFused(snap, 'dialog outside', QUERY, { threshold: -1, topK: 10 }))
    const joined = searchFused(snap, 'show modal', QUERY, { threshold: -1, topK: 10 })
    const lexical = new Map(searchLexical(snap, 'show modal', { threshold: 0, topK: 10 }).map(r => [r.id, r.score]))
    expect(lexical.has('dialogs')).toBe(true)
    const vector = new Map(searchVectors(snap, QUERY, { threshold: -1, topK: 10 }).map(r => [r.id, r.score]))
    const weight = weightOf(snap, 'show modal', QUERY)
    for (const r of joined)
      expect(r.score).toBeCloseTo(vector.get(r.id)! + weight * (lexical.get(r.id) ?? 0), 12)
    expect(searchFused(snap, 'show the modal', QUERY, { threshold: -1, topK: 10 }).find(r => r.id === 'dialogs')!.score).toBeLessThan(joined.find(r => r.id === 'dialogs')!.score)
  })

  it('validates its options and needs a lexical index', () => {
    expect(() => searchFused(snap, 'x', QUERY, { topK: 0 })).toThrow(expect.objectContaining({ name: 'KnowledgeError', code: 'invalid-options', message: 'topK must be a positive integer, got 0.' }))
    expect(() => searchFused(snap, 'x', QUERY, { threshold: 2 })).toThrow('threshold must be a number from -1 to 1, got 2.')
    expect(() => searchFused(snap, 'x', QUERY, { lexicalThreshold: -0.5 })).toThrow('lexicalThreshold must be a number from 0 to 1, got -0.5.')
    const bare = decodeSnapshot(encodeSnapshot({ model: 'test', documents, chunks: [{ documentIndex: 0, vector: at(0.5) }], encoding: 'float32' }))
    expect(() => searchFused(bare, 'x', QUERY)).toThrow(expect.objectContaining({ code: 'no-lexical-index', message: 'This snapshot has no lexical index: search it with searchVectors.' }))
    expect(searchFused(snap, 'dialog', new Array(8).fill(0))).toEqual([])
  })

  it('on int8 with refinement bits, ranks as the refined vector scores plus the lexical ones', () => {
    const random = rng(7)
    const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'theta']
    const docs = Array.from({ length: 120 }, (_, d) => ({ id: `doc-${String(d).padStart(3, '0')}` }))
    const chunks: SnapshotChunkInput[] = []
    for (let d = 0; d < docs.length; d++) {
      for (let k = 1 + Math.floor(random() * 5); k > 0; k--)
        chunks.push({ documentIndex: d, vector: unitVector(64, random), text: Array.from({ length: 6 }, () => words[Math.floor(random() * words.length)]).join(' ') })
    }
    const i8 = snapshotOf(docs, chunks, 'int8')
    for (let q = 0; q < 30; q++) {
      const query = `${words[q % 8]} ${words[(q * 3) % 8]}`
      const vector = unitVector(64, random)
      // Every document's exact (refined) vector score: topK covers them all, so all are rescored.
      const exact = new Map(searchVectors(i8, vector, { threshold: -1, topK: 1000 }).map(r => [r.documentIndex, r.score]))
      const lexical = new Map(searchLexical(i8, query, { threshold: 0, topK: 1000 }).map(r => [r.documentIndex, r.score]))
      const weight = weightOf(i8, query, vector)
      const expected = [...exact].map(([d, v]) => [d, v + weight * (lexical.get(d) ?? 0)] as const).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 5)
      const found = searchFused(i8, query, vector, { threshold: -1 })
      expect(found.map(r => r.documentIndex)).toEqual(expected.map(([d]) => d))
      found.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i]![1], 12))
      // Only documents that can make the top 5 are pooled: the same five as when all are.
      expect(searchFused(i8, query, vector, { threshold: -1, topK: 1000 }).slice(0, 5)).toEqual(found)
    }
  })
})

describe('searchFused weighs the surer side', () => {
  const queryVector = at(1, 40)
  /** Documents `doc-<n>` of one chunk each, at the given cosines from the query, each tilted towards an axis of its own. */
  function documentsAt(cosines: number[], texts: string[]) {
    const documents = cosines.map((_, d) => ({ id: `doc-${String(d).padStart(2, '0')}` }))
    return snapshotOf(documents, cosines.map((cos, d) => ({ documentIndex: d, vector: at(cos, 40, d + 1), text: texts[d]! })))
  }
  /** The first document with the former fixed weight, 0.5 for a short query. */
  function firstWithFixedWeight(snap: ReturnType<typeof snapshotOf>, query: string) {
    const lexical = new Map(searchLexical(snap, query, { threshold: 0, topK: 100 }).map(r => [r.id, r.score]))
    return searchVectors(snap, queryVector, { threshold: -1, topK: 100 })
      .map(r => ({ id: r.id, score: r.score + 0.5 * (lexical.get(r.id) ?? 0) }))
      .sort((a, b) => b.score - a.score)[0]!.id
  }

  it('lets a clear lexical leader win over a vector side that has its documents nearly level', () => {
    // Vector search puts doc-00 a little ahead (0.66, then 0.58 to 0.54); doc-04 alone holds both
    // query words (lexical 0.49), doc-00 one of them (0.29).
    const snap = documentsAt([0.66, 0.58, 0.57, 0.56, 0.54, 0.55], [
      'Grid layout places items in rows and columns.',
      'Flexbox lays items out in one direction.',
      'Container queries style a component by its size.',
      'Subgrid lets nested grids share their tracks.',
      'Masonry layout packs items of any height into columns.',
      'Anchor positioning ties a popover to its button.',
    ])
    expect(firstWithFixedWeight(snap, 'masonry columns')).toBe('doc-00')
    expect(weightOf(snap, 'masonry columns', queryVector)).toBe(2)
    expect(searchFused(snap, 'masonry columns', queryVector)[0]!.id).toBe('doc-04')
  })

  it('keeps a clear vector leader first when the documents holding the query\'s word all score alike', () => {
    // Vector search puts doc-00 far ahead (0.70, then 0.45 and less); "page" is in doc-01 to doc-11
    // alike (lexical 0.57 each), not in doc-00.
    const cosines = Array.from({ length: 30 }, (_, d) => d === 0 ? 0.7 : d === 1 ? 0.45 : 0.42 - 0.01 * (d - 2))
    const texts = cosines.map((_, d) => d === 0 ? 'Prefetch the next route before the user clicks.' : d <= 11 ? `The page shows section ${d} of the page.` : `Topic number ${d} without that word.`)
    const snap = documentsAt(cosines, texts)
    expect(firstWithFixedWeight(snap, 'page')).toBe('doc-01')
    expect(weightOf(snap, 'page', queryVector)).toBeLessThan(0.01)
    expect(searchFused(snap, 'page', queryVector)[0]!.id).toBe('doc-00')
  })
})

describe('searchFused against a plain reference', () => {
  // Many documents of 1–12 chunks and Zipf-like word frequencies, so that long prompts widen the
  // bounds and pooling has documents to skip; the reference pools every document.
  const random = rng(13)
  const vocabulary = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`)
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!
  const docs = Array.from({ length: 600 }, (_, d) => ({ id: `doc-${String(d).padStart(3, '0')}` }))
  const chunks: SnapshotChunkInput[] = []
  for (let d = 0; d < docs.length; d++) {
    for (let k = 1 + Math.floor(random() * 12); k > 0; k--)
      chunks.push({ documentIndex: d, vector: unitVector(32, random), heading: [word()], text: Array.from({ length: 20 }, word).join(' ') })
  }
  const queries = Array.from({ length: 24 }, (_, q) => {
    const chunk = chunks[Math.floor(random() * chunks.length)]!
    const text = chunk.text!.split(' ')
    const query = q % 2 ? [...text.slice(0, 8), ...Array.from({ length: 24 }, word)].join(' ') : text.slice(0, 3).join(' ')
    const vector = Array.from(chunk.vector!, x => x + (random() - 0.5) / 4)
    return { query, vector }
  })

  /** The fused ranking computed plainly: every document's pooled vector and lexical scores, sorted. */
  function reference(snap: ReturnType<typeof snapshotOf>, query: string, vector: number[], pooling: VectorPooling) {
    const all = { topK: docs.length }
    const pooledVector = searchVectors(snap, vector, { ...all, threshold: -1, pooling })
    const bestVector = new Map(searchVectors(snap, vector, { ...all, threshold: -1, pooling: 'max' }).map(r => [r.documentIndex, r.score]))
    const pooledLexical = new Map(searchLexical(snap, query, { ...all, threshold: 0, pooling }).map(r => [r.documentIndex, r.score]))
    const bestLexical = new Map(searchLexical(snap, query, { ...all, threshold: 0, pooling: 'max' }).map(r => [r.documentIndex, r.score]))
    const weight = weightOf(snap, query, vector, pooling)
    const ranked = pooledVector
      .map(({ documentIndex: d, score: v }) => ({ documentIndex: d, score: v + weight * (pooledLexical.get(d) ?? 0) }))
      .sort((a, b) => b.score - a.score || a.documentIndex - b.documentIndex)
    return (topK: number, threshold: number, lexicalThreshold: number) => ranked
      .filter(({ documentIndex: d }) => bestVector.get(d)! >= threshold || (bestLexical.get(d) ?? 0) >= lexicalThreshold)
      .slice(0, topK)
  }

  for (const [encoding, pooling] of [['float32', 'soft'], ['int8', 'soft'], ['int8', 'max']] as const) {
    it(`ranks and scores as pooling every document does (${encoding}, ${pooling} pooling)`, () => {
      const snap = snapshotOf(docs, chunks, encoding)
      for (const { query, vector } of queries) {
        const expected = reference(snap, query, vector, pooling)
        for (const [topK, threshold, lexicalThreshold] of [[5, 0.3, 0.25], [1, 0.3, 0.25], [10, 0, 0], [3, 0.6, 0.5]] as const) {
          const found = searchFused(snap, query, vector, { topK, threshold, lexicalThreshold, pooling }).map(r => ({ documentIndex: r.documentIndex, score: r.score }))
          expect(found).toEqual(expected(topK, threshold, lexicalThreshold))
        }
      }
    })
  }
})
