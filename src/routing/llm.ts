// The LLM router: one card per document (its sections together, long documents
// in windows whose answers are merged), model-proposed topics normalized, page
// summaries by the model. Every answer is validated, bounded and cached; paths
// and coverage come from the program.

import type { KnowledgeDocument } from '../knowledge/document'
import type { Card } from './card'
import type { RoutingCache } from './cache'
import type { ChatClient, ChatMessage } from './client'
import type { PageDraft } from './layout'
import { hash } from '../core/hash'
import { chunkDocument } from '../knowledge/chunk'
import { estimateTokens } from '../runtime/tokens'
import { CARD_LIMITS, explicitCategories, RAW_FACTOR } from './card'
import { RoutingError } from './client'
import { inertText } from './plain-text'
import { mapLimit } from '../core/pool'

/**
 * Bumped whenever prompts change, or answer rules in a way that checking
 * cached answers again cannot apply: cached answers of another version are not used.
 * 2: version 1 cached answers as the model gave them, with the API key when it echoed it.
 */
export const PROMPT_VERSION = 2

export interface LlmRouterOptions {
  /** Sends requests; `undefined` with `offline` (cache only). */
  client: ChatClient | undefined
  /** The model and endpoint the cache keys name (the client's, when there is one). */
  model: string
  endpoint: string
  cache: RoutingCache
  language: string
  maxInputChars: number
  concurrency: number
  /** Ask again even when an answer is cached. */
  force?: boolean
  /** Use cached answers only; a miss fails, naming the document or page. */
  offline?: boolean
  /**
   * Use cached answers only; a miss is no failure but `undefined`, which the
   * offline router describes instead (the dev server never asks the model).
   */
  cacheOnly?: boolean
  log?: (line: string) => void
}

/** A card as the model writes it; `topic` only for documents without categories of their own. */
interface CardAnswer {
  title: string
  summary: string
  tasks: string[]
  topic?: string
}

/** The text of a document the model reads: its sections, each under its headings, cut into windows of at most `max` characters. */
export function documentWindows(document: KnowledgeDocument, max: number): string[] {
  const sections = chunkDocument(document, 0)
    .filter(chunk => chunk.kind === 'section')
    .map(chunk => (chunk.context.length > 0 ? `[Under: ${chunk.context.join(' > ')}]\n${chunk.text}` : chunk.text))
  const windows: string[] = []
  let current = ''
  const push = (text: string) => {
    if (current && current.length + 2 + text.length > max) {
      windows.push(current)
      current = ''
    }
    current = current ? `${current}\n\n${text}` : text
  }
  for (const section of sections) {
    // A section longer than a window goes in pieces, cut at a line break when one is near; nothing is dropped.
    let rest = section
    while (rest.length > max) {
      const newline = rest.lastIndexOf('\n', max)
      const cut = newline > max / 2 ? newline : max
      push(rest.slice(0, cut))
      rest = rest.slice(cut).replace(/^\n/, '')
    }
    if (rest)
      push(rest)
  }
  if (current)
    windows.push(current)
  return windows
}

function cardMessages(document: KnowledgeDocument, window: string, part: number, parts: number, language: string, wantTopic: boolean): ChatMessage[] {
  const fields = [
    `"title": the document's title (at most ${CARD_LIMITS.title} characters)`,
    `"summary": what it covers, concretely (at most ${CARD_LIMITS.summary} characters)`,
    `"tasks": ${CARD_LIMITS.minTasks} to ${CARD_LIMITS.maxTasks} concrete tasks a user could ask for that it helps with (each at most ${CARD_LIMITS.task} characters)`,
    ...(wantTopic ? [`"topic": a short topic of 1 to 3 words under which an index would group it with similar documents (at most ${CARD_LIMITS.topic} characters)`] : []),
  ]
  const metadata = [
    `Path: ${document.path}`,
    `ID: ${document.id}`,
    document.description ? `Description: ${document.description}` : '',
    document.categories.length > 0 ? `Categories: ${document.categories.join(', ')}` : '',
    document.tags.length > 0 ? `Tags: ${document.tags.join(', ')}` : '',
    parts > 1 ? `Part ${part} of ${parts} of the document.` : '',
  ].filter(Boolean)
  return [
    { role: 'system', content: `You describe documents for the index pages an agent reads to find the document that answers a question. Answer with one JSON object with these keys: ${fields.join('; ')}. Write in ${language}. Use only what the document says.` },
    { role: 'user', content: `${metadata.join('\n')}\n\n${window}` },
  ]
}

function pageMessages(page: PageDraft, language: string): ChatMessage[] {
  const entries = page.entries.map(entry => `- ${entry.title}: ${entry.summary}`).join('\n')
  return [
    { role: 'system', content: `You write the summary of an index page an agent reads to decide whether to open it. Answer with one JSON object: {"summary": what the page's ${page.kind === 'documents' ? 'documents' : 'pages'} cover together, in one or two sentences (at most ${CARD_LIMITS.summary} characters)}. Write in ${language}.` },
    { role: 'user', content: `Page: ${page.title}\n\n${entries}` },
  ]
}

/**
 * A model answer's string as plain text on one line (see {@link inertText}),
 * or the reason it is not a usable one. An answer over {@link RAW_FACTOR}
 * times the bound is refused before it is cleaned.
 */
function boundedText(field: unknown, name: string, max: number): string {
  if (typeof field !== 'string' || field.trim() === '')
    throw new Error(`"${name}" must be a non-empty string`)
  const flat = field.replace(/\s+/g, ' ').trim()
  if (flat.length > max * RAW_FACTOR)
    throw new Error(`"${name}" has ${flat.length} characters, at most ${max} are allowed`)
  const text = inertText(flat)
  if (text.length > max)
    throw new Error(`"${name}" has ${text.length} characters, at most ${max} are allowed`)
  if (text === '')
    throw new Error(`"${name}" holds no text once links, images, HTML and web addresses are taken out`)
  return text
}

function validateCard(value: Record<string, unknown>, wantTopic: boolean): CardAnswer {
  const title = boundedText(value.title, 'title', CARD_LIMITS.title)
  const summary = boundedText(value.summary, 'summary', CARD_LIMITS.summary)
  const tasks = value.tasks
  if (!Array.isArray(tasks) || tasks.length < CARD_LIMITS.minTasks || tasks.length > CARD_LIMITS.maxTasks)
    throw new Error(`"tasks" must be a list of ${CARD_LIMITS.minTasks} to ${CARD_LIMITS.maxTasks} strings`)
  const checked = tasks.map((task, i) => boundedText(task, `tasks[${i}]`, CARD_LIMITS.task))
  return { title, summary, tasks: checked, ...(wantTopic ? { topic: boundedText(value.topic, 'topic', CARD_LIMITS.topic) } : {}) }
}

/** One card from the windows' answers: the first window's title and summary, tasks taken from each window in turn. */
function mergeAnswers(answers: CardAnswer[]): CardAnswer {
  const tasks: string[] = []
  const seen = new Set<string>()
  for (let round = 0; tasks.length < CARD_LIMITS.maxTasks && answers.some(a => a.tasks.length > round); round++) {
    for (const answer of answers) {
      const task = answer.tasks[round]
      if (task && !seen.has(task.toLowerCase()) && tasks.length < CARD_LIMITS.maxTasks) {
        seen.add(task.toLowerCase())
        tasks.push(task)
      }
    }
  }
  const first = answers[0]!
  return { title: first.title, summary: first.summary, tasks, ...(first.topic === undefined ? {} : { topic: first.topic }) }
}

/**
 * A cached answer, checked again by `validate` as a new one is, so that one
 * edited by hand gets nothing onto the pages that a model's could not. One
 * that fails (edited, damaged) counts as a miss.
 */
function cachedAnswer<T>(options: LlmRouterOptions, kind: 'cards' | 'pages', key: string, validate: (value: Record<string, unknown>) => T): T | undefined {
  const cached = options.cache.get<unknown>(kind, key)
  if (!cached || typeof cached !== 'object' || Array.isArray(cached))
    return undefined
  try {
    return validate(cached as Record<string, unknown>)
  }
  catch {
    return undefined
  }
}

/**
 * Asks (or reads from the cache) what `messages` answer, validated by
 * `validate` (cached answers too); `undefined` on a miss with `cacheOnly`.
 */
async function answer<T>(options: LlmRouterOptions, kind: 'cards' | 'pages', key: string, requests: ChatMessage[][], subject: string, validate: (value: Record<string, unknown>) => T, merge: (answers: T[]) => T): Promise<T | undefined> {
  if (!options.force) {
    const cached = cachedAnswer(options, kind, key, validate)
    if (cached !== undefined)
      return cached
  }
  if (options.cacheOnly)
    return undefined
  if (options.offline || !options.client)
    throw new RoutingError(`No cached answer for ${subject}, and the build may use the cache only (offline). Build once with the model reachable, without offline.`)
  const answers: T[] = []
  for (const messages of requests) {
    const value = await options.client.completeJson(messages, subject)
    try {
      answers.push(validate(value))
    }
    catch (error) {
      throw new RoutingError(`The model's answer for ${subject} is invalid: ${(error as Error).message}. Build again (the model may answer differently), or use another model.`)
    }
  }
  const merged = merge(answers)
  options.cache.set(kind, key, merged)
  return merged
}

function requestKey(options: LlmRouterOptions, kind: string, requests: ChatMessage[][]): string {
  return hash(kind, String(PROMPT_VERSION), options.model, options.endpoint, JSON.stringify(requests))
}

/** A document's card as the model describes it. */
export interface LlmCard {
  card: Omit<Card, 'topics'>
  /** The model's topic, for a document without categories of its own. */
  topic?: string
}

/**
 * The settings a document's card depends on besides the document: cards made
 * under another key (another model, endpoint, language, window size) are not reused.
 */
export function llmCardKey(options: LlmRouterOptions): string {
  return hash('card', String(PROMPT_VERSION), options.model, options.endpoint, options.language, String(options.maxInputChars))
}

/** A document's card and topic (its own categories, else the model's proposal); `undefined` on a cache miss with `cacheOnly`. */
export async function llmCard(document: KnowledgeDocument, options: LlmRouterOptions): Promise<LlmCard | undefined> {
  const wantTopic = explicitCategories(document).length === 0
  const windows = documentWindows(document, options.maxInputChars)
  const requests = windows.map((window, i) => cardMessages(document, window, i + 1, windows.length, options.language, wantTopic))
  const found = await answer(options, 'cards', requestKey(options, 'card', requests), requests, document.path, value => validateCard(value, wantTopic), mergeAnswers)
  if (!found)
    return undefined
  return {
    card: { id: document.id, path: document.path, title: found.title, summary: found.summary, tasks: found.tasks, tokens: estimateTokens(document.body) },
    ...(found.topic === undefined ? {} : { topic: found.topic }),
  }
}

/** The model's summaries of one level of pages, in order; `undefined` for a page with no cached summary with `cacheOnly`. */
export async function llmSummaries(pages: PageDraft[], options: LlmRouterOptions): Promise<(string | undefined)[]> {
  return mapLimit(pages, options.concurrency, async (page) => {
    const requests = [pageMessages(page, options.language)]
    const found = await answer(options, 'pages', requestKey(options, 'page', requests), requests, `the index page "${page.title}"`, value => ({ summary: boundedText(value.summary, 'summary', CARD_LIMITS.summary) }), answers => answers[0]!)
    return found?.summary
  })
}
