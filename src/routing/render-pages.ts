// The pages of a routed skill below its entry point, as Markdown: index pages
// (a topic's documents with their cards, or a parent's pages) and the catalog.
// What a model or a document says arrives plain and bounded (see `bounded`) and
// is escaped wherever it is written: the pages' links are the program's.

import type { Card } from './card'
import { estimateTokens } from '../runtime/tokens'
import { CARD_LIMITS, cutAtSentence, RAW_FACTOR } from './card'
import { interleaved } from './covers'
import { chunks } from './sequences'
import { escapeMarkdown, inertText } from './plain-text'

/** An index page of the layout, before and after it is rendered. */
export interface Page {
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
export const PLACEHOLDER_TOKENS = 99_999

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The link to a reference from `indexes/`: each path segment URL-encoded. */
export function referenceLink(path: string): string {
  return `../references/${path.split('/').map(encodeURIComponent).join('/')}`
}

/** One line, for the project's own name and description. */
export function line(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * A model's or a document's text as the pages hold it: plain (see
 * {@link inertText}) and within `max` characters. Text over {@link RAW_FACTOR}
 * times `max` is cut before it is cleaned, as a model's answer is refused.
 */
export function bounded(text: string, max: number): string {
  return cutAtSentence(inertText(text.slice(0, max * RAW_FACTOR)), max)
}

/**
 * `render(size)` with the size it states: re-rendered until the number it
 * states is its own token count (two rounds at most in practice).
 */
export function sized(render: (tokens: number) => string): { text: string, tokens: number } {
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

export function pageLink(page: Page, from: 'root' | 'indexes'): string {
  return from === 'root' ? page.path : page.path.slice('indexes/'.length)
}

/** Words a page's "Covers" line holds in its parent: fewer than a card's, as more blur a topic for a reader matching meaning. */
const PAGE_COVER_WORDS = 6

/** The distinctive words of the documents below a page, one from each of its documents (or pages) in turn: what its parent shows of it. */
export function pageTerms(page: Page, covers: ReadonlyMap<string, readonly string[]>): string[] {
  return interleaved(page.kind === 'documents' ? page.documents.map(id => covers.get(id) ?? []) : page.children.map(child => pageTerms(child, covers)), PAGE_COVER_WORDS)
}

/** An entry's "Covers" line, plain and bounded; none when there are no words. */
export function coversLine(terms: readonly string[] | undefined): string[] {
  const text = bounded((terms ?? []).join(', '), CARD_LIMITS.covers)
  return text ? [`  Covers: ${escapeMarkdown(text)}`] : []
}

export function renderPage(page: Page, cards: Map<string, Omit<Card, 'topics'>>, tokens: number, covers?: ReadonlyMap<string, readonly string[]>): string {
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

export function renderCatalog(all: readonly Omit<Card, 'topics'>[], pageSize: number): Record<string, string> {
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
