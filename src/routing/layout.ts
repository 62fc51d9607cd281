// The routed skill as Markdown: index pages of at most `pageSize` entries, parent
// pages until the entry point fits its token bound, a complete paginated catalog
// and llms.txt. Both routers lay out through here; they differ only in the cards,
// the groups and who writes page summaries. Whatever a model or a document
// says (titles, summaries, tasks, topics) is made plain text and bounded on its
// way in, and escaped wherever it is written: the pages' links are the program's.

import type { RoutesModule } from '../runtime/routes'
import type { Card } from './card'
import { chunks, compareKeys, packRuns, runsOf } from './sequences'
import { slugger } from './slug'
import { toSkillName } from '../skill/spec'
import { estimateTokens } from '../runtime/tokens'
import { CARD_LIMITS, cutAtSentence, RAW_FACTOR } from './card'
import { interleaved } from './covers'
import { escapeMarkdown, inertText } from './plain-text'

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
}

interface Page {
  path: string
  title: string
  kind: 'documents' | 'pages'
  /** The group a leaf page lists (of several pages when it has more than pageSize documents). */
  group?: string
  /** The topics the page still sits in, outermost first: parents not made yet. */
  chain: string[]
  /** Document IDs or child pages. */
  documents: string[]
  children: Page[]
  summary: string
  parent?: Page
  text: string
  tokens: number
}

/** The size stated for a page not rendered yet: wider than any real one, so the entry point's size is never underestimated. */
const PLACEHOLDER_TOKENS = 99_999

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The link to a reference from `indexes/`: each path segment URL-encoded. */
function referenceLink(path: string): string {
  return `../references/${path.split('/').map(encodeURIComponent).join('/')}`
}

/** One line, for the project's own name and description. */
function line(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * A model's or a document's text as the pages hold it: plain (see
 * {@link inertText}) and within `max` characters. Text over {@link RAW_FACTOR}
 * times `max` is cut before it is cleaned, as a model's answer is refused.
 */
function bounded(text: string, max: number): string {
  return cutAtSentence(inertText(text.slice(0, max * RAW_FACTOR)), max)
}

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

/**
 * `render(size)` with the size it states: re-rendered until the number it
 * states is its own token count (two rounds at most in practice).
 */
function sized(render: (tokens: number) => string): { text: string, tokens: number } {
  let tokens = estimateTokens(render(0))
  for (let round = 0; round < 4; round++) {
    const text = render(tokens)
    const actual = estimateTokens(text)
    if (actual === tokens)
      return { text, tokens }
    tokens = actual
  }
  return { text: render(tokens), tokens }
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
  const top = entry(level)
  return {
    skill: top,
    pages: Object.fromEntries(pages.map(page => [page.path, page.text])),
    catalog,
    llmsTxt: renderLlmsTxt(input, level, cards.size),
    cards: Object.fromEntries([...all].sort((a, b) => byText(a.id, b.id)).map(card => [card.id, { ...card, topics: topics.get(card.id) ?? [] }])),
  }
}

function skillName(name: string): string {
  return toSkillName(name) || 'knowledge'
}

function skillDescription(input: LayoutInput): string {
  return line(input.description) || `Find the documents of the ${input.name} knowledge base that answer a question, through index pages, then read them.`
}

/** A YAML double-quoted scalar. */
function yamlString(text: string): string {
  return JSON.stringify(text)
}

function pageLink(page: Page, from: 'root' | 'indexes'): string {
  return from === 'root' ? page.path : page.path.slice('indexes/'.length)
}

function renderEntry(input: LayoutInput, top: Page[], documents: number): string {
  return sized(tokens => [
    '---',
    `name: ${skillName(input.name)}`,
    `description: ${yamlString(skillDescription(input).slice(0, 1024))}`,
    '---',
    '',
    `# ${line(input.name)}`,
    '',
    skillDescription(input),
    '',
    'Pick the index page whose topic fits the question, follow it to the references it lists, and answer from those references only: read them before answering. When no topic fits, look the document up in the [catalog](indexes/catalog.md).',
    '',
    `This page: about ${tokens} tokens. ${documents} documents.`,
    '',
    '## Topics',
    '',
    ...(top.length === 0 ? ['No documents yet.'] : top.flatMap(page => [`- [${escapeMarkdown(page.title)}](${pageLink(page, 'root')}): ${escapeMarkdown(page.summary || page.title)} (about ${page.tokens || PLACEHOLDER_TOKENS} tokens)`, ...coversLine(input.covers && pageTerms(page, input.covers))])),
    '',
    '## Catalog',
    '',
    `- [Every document, by path](indexes/catalog.md)`,
    '',
  ].join('\n')).text
}

/** Words a page's "Covers" line holds in its parent: fewer than a card's, as more blur a topic for a reader matching meaning. */
const PAGE_COVER_WORDS = 6

/** The distinctive words of the documents below a page, one from each of its documents (or pages) in turn: what its parent shows of it. */
function pageTerms(page: Page, covers: ReadonlyMap<string, readonly string[]>): string[] {
  return interleaved(page.kind === 'documents' ? page.documents.map(id => covers.get(id) ?? []) : page.children.map(child => pageTerms(child, covers)), PAGE_COVER_WORDS)
}

/** An entry's "Covers" line, plain and bounded; none when there are no words. */
function coversLine(terms: readonly string[] | undefined): string[] {
  const text = bounded((terms ?? []).join(', '), CARD_LIMITS.covers)
  return text ? [`  Covers: ${escapeMarkdown(text)}`] : []
}

function renderPage(page: Page, cards: Map<string, Omit<Card, 'topics'>>, tokens: number, covers?: ReadonlyMap<string, readonly string[]>): string {
  const up = page.parent ? `[${escapeMarkdown(page.parent.title)}](${pageLink(page.parent, 'indexes')})` : '[SKILL.md](../SKILL.md)'
  const lines = [`# ${escapeMarkdown(page.title)}`, '']
  if (page.summary)
    lines.push(escapeMarkdown(page.summary), '')
  lines.push(`This page: about ${tokens} tokens. Up: ${up}.`, '', page.kind === 'documents' ? '## Documents' : '## Pages', '')
  if (page.kind === 'documents') {
    for (const id of page.documents) {
      const card = cards.get(id)!
      lines.push(`- [${escapeMarkdown(card.title)}](${referenceLink(card.path)}): ${escapeMarkdown(card.summary) || escapeMarkdown(card.path)} (about ${card.tokens} tokens)`)
      if (card.tasks.length > 0)
        lines.push(`  Tasks: ${card.tasks.map(task => escapeMarkdown(task)).join('; ')}`)
      lines.push(...coversLine(covers?.get(id)))
    }
  }
  else {
    for (const child of page.children) {
      lines.push(`- [${escapeMarkdown(child.title)}](${pageLink(child, 'indexes')}): ${escapeMarkdown(child.summary || child.title)} (about ${child.tokens} tokens)`)
      lines.push(...coversLine(covers && pageTerms(child, covers)))
    }
  }
  lines.push('')
  return lines.join('\n')
}

function renderCatalog(all: readonly Omit<Card, 'topics'>[], pageSize: number): Record<string, string> {
  const sorted = [...all].sort((a, b) => byText(a.path, b.path))
  const parts = chunks(sorted, pageSize)
  const out: Record<string, string> = {}
  const sizes: number[] = []
  for (const [i, part] of parts.entries()) {
    const nav = [i > 0 ? `[previous](catalog-${i}.md)` : '', i < parts.length - 1 ? `[next](catalog-${i + 2}.md)` : ''].filter(Boolean).join(', ')
    const page = sized(tokens => [
      `# Catalog (${i + 1}/${parts.length})`,
      '',
      `This page: about ${tokens} tokens. Up: [Catalog](catalog.md)${nav ? `; ${nav}` : ''}.`,
      '',
      ...part.map(card => `- [${escapeMarkdown(card.title)}](${referenceLink(card.path)}): ${escapeMarkdown(card.summary) || escapeMarkdown(card.path)} (\`${card.path}\`, about ${card.tokens} tokens)`),
      '',
    ].join('\n'))
    out[`indexes/catalog-${i + 1}.md`] = page.text
    sizes.push(page.tokens)
  }
  const index = sized(tokens => [
    '# Catalog',
    '',
    `Every document (${sorted.length}) by path, ${pageSize} to a page: the fallback when no topic fits.`,
    '',
    `This page: about ${tokens} tokens. Up: [SKILL.md](../SKILL.md).`,
    '',
    ...parts.map((part, i) => `- [${escapeMarkdown(part[0]!.path)} to ${escapeMarkdown(part.at(-1)!.path)}](catalog-${i + 1}.md) (about ${sizes[i]} tokens)`),
    '',
  ].join('\n'))
  return { 'indexes/catalog.md': index.text, ...out }
}

function renderLlmsTxt(input: LayoutInput, top: Page[], documents: number): string {
  return [
    `# ${line(input.name)}`,
    '',
    `> ${skillDescription(input)}`,
    '',
    `Index pages group the ${documents} documents by topic; each page links to the documents it lists.`,
    '',
    '## Topics',
    '',
    ...top.map(page => `- [${escapeMarkdown(page.title)}](${page.path}): ${escapeMarkdown(page.summary || page.title)}`),
    '',
    '## Optional',
    '',
    `- [Catalog](indexes/catalog.md): every document by path, ${input.pageSize} to a page`,
    '',
  ].join('\n')
}
