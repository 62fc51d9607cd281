import type { Tokens } from 'marked'
import type { KnowledgeDocument } from '../knowledge/document'
import type { RouteCard } from '../runtime/routes'
import { blockTokens } from '../core/block-tokens'
import { scanHeadings } from '../core/markdown'
import { estimateTokens } from '../runtime/tokens'
import { inertText } from './plain-text'

/** Bounds of a card's fields, in characters (tasks: how many). */
export const CARD_LIMITS = { title: 100, summary: 350, task: 200, minTasks: 1, maxTasks: 4, topic: 60, covers: 160 } as const

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

/** A summary shorter than this takes the next prose paragraph too. */
const SHORT_SUMMARY = 120

/** A label line (`Tags: a, b`, `Aliases: x`, `Version: 2`): a few words, a colon, then no sentence. */
const LABEL_LINE = /^[\p{L}][\p{L}\p{N} _-]{0,30}:(?:\s[^.!?]*)?$/u

/** Whether a paragraph says something: not a tag or label line, nor a row of badges or links (a table of contents). */
function isText(raw: string, plain: string): boolean {
  if (!plain || LABEL_LINE.test(plain))
    return false
  // What is left once links and images are taken out: badges and link lists leave little.
  const bare = raw.replace(/!?\[(?:[^\]\\]|\\.)*\](?:\([^)]*\)|\[[^\]]*\])?/g, ' ').replace(/[\s|•·,;-]+/g, ' ').trim()
  return bare.length >= raw.length / 4
}

/** Fewest words of a paragraph taken for prose ("Stable." is a fragment). */
const PROSE_WORDS = 5

/**
 * The first real prose of a body, as plain text: paragraphs that say
 * something (see {@link isText}) of {@link PROSE_WORDS} words or more, the
 * next too when the first is short; else the first paragraph that says something.
 */
export function firstProse(body: string): string {
  const found: string[] = []
  let fallback = ''
  for (const token of blockTokens(body)) {
    if (token.type !== 'paragraph')
      continue
    const raw = (token as Tokens.Paragraph).text
    const plain = plainText(raw)
    if (!isText(raw, plain))
      continue
    fallback ||= plain
    if (plain.split(' ').length < PROSE_WORDS)
      continue
    found.push(plain)
    if (found.join(' ').length >= SHORT_SUMMARY)
      break
  }
  return found.length > 0 ? found.join(' ') : fallback
}

/** Headings that name a part every document has, not what this one is about. */
const GENERIC_HEADINGS = /^(?:overview|introduction|intro|summary|contents|table of contents|toc|examples?|usage|rationale|parameters|options|returns?|notes?|see also|references|related|links|license|changelog|faq|background|details|conclusion)$/i

/**
 * A body's main headings (its second level, else its third), generic ones
 * (Examples, Parameters…) left out: what the document covers, as tasks a
 * reader recognises when no model writes them.
 */
export function mainHeadings(body: string): string[] {
  const headings = scanHeadings(body.split(/\r\n|\r|\n/)).filter(heading => heading.level >= 2 && heading.level <= 3)
  const level = headings.some(heading => heading.level === 2) ? 2 : 3
  const texts = headings.filter(heading => heading.level === level).map(heading => plainText(heading.text)).filter(text => text && !GENERIC_HEADINGS.test(text))
  return [...new Set(texts)].slice(0, CARD_LIMITS.maxTasks)
}

/**
 * The offline router's card: the first heading as title; the description,
 * else the first real prose cut at a sentence; the main headings as tasks.
 */
export function offlineCard(document: KnowledgeDocument): Omit<Card, 'topics'> {
  const { heading } = firstHeadingAndParagraph(document.body)
  const fallbackTitle = document.id.slice(document.id.lastIndexOf('/') + 1)
  return {
    id: document.id,
    path: document.path,
    title: cutAtSentence(heading || fallbackTitle, CARD_LIMITS.title),
    summary: cutAtSentence(plainText(document.description || firstProse(document.body)), CARD_LIMITS.summary),
    tasks: mainHeadings(document.body).map(task => cutAtSentence(task, CARD_LIMITS.task)),
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
