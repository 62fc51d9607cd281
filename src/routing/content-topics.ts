// Topics from what documents say, for documents that name none: their lexical
// terms (title and headings weigh more than the body) as TF-IDF vectors,
// split top down into at most `pageSize` clusters until every cluster fits a
// page, each labelled with the words that set it apart from its siblings.
// No model, no randomness: the same documents give the same topics.

import type { KnowledgeDocument } from '../knowledge/document'
import { scanHeadings } from '../core/markdown'
import { STOPWORDS, stem, words } from '../runtime/knowledge/lexical/tokens'

/** A topic: its label, and either documents (a leaf) or sub-topics. */
export interface ContentTopic {
  label: string
  ids: string[]
  children: ContentTopic[]
}

type Vector = Map<string, number>

/** Terms kept per document: enough to tell documents apart, few enough to stay fast. */
const TERMS_PER_DOCUMENT = 48
/** How often a clustering pass reassigns before it stops (it usually settles in 3–5). */
const ROUNDS = 12
/** Words in a topic's label. */
const LABEL_WORDS = 3

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** A document's words: its title thrice, its headings twice, its body once (code blocks out: identifiers are not topics). */
function weightedWords(document: KnowledgeDocument): string[] {
  const headings = scanHeadings(document.body.split(/\r\n|\r|\n/)).map(heading => heading.text).join(' ')
  const prose = document.body.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, ' ')
  return [document.title, document.title, document.title, headings, headings, prose].flatMap(text => words(text))
}

/** Whether a word can name a topic: letters, not a stopword, not a number or a one-letter token. */
function topical(word: string): boolean {
  return word.length > 2 && !STOPWORDS.has(word) && /\p{L}/u.test(word) && !/^\d/.test(word)
}

interface Corpus {
  vectors: Map<string, Vector>
  /** Each term's most frequent surface word (how a label spells it). */
  surface: Map<string, string>
  /** The terms each document holds. */
  terms: Map<string, Set<string>>
}

function corpusOf(documents: readonly KnowledgeDocument[]): Corpus {
  const counts = new Map<string, Map<string, number>>()
  const spellings = new Map<string, Map<string, number>>()
  const df = new Map<string, number>()
  for (const document of documents) {
    const tf = new Map<string, number>()
    for (const word of weightedWords(document).filter(topical)) {
      const term = stem(word)
      tf.set(term, (tf.get(term) ?? 0) + 1)
      const spelt = spellings.get(term) ?? new Map<string, number>()
      spelt.set(word, (spelt.get(word) ?? 0) + 1)
      spellings.set(term, spelt)
    }
    counts.set(document.id, tf)
    for (const term of tf.keys())
      df.set(term, (df.get(term) ?? 0) + 1)
  }
  const n = documents.length
  const vectors = new Map<string, Vector>()
  const terms = new Map<string, Set<string>>()
  for (const [id, tf] of counts) {
    // Terms in every document say nothing about any one; terms in one document group nothing.
    const weighted = [...tf]
      .filter(([term]) => df.get(term)! > 1 && df.get(term)! < n)
      .map(([term, count]): [string, number] => [term, (1 + Math.log(count)) * Math.log(n / df.get(term)!)])
      .sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))
      .slice(0, TERMS_PER_DOCUMENT)
    const norm = Math.hypot(...weighted.map(([, w]) => w)) || 1
    vectors.set(id, new Map(weighted.map(([term, w]) => [term, w / norm])))
    terms.set(id, new Set(tf.keys()))
  }
  const surface = new Map([...spellings].map(([term, spelt]) => [term, [...spelt].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0]![0]]))
  return { vectors, surface, terms }
}

function dot(a: Vector, b: Vector): number {
  let sum = 0
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  for (const [term, w] of small)
    sum += w * (large.get(term) ?? 0)
  return sum
}

function centroid(ids: readonly string[], vectors: Map<string, Vector>): Vector {
  const sum = new Map<string, number>()
  for (const id of ids) {
    for (const [term, w] of vectors.get(id)!)
      sum.set(term, (sum.get(term) ?? 0) + w)
  }
  const norm = Math.hypot(...sum.values()) || 1
  return new Map([...sum].map(([term, w]) => [term, w / norm]))
}

/**
 * `ids` (sorted) in `k` clusters of at most `capacity`: seeds far apart
 * (farthest-first from the most central document), then rounds of
 * capacity-bound assignment, strongest affinities first, to the clusters'
 * centroids. Ties go by ID, so the result depends on the documents only.
 */
function split(ids: readonly string[], k: number, capacity: number, vectors: Map<string, Vector>): string[][] {
  const whole = centroid(ids, vectors)
  const central = [...ids].sort((a, b) => dot(vectors.get(b)!, whole) - dot(vectors.get(a)!, whole) || byText(a, b))[0]!
  const seeds = [central]
  while (seeds.length < k) {
    const far = ids
      .filter(id => !seeds.includes(id))
      .map(id => ({ id, near: Math.max(...seeds.map(seed => dot(vectors.get(id)!, vectors.get(seed)!))) }))
      .sort((a, b) => a.near - b.near || byText(a.id, b.id))[0]!
    seeds.push(far.id)
  }
  let centroids = seeds.map(seed => vectors.get(seed)!)
  let clusters: string[][] = []
  let previous = ''
  for (let round = 0; round < ROUNDS; round++) {
    const pairs = ids.flatMap(id => centroids.map((c, cluster) => ({ id, cluster, affinity: dot(vectors.get(id)!, c) })))
      .sort((a, b) => b.affinity - a.affinity || byText(a.id, b.id) || a.cluster - b.cluster)
    clusters = centroids.map(() => [])
    const placed = new Set<string>()
    for (const { id, cluster } of pairs) {
      if (placed.has(id) || clusters[cluster]!.length >= capacity)
        continue
      clusters[cluster]!.push(id)
      placed.add(id)
    }
    clusters = clusters.filter(cluster => cluster.length > 0).map(cluster => cluster.sort(byText))
    const key = clusters.map(cluster => cluster.join('\0')).join('\n')
    if (key === previous)
      break
    previous = key
    centroids = clusters.map(cluster => centroid(cluster, vectors))
  }
  return clusters
}

/** The words that set `ids` apart from `others`: share of the group holding a term, less the others' share. */
function labelOf(ids: readonly string[], others: readonly string[], corpus: Corpus, taken: Set<string>): string {
  const share = (group: readonly string[], term: string) => group.filter(id => corpus.terms.get(id)!.has(term)).length / (group.length || 1)
  const candidates = new Map<string, number>()
  for (const id of ids) {
    for (const term of corpus.vectors.get(id)!.keys())
      candidates.set(term, 0)
  }
  const ranked = [...candidates.keys()]
    .map(term => ({ term, score: share(ids, term) - share(others, term) }))
    .sort((a, b) => b.score - a.score || byText(a.term, b.term))
  const chosen: string[] = []
  for (const { term } of ranked) {
    const word = corpus.surface.get(term)!
    if (chosen.includes(word))
      continue
    chosen.push(word)
    const label = chosen.join(', ')
    if (chosen.length >= LABEL_WORDS && !taken.has(label.toLowerCase()))
      break
  }
  const label = chosen.length > 0 ? chosen.join(', ') : 'Documents'
  taken.add(label.toLowerCase())
  return label.charAt(0).toUpperCase() + label.slice(1)
}

/**
 * Documents grouped by content into a tree of topics: at most `pageSize`
 * topics under any topic, at most `pageSize` documents in a leaf, each topic
 * labelled by the words that set it apart from its siblings. Deterministic.
 */
export function contentTopics(documents: readonly KnowledgeDocument[], pageSize: number): ContentTopic[] {
  const corpus = corpusOf(documents)
  const ids = documents.map(document => document.id).sort(byText)
  const taken = new Set<string>()
  const grow = (group: string[]): ContentTopic[] => {
    const k = Math.min(pageSize, Math.ceil(group.length / pageSize))
    const leaves = k * pageSize >= group.length
    const capacity = leaves ? pageSize : Math.ceil((1.25 * group.length) / k)
    const clusters = split(group, k, capacity, corpus.vectors)
    return clusters.map((cluster) => {
      const others = group.filter(id => !cluster.includes(id))
      const label = labelOf(cluster, others, corpus, taken)
      return cluster.length > pageSize ? { label, ids: cluster, children: grow(cluster) } : { label, ids: cluster, children: [] }
    })
  }
  return ids.length <= pageSize ? [] : grow(ids)
}
