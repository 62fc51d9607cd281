// The search UI's results from a knowledge base: `searchSource(kb)` ranks with
// `kb.search` (lexical as the user types, `auto` for the semantic ranking),
// then reads each shown result's body (`kb.retrieve`, loaded once, on first
// show) for its excerpt and its sub-results: the matching headings, each with
// the anchor the site's renderer gives it. The bodies measured smaller than a
// passage store for a first search (bench/RESULTS.md, "Search UI data").

import type { KnowledgeBase, KnowledgeDocumentInfo, KnowledgeSearchResult } from '../knowledge/knowledge'
import type { AnchorStyle } from './anchors'
import type { BodySection } from './sections'
import type { QueryMarks, TextWord } from './excerpt'
import type { SearchUIExcerpt, SearchUIFacet, SearchUIFilters, SearchUIResult, SearchUIResults, SearchUISource, SearchUISubResult } from './types'
import { documentTitle } from '../knowledge/format/snapshot-layout'
import { headingAnchors, plainHeading } from './anchors'
import { excerptOf, matchScore, plainText, queryMarks, textWords } from './excerpt'
import { bodySections } from './sections'

/** A document's metadata as a generated module gives it: with its page's URL when the knowledge base has a `url` mapping. */
export type SearchSourceDocument = KnowledgeDocumentInfo & { url?: string }

export interface SearchSourceOptions {
  /** Whose heading ids the sub-results' anchors follow (default `github`: github-slugger's, as GitHub and Astro make them). */
  anchors?: AnchorStyle
  /**
   * A document's page URL. Default: the `url` the knowledge base's mapping gave
   * it at build time (the `url` option), else `#doc/<id>` (a hash route).
   */
  url?: (document: SearchSourceDocument) => string
  /** Results shown (default 8). Filters count the first {@link FACET_DEPTH} results by words. */
  limit?: number
  /** Characters of an excerpt, about (default 160). */
  excerptLength?: number
  /**
   * Whether the base can rank semantically. Default: what a knowledge module
   * says of its vectors, as it says it (`vectors`: `complete` yes; `pending`,
   * the dev server still embedding, and `none`, built with `model: false`, no);
   * true for a knowledge base that does not say.
   */
  semantic?: boolean
}

/**
 * Results ranked by words for one search, which the filters count. A
 * semantic ranking asks for this many only when a filter is on: each result
 * more costs a sharded snapshot the vector rows it reads (30 instead of 8
 * fetched 41 row shards for the guides' first semantic result instead of 12).
 * The counts stay those of the lexical ranking, so they do not move under the
 * cursor when the semantic results come.
 */
const FACET_DEPTH = 30
/** Sub-results of one result, at most (the contract's three). */
const MAX_SUB_RESULTS = 3

const defaultUrl = (document: SearchSourceDocument) => document.url ?? `#doc/${encodeURIComponent(document.id)}`

/**
 * The page URL with a heading's anchor: `/guide/dialogs#light-dismiss`; a
 * URL that is a hash route already (`#doc/<id>`) gets it after a `/`.
 */
export function anchoredUrl(url: string, anchor: string): string {
  const fragment = encodeURIComponent(anchor)
  return url.includes('#') ? `${url}/${fragment}` : `${url}#${fragment}`
}

function abortError(): Error {
  return new DOMException('The search was aborted.', 'AbortError')
}

/** The facet values of `results` (each result's `values`), most frequent first, then by name. */
function facets(results: readonly KnowledgeSearchResult[], values: (result: KnowledgeSearchResult) => readonly string[]): SearchUIFacet[] {
  const counts = new Map<string, number>()
  for (const result of results) {
    for (const value of new Set(values(result)))
      counts.set(value, (counts.get(value) ?? 0) + 1)
  }
  return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
}

const categoriesOf = (result: KnowledgeSearchResult) => result.categories.length > 0 ? result.categories : result.category ? [result.category] : []

function passes(result: KnowledgeSearchResult, filters: SearchUIFilters): boolean {
  const categories = categoriesOf(result)
  return (filters.categories.length === 0 || filters.categories.some(c => categories.includes(c)))
    && filters.tags.every(t => result.tags.includes(t))
}

/** A body's section as results read it: its anchor, plain text and words, worked out once per document. */
interface ReadSection extends BodySection { anchor: string, title: string, titleWords: TextWord[], plain: string, words: TextWord[] }

function readSections(body: string, style: AnchorStyle): ReadSection[] {
  const sections = bodySections(body)
  const headed = sections.filter(s => s.heading !== undefined)
  const anchors = headingAnchors(headed.map(s => s.heading!), style)
  let headings = 0
  return sections.map((section) => {
    const title = section.heading === undefined ? '' : plainHeading(section.heading)
    const plain = plainText(section.text)
    return { ...section, title, titleWords: textWords(title), anchor: section.heading === undefined ? '' : anchors[headings++]!, plain, words: textWords(plain) }
  })
}

/** Documents whose sections a source keeps read: the results of a few searches, as the user types. */
const READ_DOCUMENTS = 64

/** Excerpt and sub-results of one result, from its document's sections. */
function resultDetails(result: KnowledgeSearchResult, sections: readonly ReadSection[], url: string, query: QueryMarks, excerptLength: number): { excerpt?: SearchUIExcerpt, subResults: SearchUISubResult[] } {
  // The section the ranking found best (its best chunk's heading), whose words may not be the query's (a semantic match).
  const bestHeading = result.heading.length > 0 ? plainHeading(result.heading[result.heading.length - 1]!) : undefined
  const scored = sections.map(section => ({ section, score: matchScore([section.titleWords, section.words], query) + (section.title !== '' && section.title === bestHeading ? 1 : 0) }))
  const ranked = scored.filter(s => s.score > 0).sort((a, b) => b.score - a.score)
  const best = ranked[0]?.section ?? sections.find(s => s.title === bestHeading) ?? sections.find(s => s.plain !== '')
  // The page's own heading (a first heading of level 1) is the result itself.
  const pageHeading = sections.find(s => s.heading !== undefined)
  // The ranking's best section leads, matching words or not (a semantic match), then the sections by their words.
  const rankedBest = bestHeading === undefined ? undefined : sections.find(s => s.title === bestHeading)
  const subResults = [...(rankedBest ? [rankedBest] : []), ...ranked.map(r => r.section).filter(section => section !== rankedBest)]
    .filter(section => section.heading !== undefined && !(section === pageHeading && section.level === 1))
    .slice(0, MAX_SUB_RESULTS)
    .map(section => ({
      title: section.title,
      url: anchoredUrl(url, section.anchor),
      ...(section.plain !== '' ? { excerpt: excerptOf(section.plain, section.words, query, excerptLength) } : {}),
    }))
  return { ...(best && best.plain !== '' ? { excerpt: excerptOf(best.plain, best.words, query, excerptLength) } : {}), subResults }
}

/**
 * A {@link SearchUISource} over a knowledge base (a `?knowledge` import):
 * each result titled (frontmatter `title`, first heading, ID), linked through
 * the base's `url` mapping (or `options.url`), with the best passage as its
 * excerpt and up to three matching headings as sub-results, the query's words
 * and their stems marked. Titles, headings and excerpts are text for
 * `textContent`; URLs come from the mapping and anchors are URL-encoded, never
 * taken from a document as written.
 */
export function searchSource(kb: KnowledgeBase, options: SearchSourceOptions = {}): SearchUISource {
  const { anchors = 'github', url = defaultUrl, limit = 8, excerptLength = 160 } = options
  /** Read documents by ID, with the body they were read from (the dev server may swap a new one in). */
  const read = new Map<string, { body: string, sections: ReadSection[] }>()
  const sectionsOf = (id: string, body: string): ReadSection[] => {
    let known = read.get(id)
    if (known?.body !== body) {
      known = { body, sections: readSections(body, anchors) }
      if (read.size >= READ_DOCUMENTS)
        read.delete(read.keys().next().value!)
    }
    // Most recently used last: the oldest is dropped first.
    read.delete(id)
    read.set(id, known)
    return known.sections
  }
  return {
    // A getter: a dev-server update turns a module's `pending` vectors `complete`.
    get semantic() {
      const vectors = (kb as { vectors?: unknown }).vectors
      return options.semantic ?? (vectors === undefined || vectors === 'complete')
    },
    async search(query, { ranking, filters, signal }) {
      const filtered = filters.categories.length > 0 || filters.tags.length > 0
      let shownRanking = ranking
      const [byWords, bySemantic] = await Promise.all([
        kb.search(query, { mode: 'lexical', topK: Math.max(limit, FACET_DEPTH) }),
        ranking === 'semantic'
          ? kb.search(query, { mode: 'auto', topK: filtered ? Math.max(limit, FACET_DEPTH) : limit, onLexicalFallback: () => { shownRanking = 'lexical' } })
          : undefined,
      ])
      if (signal?.aborted)
        throw abortError()
      const ranked = bySemantic ?? byWords
      const shown = ranked.filter(r => passes(r, filters)).slice(0, limit)
      const marks = queryMarks(query)
      // The module's metadata (the dev server swaps it in place): it has the `url` the mapping gave each page.
      const documents = new Map((kb.documents as readonly SearchSourceDocument[]).map(d => [d.id, d]))
      const bodies = await Promise.all(shown.map(result => kb.retrieve(result.id)))
      if (signal?.aborted)
        throw abortError()
      const results = shown.map((result, i): SearchUIResult => {
        const document = documents.get(result.id) ?? result
        const page = url(document)
        return {
          id: result.id,
          title: documentTitle(document),
          url: page,
          category: result.category,
          tags: [...result.tags],
          ...resultDetails(result, sectionsOf(result.id, bodies[i]!), page, marks, excerptLength),
        }
      })
      return { ranking: shownRanking, results, categories: facets(byWords, categoriesOf), tags: facets(byWords, r => r.tags) } satisfies SearchUIResults
    },
  }
}
