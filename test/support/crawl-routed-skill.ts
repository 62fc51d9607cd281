import type { RoutedSkill } from '../../src/routing/layout'
import { posix } from 'node:path'

/** What a crawl from `SKILL.md` reached. */
export interface Crawl {
  /** Each reference reached (`references/<path>` without the prefix) and the fewest links from `SKILL.md` to it. */
  documents: Map<string, number>
  /** Each page reached and its link distance from `SKILL.md` (0). */
  pages: Map<string, number>
  /** Links to files the skill does not have. */
  broken: { from: string, link: string }[]
}

const LINK = /\]\(([^)\s]+)\)/g

/**
 * Follows the Markdown links of a routed skill from `SKILL.md`, breadth
 * first, as an agent reading files would. `skip` leaves pages out (e.g. the
 * catalog, to prove the topic pages alone reach every document).
 */
export function crawlRoutedSkill(routes: RoutedSkill, { skip }: { skip?: (path: string) => boolean } = {}): Crawl {
  const files = new Map<string, string>([['SKILL.md', routes.skill], ...Object.entries(routes.pages), ...Object.entries(routes.catalog)])
  const crawl: Crawl = { documents: new Map(), pages: new Map([['SKILL.md', 0]]), broken: [] }
  const queue = ['SKILL.md']
  while (queue.length > 0) {
    const from = queue.shift()!
    const depth = crawl.pages.get(from)!
    for (const match of files.get(from)!.matchAll(LINK)) {
      const link = match[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(link))
        continue
      const target = posix.normalize(posix.join(posix.dirname(from), decodeURIComponent(link)))
      if (target.startsWith('references/')) {
        const path = target.slice('references/'.length)
        if (!crawl.documents.has(path))
          crawl.documents.set(path, depth + 1)
      }
      else if (!files.has(target)) {
        crawl.broken.push({ from, link })
      }
      else if (!crawl.pages.has(target) && !skip?.(target)) {
        crawl.pages.set(target, depth + 1)
        queue.push(target)
      }
    }
  }
  return crawl
}

/**
 * The documents (paths) a crawl from `SKILL.md` does not reach within
 * `maxLinks` links; empty when every document is reachable.
 */
export function unreachableDocuments(routes: RoutedSkill, paths: readonly string[], maxLinks: number, options: { skip?: (path: string) => boolean } = {}): string[] {
  const { documents } = crawlRoutedSkill(routes, options)
  return paths.filter(path => (documents.get(path) ?? Infinity) > maxLinks)
}
