// Topics from what documents say, for documents that name none: the base's
// vectors when it has them (vector-topics.ts), else their lexical terms
// (title and headings weigh more than the body) as TF-IDF vectors, split top
// down into at most `pageSize` clusters until every cluster fits a page, each labelled with the words that set it apart from its siblings.
// No model, no randomness: the same documents give the same topics.

import type { KnowledgeDocument } from '../knowledge/document'
import type { TopicSpace } from './topic-split'
import type { DocumentVectors } from './vector-topics'
import { scanHeadings } from '../core/markdown'
import { STOPWORDS, stem, words } from '../runtime/knowledge/lexical/tokens'
import { byText, splitTopics } from './topic-split'
import { coversAll, denseSpace, withWords } from './vector-topics'

/** A topic: its label, and either documents (a leaf) or sub-topics. */
export interface ContentTopic {
  label: string
  ids: string[]
  children: ContentTopic[]
}

type Vector = Map<string, number>

/** Terms kept per document: enough to tell documents apart, few enough to stay fast. */
const TERMS_PER_DOCUMENT = 48
/** Words in a topic's label. */
const LABEL_WORDS = 3

/** A line of metadata in a body (`Tags: a, b`, `Category: x`): what a document says of itself without frontmatter. */
const LABEL_LINE = /^(?:tags?|keywords?|categor(?:y|ies)|topics?|aliases)\s*:\s*(.+)$/gim

/** A document's topical words (see {@link topical}): those that name it, and how often each word of its prose occurs. */
export interface Fields {
  names: string[]
  prose: Map<string, number>
}

/**
 * Each document's words, kept while the document object lives: the dev
 * server's routing memo keeps unchanged documents' objects, so an edit reads
 * the words of the documents it touched only.
 */
const fieldsCache = new WeakMap<KnowledgeDocument, Fields>()

/**
 * A document's words by where they stand: what names it (title, tags, label
 * lines, headings) and its prose (code blocks out: identifiers are not topics).
 */
export function fieldsOf(document: KnowledgeDocument): Fields {
  const known = fieldsCache.get(document)
  if (known)
    return known
  const body = document.body.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, ' ')
  const headings = scanHeadings(body.split(/\r\n|\r|\n/)).map(heading => heading.text)
  const labels = [...body.matchAll(LABEL_LINE)].map(match => match[1]!)
  const prose = new Map<string, number>()
  for (const word of words(body))
    prose.set(word, (prose.get(word) ?? 0) + 1)
  // Only words that can name a topic, each judged once here rather than by every reader.
  for (const word of prose.keys()) {
    if (!topical(word))
      prose.delete(word)
  }
  const fields = { names: [document.title, ...document.tags, ...labels, ...headings].flatMap(text => words(text)).filter(topical), prose }
  fieldsCache.set(document, fields)
  return fields
}

/** Stems already made: a corpus repeats its words thousands of times, and stemming is most of reading them. */
const stems = new Map<string, string>()
/** Past this many words, the memo starts again (a long dev server sees edits' new words). */
const MAX_STEMS = 200_000

/** `stem(word)`, each distinct word stemmed once across routings. */
export function stemmed(word: string): string {
  let term = stems.get(word)
  if (term === undefined) {
    if (stems.size >= MAX_STEMS)
      stems.clear()
    stems.set(word, term = stem(word))
  }
  return term
}

/** A naming term in 1 / TEMPLATE_SHARE of the documents or more belongs to their template. */
const TEMPLATE_SHARE = 3

/** How much a term that names a document (title, tags, headings) weighs against one of its prose, counted once. */
const NAME_WEIGHT = 3

/** Whether a word can name a topic: letters, not a stopword, not a number or a one-letter token. */
export function topical(word: string): boolean {
  return word.length > 2 && !STOPWORDS.has(word) && /\p{L}/u.test(word) && !/^\d/.test(word)
}

interface Corpus {
  vectors: Map<string, Vector>
  /** Each term's most frequent surface word among names (how a label spells it). */
  surface: Map<string, string>
  /** The terms that name each document (title, tags, headings): what labels are made of. */
  names: Map<string, Set<string>>
}

function corpusOf(documents: readonly KnowledgeDocument[]): Corpus {
  const counts = new Map<string, Map<string, number>>()
  const names = new Map<string, Set<string>>()
  const spellings = new Map<string, Map<string, number>>()
  const df = new Map<string, number>()
  for (const document of documents) {
    const fields = fieldsOf(document)
    const named = new Set<string>()
    for (const word of fields.names) {
      const term = stemmed(word)
      named.add(term)
      const spelt = spellings.get(term) ?? new Map<string, number>()
      spelt.set(word, (spelt.get(word) ?? 0) + 1)
      spellings.set(term, spelt)
    }
    const tf = new Map<string, number>()
    for (const [word, count] of fields.prose)
      tf.set(stemmed(word), (tf.get(stemmed(word)) ?? 0) + count)
    // Prose counts sublinearly; a naming term weighs as much as a term said often.
    const weights = new Map([...tf].map(([term, count]): [string, number] => [term, 1 + Math.log(count)]))
    for (const term of named)
      weights.set(term, (weights.get(term) ?? 0) + NAME_WEIGHT)
    counts.set(document.id, weights)
    names.set(document.id, named)
    for (const term of weights.keys())
      df.set(term, (df.get(term) ?? 0) + 1)
  }
  const n = documents.length
  // A naming term in a third of the documents or more is a template's ("Browser support", "Examples"): it names no topic.
  const namedIn = new Map<string, number>()
  for (const named of names.values())
    named.forEach(term => namedIn.set(term, (namedIn.get(term) ?? 0) + 1))
  for (const [id, named] of names) {
    const template = [...named].filter(term => namedIn.get(term)! * TEMPLATE_SHARE >= n && n >= TEMPLATE_SHARE * 2)
    template.forEach(term => named.delete(term))
    const weights = counts.get(id)!
    for (const term of template) {
      const left = weights.get(term)! - NAME_WEIGHT
      if (left > 0)
        weights.set(term, left)
      else weights.delete(term)
    }
  }
  const vectors = new Map<string, Vector>()
  for (const [id, tf] of counts) {
    // Terms in every document say nothing about any one; terms in one document group nothing.
    const weighted = [...tf]
      .filter(([term]) => df.get(term)! > 1 && df.get(term)! < n)
      .map(([term, weight]): [string, number] => [term, weight * Math.log(n / df.get(term)!)])
      .sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))
      .slice(0, TERMS_PER_DOCUMENT)
    const norm = Math.hypot(...weighted.map(([, w]) => w)) || 1
    vectors.set(id, new Map(weighted.map(([term, w]) => [term, w / norm])))
  }
  const surface = new Map([...spellings].map(([term, spelt]) => [term, [...spelt].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0]![0]]))
  return { vectors, surface, names }
}

function dot(a: Vector, b: Vector): number {
  let sum = 0
  const [small, large] = a.size <= b.size ? [a, b] : [b, a]
  for (const [term, w] of small)
    sum += w * (large.get(term) ?? 0)
  return sum
}

/** The lexical terms' space: sparse TF-IDF vectors. */
function sparseSpace(vectors: Map<string, Vector>): TopicSpace<Vector> {
  return {
    vector: id => vectors.get(id)!,
    dot,
    centroid: (ids) => {
      const sum = new Map<string, number>()
      for (const id of ids) {
        for (const [term, w] of vectors.get(id)!)
          sum.set(term, (sum.get(term) ?? 0) + w)
      }
      const norm = Math.hypot(...sum.values()) || 1
      return new Map([...sum].map(([term, w]) => [term, w / norm]))
    },
  }
}

/** The words that set `ids` apart from `others`: share of the group holding a term, less the others' share. */
function labelOf(ids: readonly string[], others: readonly string[], corpus: Corpus, taken: Set<string>): string {
  const share = (group: readonly string[], term: string) => group.filter(id => corpus.names.get(id)!.has(term)).length / (group.length || 1)
  const candidates = new Set(ids.flatMap(id => [...corpus.names.get(id)!]))
  const ranked = [...candidates]
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
 * labelled by the words that set it apart from its siblings. Grouped by
 * `vectors` (the base's embeddings, their terms weighing a quarter) when
 * every document has one, else by their terms; labelled by words either way.
 * Deterministic.
 */
export function contentTopics(documents: readonly KnowledgeDocument[], pageSize: number, vectors?: DocumentVectors): ContentTopic[] {
  const corpus = corpusOf(documents)
  const ids = documents.map(document => document.id).sort(byText)
  const split = coversAll(vectors, ids)
    ? (group: string[], k: number, capacity: number) => splitTopics(group, k, capacity, withWords(denseSpace(vectors), sparseSpace(corpus.vectors)))
    : (group: string[], k: number, capacity: number) => splitTopics(group, k, capacity, sparseSpace(corpus.vectors))
  const taken = new Set<string>()
  const grow = (group: string[]): ContentTopic[] => {
    const k = Math.min(pageSize, Math.ceil(group.length / pageSize))
    const leaves = k * pageSize >= group.length
    const capacity = leaves ? pageSize : Math.ceil((1.25 * group.length) / k)
    const clusters = split(group, k, capacity)
    return clusters.map((cluster) => {
      const others = group.filter(id => !cluster.includes(id))
      const label = labelOf(cluster, others, corpus, taken)
      return cluster.length > pageSize ? { label, ids: cluster, children: grow(cluster) } : { label, ids: cluster, children: [] }
    })
  }
  return ids.length <= pageSize ? [] : grow(ids)
}
