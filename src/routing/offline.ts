import type { KnowledgeDocument } from '../knowledge/document'
import type { ContentTopic } from './content-topics'
import type { PageDraft, RouteGroup } from './layout'
import type { DocumentVectors } from './vector-topics'
import { explicitCategories } from './card'
import { contentTopics } from './content-topics'

/**
 * The offline router's groups. What documents say of themselves wins: their
 * own categories (verbatim, one group each), else their folder, else the tag
 * they share with the most other such documents. The rest are grouped by what
 * they say (see {@link contentTopics}: by `vectors` when each document of the
 * group has one), or are "Other documents" when they fit one page. A named
 * group of more than `pageSize` documents is split by content too, under its
 * own name.
 */
export function offlineGroups(documents: readonly KnowledgeDocument[], pageSize: number, vectors?: DocumentVectors): RouteGroup[] {
  const named = new Map<string, KnowledgeDocument[]>()
  const add = (title: string, document: KnowledgeDocument) => named.set(title, [...(named.get(title) ?? []), document])
  const untitled: KnowledgeDocument[] = []
  for (const document of documents) {
    const categories = explicitCategories(document)
    const folder = document.path.includes('/') ? document.path.slice(0, document.path.lastIndexOf('/')) : undefined
    if (categories.length > 0)
      categories.forEach(category => add(category, document))
    else if (folder)
      add(folder, document)
    else untitled.push(document)
  }
  const loose: KnowledgeDocument[] = []
  for (const [document, tag] of sharedTags(untitled)) {
    if (tag === undefined)
      loose.push(document)
    else add(tag, document)
  }
  const groups: RouteGroup[] = []
  for (const [title, members] of named)
    groups.push(...split(members, pageSize, [title], vectors) ?? [{ title, ids: members.map(d => d.id) }])
  if (loose.length > 0)
    groups.push(...split(loose, pageSize, [], vectors) ?? [{ title: OTHER, ids: loose.map(d => d.id) }])
  return groups
}

/**
 * `documents` as content topics under `parents`; `undefined` when they fit one
 * page. A topic of a named group is titled with the group's name too
 * (`forms: Payment, address, sign`): its own words do not say where it
 * belongs once its pages are listed away from the group's.
 */
function split(documents: readonly KnowledgeDocument[], pageSize: number, parents: string[], vectors?: DocumentVectors): RouteGroup[] | undefined {
  if (documents.length <= pageSize)
    return undefined
  const titled = (label: string) => (parents.length > 0 ? `${parents[0]}: ${label}` : label)
  const flatten = (topic: ContentTopic, chain: string[]): RouteGroup[] => topic.children.length === 0
    ? [{ title: titled(topic.label), ids: topic.ids, parents: chain }]
    : topic.children.flatMap(child => flatten(child, [...chain, titled(topic.label)]))
  return contentTopics(documents, pageSize, vectors).flatMap(topic => flatten(topic, parents))
}

/** Each document with the tag it shares with the most others (then the first alphabetically), if any. */
function sharedTags(documents: readonly KnowledgeDocument[]): [KnowledgeDocument, string | undefined][] {
  const tagCounts = new Map<string, number>()
  for (const document of documents) {
    for (const tag of new Set(document.tags))
      tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1)
  }
  return documents.map((document) => {
    const shared = [...new Set(document.tags)]
      .filter(tag => tagCounts.get(tag)! > 1)
      .sort((a, b) => tagCounts.get(b)! - tagCounts.get(a)! || (a < b ? -1 : a > b ? 1 : 0))
    return [document, shared[0]]
  })
}

/** The group of documents with no category, folder or shared tag. */
export const OTHER = 'Other documents'

/**
 * The offline router's page summary: the titles of the documents it lists;
 * for a page of pages, those its pages' summaries name, one from each page in
 * turn, so that a reader (or an agent matching words) sees at every level
 * which documents are below. The layout cuts it to a summary's bound.
 */
export function offlineSummary(page: Pick<PageDraft, 'kind' | 'entries'>): string {
  if (page.kind === 'documents')
    return `${page.entries.map(entry => entry.title).join('; ')}.`
  const below = page.entries.map(entry => entry.summary.replace(/(?:\.|…)$/, '').split('; '))
  const turns: string[] = []
  for (let i = 0; below.some(titles => i < titles.length); i++)
    below.forEach(titles => i < titles.length && turns.push(titles[i]!))
  return `${turns.join('; ')}.`
}
