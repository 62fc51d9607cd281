// What sets each document apart from the rest of its corpus, as a few words a
// card shows ("Covers: …"): a question's words sit in a document's body and
// headings, rarely in its title or first paragraph, so a reader (an agent
// matching words, or a model) needs them on the card to recognise it.
// Deterministic: the same documents give the same words.

import type { KnowledgeDocument } from '../knowledge/document'
import { words } from '../runtime/knowledge/lexical/tokens'
import { fieldsOf, stemmed } from './content-topics'

/** Words of web addresses, which every linking document holds: no topic. */
const ADDRESS_WORDS = new Set(['http', 'https', 'www', 'com', 'org', 'html', 'htm'])

/** Words a card's "Covers" line holds: enough to name what the body says, few enough to keep pages short. */
export const COVER_WORDS = 12

/** How much a word that names the document (title, tags, headings) weighs against one of its prose, counted once. */
const NAME_WEIGHT = 2

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

interface Terms {
  /** Each term's weight in the document (prose sublinear, naming terms raised). */
  weights: Map<string, number>
  /** Each term's most frequent spelling in the document. */
  surface: Map<string, string>
  /** The terms of its title, which its card shows already. */
  titled: Set<string>
}

/**
 * Each document's terms, kept while the document object lives: the dev
 * server's routing memo keeps unchanged documents' objects, so an edit
 * weighs the words of the documents it touched only.
 */
const termsCache = new WeakMap<KnowledgeDocument, Terms>()

function termsOf(document: KnowledgeDocument): Terms {
  const known = termsCache.get(document)
  if (known)
    return known
  const fields = fieldsOf(document)
  const tf = new Map<string, number>()
  const spellings = new Map<string, Map<string, number>>()
  for (const [word, n] of fields.prose) {
    if (ADDRESS_WORDS.has(word))
      continue
    const term = stemmed(word)
    tf.set(term, (tf.get(term) ?? 0) + n)
    const spelt = spellings.get(term) ?? new Map<string, number>()
    spelt.set(word, (spelt.get(word) ?? 0) + n)
    spellings.set(term, spelt)
  }
  const weights = new Map([...tf].map(([term, n]): [string, number] => [term, 1 + Math.log(n)]))
  for (const term of new Set(fields.names.map(stemmed))) {
    if (weights.has(term))
      weights.set(term, weights.get(term)! + NAME_WEIGHT)
  }
  const surface = new Map([...spellings].map(([term, spelt]) => [term, [...spelt].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0]![0]]))
  const terms = { weights, surface, titled: new Set(words(document.title).map(stemmed)) }
  termsCache.set(document, terms)
  return terms
}

/**
 * Each document's most distinctive words against the others (TF-IDF over
 * its prose and what names it, code blocks and web addresses' words out),
 * strongest first, those of its title left out (the card shows it already),
 * at most `count` each.
 */
export function distinctiveTerms(documents: readonly KnowledgeDocument[], count = COVER_WORDS): Map<string, string[]> {
  const all = documents.map(termsOf)
  const df = new Map<string, number>()
  for (const { weights } of all) {
    for (const term of weights.keys())
      df.set(term, (df.get(term) ?? 0) + 1)
  }
  const n = documents.length
  return new Map(documents.map((document, i) => {
    const { weights, surface, titled } = all[i]!
    const ranked = [...weights]
      .filter(([term]) => !titled.has(term) && (n < 2 || df.get(term)! < n))
      .map(([term, w]): [string, number] => [term, w * Math.log((n + 1) / df.get(term)!)])
      .sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))
      .slice(0, count)
    return [document.id, ranked.map(([term]) => surface.get(term)!)]
  }))
}

/** The first word of each list, then the second of each, and so on: at most `max` distinct words, strongest of every list first. */
export function interleaved(lists: readonly (readonly string[])[], max: number): string[] {
  const out = new Set<string>()
  for (let i = 0; lists.some(list => i < list.length) && out.size < max; i++)
    lists.forEach(list => i < list.length && out.size < max && out.add(list[i]!))
  return [...out]
}
