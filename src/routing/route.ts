import type { KnowledgeDocument } from '../knowledge/document'
import type { Card } from './card'
import type { RoutedSkill, RouteGroup } from './layout'
import type { LlmCard, LlmRouterOptions } from './llm'
import type { RoutingMemo, RoutingStats } from './memo'
import type { DocumentVectors } from './vector-topics'
import { explicitCategories, offlineCard } from './card'
import { distinctiveTerms } from './covers'
import { layoutRoutedSkill } from './layout'
import { llmCard, llmCardKey, llmSummaries } from './llm'
import { offlineGroups, offlineSummary } from './offline'
import { mapLimit } from '../core/pool'
import { normalizeTopics } from './topics'

export interface RouteOptions {
  /** The skill's name and description (from `skill-kit.json`). */
  name: string
  description: string
  /** Most entries on a page, 2–12. */
  pageSize: number
  /** The bound of `SKILL.md` in tokens. */
  maxEntryTokens: number
  /** Route with a model; without it, the offline router (no network, no key). */
  llm?: LlmRouterOptions
  /** Cards of earlier routings of the same documents, reused (not with `llm.force`). */
  memo?: RoutingMemo
  /** Filled with what this routing did: cards made, documents and pages left to the offline router. */
  stats?: RoutingStats
  /**
   * Each document's vector (unit length, all of one dimension), from the
   * knowledge base built of the same documents: the offline router groups by
   * them the documents that name no topic, where every document of the group
   * has one (else by their words). See `documentVectors`.
   */
  vectors?: DocumentVectors
}

/** The memo key of the offline router's cards. */
const OFFLINE = 'offline'

/**
 * Routes documents into a routed skill: the offline router by default, the
 * LLM router with `llm`. Throws a {@link RoutingError} naming the document or
 * page when the model fails; nothing is returned then. With `llm.cacheOnly`,
 * documents and pages the model has no cached answer for are described by
 * the offline router (and listed in `stats`).
 */
export async function routeDocuments(documents: readonly KnowledgeDocument[], options: RouteOptions): Promise<RoutedSkill> {
  const { name, description, pageSize, maxEntryTokens, llm, memo, stats, vectors } = options
  /** `make`'s card, or the one the memo kept for this very document. */
  const carded = <T>(document: KnowledgeDocument, router: string, make: () => T): T => {
    const counted = () => {
      if (stats && !stats.carded.includes(document.path))
        stats.carded.push(document.path)
      return make()
    }
    return memo && !llm?.force ? memo.card(document, router, counted) : counted()
  }
  const offline = (document: KnowledgeDocument) => carded(document, OFFLINE, () => offlineCard(document))
  if (!llm) {
    return layoutRoutedSkill({
      name,
      description,
      pageSize,
      maxEntryTokens,
      cards: documents.map(offline),
      groups: offlineGroups(documents, pageSize, vectors),
      summarize: async pages => pages.map(offlineSummary),
      covers: distinctiveTerms(documents),
      summariesNameDocuments: true,
    })
  }
  const key = llmCardKey(llm)
  const described: (LlmCard | undefined)[] = await mapLimit(documents, llm.concurrency, document => carded(document, key, () => llmCard(document, llm)))
  // Documents the model has no cached answer for (cacheOnly): the offline router's card and group.
  const left = documents.filter((_, i) => !described[i])
  stats?.uncached.push(...left.map(document => document.path))
  const known = [...new Set(documents.flatMap(explicitCategories))]
  const topics = normalizeTopics(described.flatMap(d => (d?.topic === undefined ? [] : [d.topic])), known)
  const groups = new Map<string, string[]>()
  const add = (title: string, id: string) => groups.set(title, [...(groups.get(title) ?? []), id])
  documents.forEach((document, i) => {
    const answer = described[i]
    if (!answer)
      return
    const own = explicitCategories(document)
    for (const title of own.length > 0 ? own : [topics.get(answer.topic!)!])
      add(title, document.id)
  })
  for (const group of offlineGroups(left, pageSize, vectors))
    group.ids.forEach(id => add(group.title, id))
  const cards: Omit<Card, 'topics'>[] = documents.map((document, i) => described[i]?.card ?? offline(document))
  return layoutRoutedSkill({
    name,
    description,
    pageSize,
    maxEntryTokens,
    cards,
    groups: [...groups].map(([title, ids]): RouteGroup => ({ title, ids })),
    summarize: async (pages) => {
      const summaries = await llmSummaries(pages, llm)
      return summaries.map((summary, i) => {
        if (summary !== undefined)
          return summary
        if (stats)
          stats.uncachedPages++
        return offlineSummary(pages[i]!)
      })
    },
  })
}
