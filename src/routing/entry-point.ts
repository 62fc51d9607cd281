// The entry point of a routed skill (SKILL.md) and its llms.txt: the topics at
// the top, and below them as much of the tree as the entry point's token bound
// allows, so that a reader who recognises a document there follows it at once.

import type { Card } from './card'
import type { Page } from './render-pages'
import { toSkillName } from '../skill/spec'
import { estimateTokens } from '../runtime/tokens'
import { CARD_LIMITS, cutAtSentence } from './card'
import { escapeMarkdown } from './plain-text'
import { bounded, coversLine, line, pageLink, pageTerms, PLACEHOLDER_TOKENS, referenceLink, sized } from './render-pages'

/** What the entry point is made of besides its pages. */
export interface EntryInput {
  /** The skill's name (made a valid Agent Skills name) and description. */
  name: string
  description: string
  pageSize: number
  /** The entry point's bound in tokens. */
  maxEntryTokens: number
  /** Each document's distinctive words. */
  covers?: ReadonlyMap<string, readonly string[]>
  /** Page summaries only name the documents below: left out where the entry point lists those documents. */
  summariesNameDocuments?: boolean
}

function skillName(name: string): string {
  return toSkillName(name) || 'knowledge'
}

function skillDescription(input: EntryInput): string {
  return line(input.description) || `Find the documents of the ${input.name} knowledge base that answer a question, through index pages, then read them.`
}

/** A YAML double-quoted scalar. */
function yamlString(text: string): string {
  return JSON.stringify(text)
}

/** How deep the entry point lists the pages below its own, and how many of each entry's words it shows there. */
interface Inline {
  depth: number
  words: number
  /** Characters of a page's summary on its inline entry when the entry point lists nothing below it (else its words). */
  summary?: number
}

/** Words shown on an entry the entry point lists inline, most first: fewer when more entries must fit. */
const INLINE_WORDS = [4, 2, 0]

/**
 * Characters of a page's summary shown on its inline entry when nothing below
 * it is listed, the most that fit: the titles of its documents tell a reader
 * more than its words do.
 */
const INLINE_SUMMARIES = [350, 310, 270, 230, 190, 150, 110]

/** How many levels below a page reach its documents: 1 for a page of documents. */
function height(page: Page): number {
  return page.kind === 'documents' ? 1 : 1 + Math.max(0, ...page.children.map(height))
}

/** The largest of `sizes` (sorted largest first) that `fits`, or `undefined`: one probe per halving. */
function largestFitting<T>(sizes: readonly T[], fits: (size: T) => boolean): T | undefined {
  let low = 0
  let high = sizes.length
  // Invariant: sizes[high] (when in range) fits; everything before `low` does not.
  while (low < high) {
    const middle = (low + high) >> 1
    if (fits(sizes[middle]!))
      high = middle
    else low = middle + 1
  }
  return sizes[low]
}

/**
 * What the entry point lists under each of its pages: their children, and
 * theirs, as deep as its bound allows (a level fits whole or not at all),
 * with as much of each entry as still fits (the most of the summary of a
 * page listed last, else the most words). A reader who recognises a document
 * or a sub-topic there follows it at once, rather than guessing at a topic
 * from its summary. `size` is an upper bound of the entry point's tokens.
 */
function inlinePlan(size: (inline: Inline) => number, top: Page[], maxTokens: number): Inline {
  const fits = (inline: Inline) => size(inline) <= maxTokens
  for (let depth = Math.max(0, ...top.map(height)); depth > 0; depth--) {
    // Each family shrinks along its list: its last is its smallest.
    const summaries = INLINE_SUMMARIES.map(summary => ({ depth, words: INLINE_WORDS[0]!, summary }))
    const words = INLINE_WORDS.map(count => ({ depth, words: count }))
    const inline = (fits(summaries.at(-1)!) ? largestFitting(summaries, fits) : undefined) ?? (fits(words.at(-1)!) ? largestFitting(words, fits) : undefined)
    if (inline)
      return inline
  }
  return { depth: 0, words: 0 }
}

/** An inline entry's words, after its link: none when there are none or none fit. */
function inlineWords(terms: readonly string[], words: number): string {
  const text = bounded(terms.slice(0, words).join(', '), CARD_LIMITS.covers)
  return text ? `: ${escapeMarkdown(text)}` : ''
}

/** A page's children as nested list items, `inline.depth` levels deep, linked from the skill's root. */
function inlineItems(page: Page, cards: Map<string, Omit<Card, 'topics'>>, inline: Inline, covers: ReadonlyMap<string, readonly string[]> | undefined, indent = '  '): string[] {
  if (inline.depth <= 0)
    return []
  if (page.kind === 'documents') {
    return page.documents.map((id) => {
      const card = cards.get(id)!
      return `${indent}- [${escapeMarkdown(card.title)}](${referenceLink(card.path).slice('../'.length)})${inlineWords(covers?.get(id) ?? [], inline.words)}`
    })
  }
  const below = { ...inline, depth: inline.depth - 1 }
  return page.children.flatMap(child => [
    `${indent}- [${escapeMarkdown(child.title)}](${pageLink(child, 'root')})${inline.summary && below.depth === 0 && child.summary ? `: ${escapeMarkdown(cutAtSentence(child.summary, inline.summary))}` : inlineWords(covers ? pageTerms(child, covers) : [], inline.words)}`,
    ...inlineItems(child, cards, below, covers, `${indent}  `),
  ])
}

/**
 * Whether what the entry point lists below a page names its documents already,
 * so that a summary which only names them (the offline router's) says nothing
 * more: the documents themselves, or pages with their summaries.
 */
function namedBelow(input: EntryInput, page: Page, inline: Inline): boolean {
  return input.summariesNameDocuments === true && inline.depth > 0 && (inline.depth >= height(page) || inline.summary !== undefined)
}

export function renderEntry(input: EntryInput, top: Page[], documents: number, cards?: Map<string, Omit<Card, 'topics'>>): string {
  const text = (inline: Inline, tokens: number) => entryText(input, top, documents, inline, cards, tokens)
  // Sized with the widest size it could state: never under its real size.
  const inline = cards ? inlinePlan(plan => estimateTokens(text(plan, PLACEHOLDER_TOKENS)), top, input.maxEntryTokens) : { depth: 0, words: 0 }
  return sized(tokens => text(inline, tokens)).text
}

function entryText(input: EntryInput, top: Page[], documents: number, inline: Inline, cards: Map<string, Omit<Card, 'topics'>> | undefined, tokens: number): string {
  return [
    '---',
    `name: ${skillName(input.name)}`,
    `description: ${yamlString(skillDescription(input).slice(0, 1024))}`,
    '---',
    '',
    `# ${line(input.name)}`,
    '',
    skillDescription(input),
    '',
    'Pick the topic that fits the question and follow it: to a document listed under it when one fits, else to its index page, which describes each of its documents. Answer from those references only: read them before answering. When no topic fits, look the document up in the [catalog](indexes/catalog.md).',
    '',
    `This page: about ${tokens} tokens. ${documents} documents.`,
    '',
    '## Topics',
    '',
    ...(top.length === 0 ? ['No documents yet.'] : top.flatMap(page => [
      `- [${escapeMarkdown(page.title)}](${pageLink(page, 'root')})${namedBelow(input, page, inline) ? '' : `: ${escapeMarkdown(page.summary || page.title)}`} (about ${page.tokens || PLACEHOLDER_TOKENS} tokens)`,
      ...coversLine(input.covers && pageTerms(page, input.covers)),
      ...(cards ? inlineItems(page, cards, inline, input.covers) : []),
    ])),
    '',
    '## Catalog',
    '',
    `- [Every document, by path](indexes/catalog.md)`,
    '',
  ].join('\n')
}

export function renderLlmsTxt(input: EntryInput, top: Page[], documents: number): string {
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
