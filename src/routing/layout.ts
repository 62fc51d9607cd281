// The routed skill as Markdown: index pages of at most `pageSize` entries, parent
// pages until the entry point fits its token bound, a complete paginated catalog
// and llms.txt. Both routers lay out through here; they differ only in the cards,
// the groups and who writes page summaries. Whatever a model or a document
// says (titles, summaries, tasks, topics) is made plain text and bounded on its
// way in, and escaped wherever it is written: the pages' links are the program's.

import type { RoutesModule } from '../runtime/routes'
import type { Card } from './card'
import type { Page } from './render-pages'
import { chunks, compareKeys, packRuns, runsOf } from './sequences'
import { slugger } from './slug'
import { estimateTokens } from '../runtime/tokens'
import { CARD_LIMITS } from './card'
import { renderEntry, renderLlmsTxt } from './entry-point'
import { bounded, renderCatalog, renderPage, sized } from './render-pages'

/** A routed skill: Markdown strings keyed by their path relative to the skill folder, and each document's card (what routes modules export). */
export type RoutedSkill = RoutesModule

/** Documents the routers put together under one title. */
export interface RouteGroup {
  title: string
  /** Document IDs. */
  ids: string[]
  /** The titles of the topics this group sits in, outermost first (content topics): parent pages when the entry point needs them. */
  parents?: string[]
}

/** A page before its summary: what a router's summarizer sees. */
export interface PageDraft {
  title: string
  /** `documents`: a page of references; `pages`: a parent of index pages. */
  kind: 'documents' | 'pages'
  entries: { title: string, summary: string }[]
}

export interface LayoutInput {
  /** The skill's name (made a valid Agent Skills name) and description. */
  name: string
  description: string
  /** Every document's card (topics left to the layout). */
  cards: Omit<Card, 'topics'>[]
  groups: RouteGroup[]
  pageSize: number
  maxEntryTokens: number
  /** Writes a page's summary (pages of one level are asked in order, leaves first). */
  summarize: (pages: PageDraft[]) => Promise<string[]>
  /** Each document's distinctive words, shown under its card on topic pages ("Covers: …"). */
  covers?: ReadonlyMap<string, readonly string[]>
  /** Page summaries only name the documents below (the offline router's): the entry point leaves them out where it lists those documents. */
  summariesNameDocuments?: boolean
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * A card as pages and modules hold it, whatever the cache said: every field
 * the model fills plain and bounded (a title that is nothing once cleaned is the path).
 */
function boundedCard(card: Omit<Card, 'topics'>): Omit<Card, 'topics'> {
  return {
    ...card,
    title: bounded(card.title, CARD_LIMITS.title) || card.path,
    summary: bounded(card.summary, CARD_LIMITS.summary),
    tasks: card.tasks.slice(0, CARD_LIMITS.maxTasks).map(task => bounded(task, CARD_LIMITS.task)).filter(Boolean),
  }
}

/** A group's title, plain and bounded as a card's title (a category or a model's topic). */
function groupTitle(title: string): string {
  return bounded(title, CARD_LIMITS.title) || 'Other documents'
}

/** A parent page's title: its children's titles when short enough, else the first and last. */
function spanTitle(titles: string[]): string {
  const all = titles.join(', ')
  return all.length <= 100 ? all : `${titles[0]} to ${titles.at(-1)}`
}

/** Lays out a routed skill. Deterministic: same input, same bytes. */
export async function layoutRoutedSkill(input: LayoutInput): Promise<RoutedSkill> {
  const { pageSize } = input
  const all = input.cards.map(boundedCard)
  const cards = new Map(all.map(card => [card.id, card]))
  const byTitle = (a: string, b: string) => byText(cards.get(a)!.title.toLowerCase(), cards.get(b)!.title.toLowerCase()) || byText(cards.get(a)!.path, cards.get(b)!.path)
  // Sorted by their topics, then title: the groups of one topic are consecutive, so their parent is one page.
  const sortKey = (group: { title: string, parents: string[] }) => [...group.parents, group.title]
  const groups = [...input.groups]
    .map(group => ({ title: groupTitle(group.title), ids: [...new Set(group.ids)].sort(byTitle), parents: (group.parents ?? []).map(groupTitle) }))
    .filter(group => group.ids.length > 0)
    .sort((a, b) => compareKeys(sortKey(a), sortKey(b)))

  const topics = new Map<string, string[]>()
  const pages: Page[] = []
  const slug = slugger()
  const newPage = (title: string, kind: Page['kind'], documents: string[], children: Page[], chain: string[]): Page => {
    const page: Page = { path: `indexes/${slug(title)}.md`, title, kind, documents, children, chain, summary: '', text: '', tokens: 0 }
    pages.push(page)
    for (const child of children)
      child.parent = page
    return page
  }
  const summarize = async (level: Page[]) => {
    const drafts = level.map((page): PageDraft => ({
      title: page.title,
      kind: page.kind,
      entries: page.kind === 'documents'
        ? page.documents.map(id => ({ title: cards.get(id)!.title, summary: cards.get(id)!.summary }))
        : page.children.map(child => ({ title: child.title, summary: child.summary })),
    }))
    const summaries = await input.summarize(drafts)
    level.forEach((page, i) => (page.summary = bounded(summaries[i] ?? '', CARD_LIMITS.summary)))
  }

  let level: Page[] = []
  for (const group of groups) {
    const parts = chunks(group.ids, pageSize)
    for (const [i, ids] of parts.entries()) {
      const page = newPage(parts.length > 1 ? `${group.title} (${i + 1}/${parts.length})` : group.title, 'documents', ids, [], group.parents)
      page.group = group.title
      level.push(page)
    }
    for (const id of group.ids)
      topics.set(id, [...(topics.get(id) ?? []), group.title])
  }
  await summarize(level)

  const entry = (top: Page[]) => renderEntry(input, top, cards.size)
  const fits = (top: Page[]) => top.length <= pageSize && estimateTokens(entry(top)) <= input.maxEntryTokens
  // Parents until the entry point lists at most pageSize pages and fits its bound:
  // first a page per group of several pages, then a page per topic (innermost
  // first), then pages of consecutive pages.
  let byGroup = true
  while (level.length > 1 && !fits(level)) {
    const depth = Math.max(...level.map(page => page.chain.length))
    const topicRuns = runsOf(level, page => (page.chain.length === depth ? page.chain.join('\n') : page))
    const packed = !byGroup && depth === 1 ? packRuns(topicRuns, pageSize) : undefined
    if (packed) {
      // More outermost topics than the entry point lists, but their pages fit a level of parents
      // each holding whole topics: one link fewer to every document than a page per topic and pages of those.
      const next: Page[] = []
      const created: Page[] = []
      for (const bin of packed) {
        const names = bin.map(run => run[0]!.chain[0] ?? run[0]!.title)
        const children = bin.flat()
        children.forEach(page => (page.chain = []))
        if (children.length === 1) {
          next.push(children[0]!)
          continue
        }
        const page = newPage(spanTitle(names), 'pages', [], children, [])
        created.push(page)
        next.push(page)
      }
      await summarize(created)
      level = next
      continue
    }
    const step = byGroup ? 'group' : depth > 0 ? 'topic' : 'span'
    // Pages of one run get one parent (a topic's: only those at the innermost depth).
    const runs = step === 'group'
      ? runsOf(level, page => page.group)
      : step === 'topic'
        ? topicRuns
        : chunks(level, pageSize)
    const next: Page[] = []
    const created: Page[] = []
    for (const run of runs) {
      const chain = run[0]!.chain
      if (step === 'topic' && chain.length === depth)
        run.forEach(page => (page.chain = chain.slice(0, -1)))
      if (run.length === 1) {
        next.push(run[0]!)
        continue
      }
      const parts = chunks(run, pageSize)
      for (const [i, children] of parts.entries()) {
        const name = step === 'group' ? children[0]!.group : step === 'topic' ? chain.at(-1) : undefined
        const title = name !== undefined
          ? (parts.length > 1 ? `${name} (${i + 1}/${parts.length})` : name)
          : spanTitle(children.map(child => child.title))
        const page = newPage(title, 'pages', [], children, step === 'span' ? [] : children[0]!.chain)
        created.push(page)
        next.push(page)
      }
    }
    byGroup = false
    if (created.length === 0)
      continue
    await summarize(created)
    level = next
  }

  // Rendered leaves first, so that each parent states its children's sizes.
  for (const page of pages)
    Object.assign(page, sized(tokens => renderPage(page, cards, tokens, input.covers)))
  const catalog = renderCatalog(all, pageSize)
  const top = renderEntry(input, level, cards.size, cards)
  return {
    skill: top,
    pages: Object.fromEntries(pages.map(page => [page.path, page.text])),
    catalog,
    llmsTxt: renderLlmsTxt(input, level, cards.size),
    cards: Object.fromEntries([...all].sort((a, b) => byText(a.id, b.id)).map(card => [card.id, { ...card, topics: topics.get(card.id) ?? [] }])),
  }
}

