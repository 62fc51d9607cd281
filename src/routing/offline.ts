import type { KnowledgeDocument } from '../knowledge/document'
import type { RouteGroup } from './layout'
import { explicitCategories } from './card'

/**
 * The offline router's groups: a document's own categories (verbatim, one
 * group each); else its folder; else the tag it shares with the most other
 * ungrouped documents; else "Other documents".
 */
export function offlineGroups(documents: readonly KnowledgeDocument[]): RouteGroup[] {
  const groups = new Map<string, string[]>()
  const add = (title: string, id: string) => {
    const ids = groups.get(title)
    if (ids)
      ids.push(id)
    else groups.set(title, [id])
  }
  const loose: KnowledgeDocument[] = []
  for (const document of documents) {
    const categories = explicitCategories(document)
    const folder = document.path.includes('/') ? document.path.slice(0, document.path.lastIndexOf('/')) : undefined
    if (categories.length > 0)
      categories.forEach(category => add(category, document.id))
    else if (folder)
      add(folder, document.id)
    else loose.push(document)
  }
  const tagCounts = new Map<string, number>()
  for (const document of loose) {
    for (const tag of new Set(document.tags))
      tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1)
  }
  for (const document of loose) {
    const shared = [...new Set(document.tags)]
      .filter(tag => tagCounts.get(tag)! > 1)
      .sort((a, b) => tagCounts.get(b)! - tagCounts.get(a)! || (a < b ? -1 : a > b ? 1 : 0))
    add(shared[0] ?? OTHER, document.id)
  }
  return [...groups].map(([title, ids]) => ({ title, ids }))
}

/** The group of documents with no category, folder or shared tag. */
export const OTHER = 'Other documents'

/** The offline router's page summary: what the page lists, by title. */
export function offlineSummary(page: { entries: { title: string }[] }): string {
  const titles = page.entries.map(entry => entry.title)
  const shown = titles.slice(0, 4).join('; ')
  return titles.length > 4 ? `${shown}; and ${titles.length - 4} more.` : `${shown}.`
}
