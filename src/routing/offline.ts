import type { KnowledgeDocument } from '../knowledge/document'
import type { ContentTopic } from './content-topics'
import type { RouteGroup } from './layout'
import { explicitCategories } from './card'
import { contentTopics } from './content-topics'

/**
 * The offline router's groups. A document's own categories win (verbatim,
 * one group each); else its folder. Documents with neither are grouped by
 * what they say (see {@link contentTopics}); a handful too few to split share
 * a tag, else "Other documents". A category or folder of more than
 * `pageSize` documents is split by content too, under its own name.
 */
export function offlineGroups(documents: readonly KnowledgeDocument[], pageSize: number): RouteGroup[] {
  const named = new Map<string, KnowledgeDocument[]>()
  const add = (title: string, document: KnowledgeDocument) => named.set(title, [...(named.get(title) ?? []), document])
  const loose: KnowledgeDocument[] = []
  for (const document of documents) {
    const categories = explicitCategories(document)
    const folder = document.path.includes('/') ? document.path.slice(0, document.path.lastIndexOf('/')) : undefined
    if (categories.length > 0)
      categories.forEach(category => add(category, document))
    else if (folder)
      add(folder, document)
    else loose.push(document)
  }
  const groups: RouteGroup[] = []
  for (const [title, members] of named)
    groups.push(...split(members, pageSize, [title]) ?? [{ title, ids: members.map(d => d.id) }])
  groups.push(...split(loose, pageSize, []) ?? byTag(loose))
  return groups
}

/** `documents` as content topics under `parents`; `undefined` when they fit one page. */
function split(documents: readonly KnowledgeDocument[], pageSize: number, parents: string[]): RouteGroup[] | undefined {
  if (documents.length <= pageSize)
    return undefined
  const flatten = (topic: ContentTopic, chain: string[]): RouteGroup[] => topic.children.length === 0
    ? [{ title: topic.label, ids: topic.ids, parents: chain }]
    : topic.children.flatMap(child => flatten(child, [...chain, topic.label]))
  return contentTopics(documents, pageSize).flatMap(topic => flatten(topic, parents))
}

/** A few documents: the tag each shares with the most others, else "Other documents". */
function byTag(loose: readonly KnowledgeDocument[]): RouteGroup[] {
  const tagCounts = new Map<string, number>()
  for (const document of loose) {
    for (const tag of new Set(document.tags))
      tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1)
  }
  const groups = new Map<string, string[]>()
  for (const document of loose) {
    const shared = [...new Set(document.tags)]
      .filter(tag => tagCounts.get(tag)! > 1)
      .sort((a, b) => tagCounts.get(b)! - tagCounts.get(a)! || (a < b ? -1 : a > b ? 1 : 0))
    const title = shared[0] ?? OTHER
    groups.set(title, [...(groups.get(title) ?? []), document.id])
  }
  return [...groups].map(([title, ids]) => ({ title, ids }))
}

/** The group of documents with no category, folder or shared tag. */
export const OTHER = 'Other documents'

/**
 * The offline router's page summary: the titles it lists, as many as fit a
 * summary, so that a reader (or an agent matching words) sees what is inside.
 */
export function offlineSummary(page: { entries: { title: string }[] }): string {
  return `${page.entries.map(entry => entry.title).join('; ')}.`
}
