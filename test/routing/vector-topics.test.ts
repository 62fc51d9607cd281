import type { KnowledgeDocument } from '../../src/knowledge/document'
import type { RoutedSkill } from '../../src/routing/layout'
import { describe, expect, it } from 'vitest'
import { encodeSnapshot } from '../../src/knowledge/snapshot'
import { decodeSnapshot } from '../../src/runtime/knowledge/format/snapshot-reader'
import { routeDocuments } from '../../src/routing/route'
import { documentVectors } from '../../src/routing/vector-topics'

const GARDEN = ['watering the soil of garden plants', 'pruning garden roses and shrubs', 'compost for garden beds and soil', 'garden seeds sown in spring soil']
const KITCHEN = ['baking bread in the kitchen oven', 'kitchen knives sharpened for cooking', 'cooking rice on the kitchen stove', 'oven temperatures for kitchen baking']
/** A word of each document's title, for the labels (words every document shares name no topic). */
const NAMES = ['amber', 'birch', 'cedar', 'dahlia', 'elm', 'fern', 'ginkgo', 'hazel', 'iris', 'juniper', 'kale', 'lilac', 'maple', 'nettle', 'oak', 'poppy']

/**
 * Sixteen documents with no frontmatter: eight say garden words, eight
 * kitchen words; their vectors split them the other way (by the parity of
 * their number), as a model may see a likeness that words do not show.
 */
function corpus(): { documents: KnowledgeDocument[], vectors: Map<string, Float32Array> } {
  const documents: KnowledgeDocument[] = []
  const vectors = new Map<string, Float32Array>()
  for (let i = 0; i < 16; i++) {
    const words = i < 8 ? GARDEN : KITCHEN
    const id = `note-${String(i).padStart(2, '0')}`
    const title = `Note ${i}: ${NAMES[i]}`
    const body = `# ${title}\n\n${words[i % 4]}. ${words[(i + 1) % 4]}. ${words[(i + 2) % 4]}.\n`
    documents.push({ id, path: `${id}.md`, title, description: '', category: undefined, categories: [], tags: [], body, bodyLine: 1 })
    vectors.set(id, Float32Array.from(i % 2 === 0 ? [1, 0, 0] : [0, 0.6, 0.8]))
  }
  return { documents, vectors }
}

const route = (documents: readonly KnowledgeDocument[], vectors?: ReadonlyMap<string, Float32Array>) =>
  routeDocuments(documents, { name: 'Notes', description: 'Answer questions from the notes.', pageSize: 8, maxEntryTokens: 2000, vectors })

/** The documents of each topic, sorted: the grouping, whatever the labels. */
function groups(routes: RoutedSkill): string[][] {
  const byTopic = new Map<string, string[]>()
  for (const [id, card] of Object.entries(routes.cards))
    card.topics.forEach(topic => byTopic.set(topic, [...(byTopic.get(topic) ?? []), id].sort()))
  return [...byTopic.values()].sort((a, b) => a[0]!.localeCompare(b[0]!))
}

const files = (routes: RoutedSkill) => ({ 'SKILL.md': routes.skill, 'llms.txt': routes.llmsTxt, ...routes.pages, ...routes.catalog })
const ids = (numbers: number[]) => numbers.map(i => `note-${String(i).padStart(2, '0')}`)

describe('content topics from the base\'s vectors', () => {
  it('groups documents by their vectors when every one has a vector, and labels the topics with words', async () => {
    const { documents, vectors } = corpus()
    expect(groups(await route(documents))).toEqual([ids([0, 1, 2, 3, 4, 5, 6, 7]), ids([8, 9, 10, 11, 12, 13, 14, 15])])
    const routes = await route(documents, vectors)
    expect(groups(routes)).toEqual([ids([0, 2, 4, 6, 8, 10, 12, 14]), ids([1, 3, 5, 7, 9, 11, 13, 15])])
    for (const topic of new Set(Object.values(routes.cards).flatMap(card => card.topics)))
      expect(topic).toMatch(/^\p{Lu}\p{L}+(?:, \p{L}+)*$/u)
  })

  it('groups by words when a document of the group has no vector or one of another dimension', async () => {
    const { documents, vectors } = corpus()
    const byWords = files(await route(documents))
    const missing = new Map(vectors)
    missing.delete('note-03')
    expect(files(await route(documents, missing))).toEqual(byWords)
    const mixed = new Map(vectors).set('note-05', Float32Array.from([1, 0]))
    expect(files(await route(documents, mixed))).toEqual(byWords)
  })

  it('gives byte-identical pages for the same documents and vectors, whatever their order', async () => {
    const { documents, vectors } = corpus()
    const first = files(await route(documents, vectors))
    const reversed = new Map([...vectors].reverse())
    expect(files(await route([...documents].reverse(), reversed))).toEqual(first)
  })
})

describe('documentVectors', () => {
  it('gives each document the unit mean of its chunks\' vectors, int8 rows scaled back', () => {
    const documents = ['a', 'b', 'c'].map(id => ({ id, description: '', category: '', categories: [], tags: [], path: `${id}.md`, tokenCount: 1 }))
    const chunk = (documentIndex: number, vector: number[]) => ({ documentIndex, vector: Float32Array.from(vector), heading: [], text: 'x' })
    const snapshot = decodeSnapshot(encodeSnapshot({
      model: 'test-model',
      encoding: 'int8',
      documents,
      // "c" has no chunk: it gets no vector.
      chunks: [chunk(0, [1, 0, 0, 0]), chunk(0, [0, 1, 0, 0]), chunk(1, [0, 0, 0.6, 0.8])],
    }))
    const vectors = documentVectors(snapshot)
    expect([...vectors.keys()]).toEqual(['a', 'b'])
    const a = [...vectors.get('a')!]
    expect(a.map(x => Number(x.toFixed(2)))).toEqual([0.71, 0.71, 0, 0])
    expect(Math.hypot(...a)).toBeCloseTo(1, 5)
    expect([...vectors.get('b')!].map(x => Number(x.toFixed(2)))).toEqual([0, 0, 0.6, 0.8])
  })

  it('gives none for a snapshot built with no model', () => {
    const snapshot = decodeSnapshot(encodeSnapshot({
      model: '',
      encoding: 'none',
      lexical: true,
      documents: [{ id: 'a', description: '', category: '', categories: [], tags: [], path: 'a.md', tokenCount: 1 }],
      chunks: [{ documentIndex: 0, heading: ['A'], text: 'Some words.' }],
    }))
    expect(documentVectors(snapshot).size).toBe(0)
  })
})
