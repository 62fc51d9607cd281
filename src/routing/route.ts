import type { KnowledgeDocument } from '../knowledge/document'
import type { RoutedSkill, RouteGroup } from './layout'
import type { LlmRouterOptions } from './llm'
import { explicitCategories, offlineCard } from './card'
import { layoutRoutedSkill } from './layout'
import { llmCards, llmSummaries } from './llm'
import { offlineGroups, offlineSummary } from './offline'
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
}

/**
 * Routes documents into a routed skill: the offline router by default, the
 * LLM router with `llm`. Throws a {@link RoutingError} naming the document or
 * page when the model fails; nothing is returned then.
 */
export async function routeDocuments(documents: readonly KnowledgeDocument[], options: RouteOptions): Promise<RoutedSkill> {
  const { name, description, pageSize, maxEntryTokens, llm } = options
  if (!llm) {
    return layoutRoutedSkill({
      name,
      description,
      pageSize,
      maxEntryTokens,
      cards: documents.map(offlineCard),
      groups: offlineGroups(documents),
      summarize: async pages => pages.map(offlineSummary),
    })
  }
  const described = await llmCards(documents, llm)
  const known = [...new Set(documents.flatMap(explicitCategories))]
  const topics = normalizeTopics(described.flatMap(d => (d.topic === undefined ? [] : [d.topic])), known)
  const groups = new Map<string, string[]>()
  documents.forEach((document, i) => {
    const own = explicitCategories(document)
    for (const title of own.length > 0 ? own : [topics.get(described[i]!.topic!)!])
      groups.set(title, [...(groups.get(title) ?? []), document.id])
  })
  return layoutRoutedSkill({
    name,
    description,
    pageSize,
    maxEntryTokens,
    cards: described.map(d => d.card),
    groups: [...groups].map(([title, ids]): RouteGroup => ({ title, ids })),
    summarize: pages => llmSummaries(pages, llm),
  })
}
