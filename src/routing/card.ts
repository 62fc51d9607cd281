import type { Tokens } from 'marked'
import type { KnowledgeDocument } from '../knowledge/document'
import type { RouteCard } from '../runtime/routes'
import { blockTokens } from '../core/block-tokens'
import { estimateTokens } from '../runtime/tokens'
import { inertText } from './plain-text'

/** Bounds of a card's fields, in characters (tasks: how many). */
export const CARD_LIMITS = { title: 100, summary: 350, task: 200, minTasks: 1, maxTasks: 4, topic: 60 } as const

/**
 * How many times its bound a field may be before its markup is taken out
 * (links and HTML are long): text longer than that is refused or cut first,
 * so cleaning never costs more than a bounded answer.
 */
export const RAW_FACTOR = 8

/** What an index page says about one document (the runtime's type: modules export it). */
export type Card = RouteCard

/** Emphasis marks and code ticks, which a plain title or summary drops. */
const EMPHASIS = /\*\*|__|\*|_|`/g

/**
 * Markdown inline markup reduced to its text: links and images to their
 * labels, no HTML, web address, emphasis or code ticks, on one line (see {@link inertText}).
 */
export function plainText(markdown: string): string {
  return inertText(markdown.replace(EMPHASIS, ''))
}

/**
 * `text` cut to at most `max` characters: at the last sentence end within the
 * bound when one falls in its second half, else at a word, with an ellipsis.
 */
export function cutAtSentence(text: string, max: number): string {
  if (text.length <= max)
    return text
  const head = text.slice(0, max)
  let end = -1
  for (const match of head.matchAll(/[.!?](?=\s|$)/g))
    end = match.index + 1
  if (end >= max / 2)
    return head.slice(0, end)
  const space = head.lastIndexOf(' ', max - 1)
  return `${head.slice(0, space > max / 2 ? space : max - 1).trimEnd()}…`
}

/** The first heading's text and first paragraph's plain text of a Markdown body. */
export function firstHeadingAndParagraph(body: string): { heading?: string, paragraph?: string } {
  let heading: string | undefined
  for (const token of blockTokens(body)) {
    if (token.type === 'heading' && heading === undefined)
      heading = plainText((token as Tokens.Heading).text)
    if (token.type === 'paragraph') {
      const paragraph = plainText((token as Tokens.Paragraph).text)
      if (paragraph)
        return { heading, paragraph }
    }
  }
  return { heading }
}

/** The offline router's card: the first heading as title; the description, else the first paragraph cut at a sentence. */
export function offlineCard(document: KnowledgeDocument): Omit<Card, 'topics'> {
  const { heading, paragraph } = firstHeadingAndParagraph(document.body)
  const fallbackTitle = document.id.slice(document.id.lastIndexOf('/') + 1)
  return {
    id: document.id,
    path: document.path,
    title: cutAtSentence(heading || fallbackTitle, CARD_LIMITS.title),
    summary: cutAtSentence(plainText(document.description || paragraph || ''), CARD_LIMITS.summary),
    tasks: [],
    tokens: estimateTokens(document.body),
  }
}

/**
 * The categories a document sets itself (`category`, `categories`), verbatim.
 * A document without `category` gets its top folder's name as category when
 * loaded; that one is the folder's, not the author's, so it is left out.
 */
export function explicitCategories(document: KnowledgeDocument): string[] {
  const folder = document.path.includes('/') ? document.path.slice(0, document.path.indexOf('/')) : undefined
  return document.categories.filter((category, i) => !(i === 0 && category === folder))
}
