import type { KnowledgeBase, KnowledgeSearchMode, KnowledgeSearchResult } from '../knowledge/knowledge'
import type { AgentTool, AgentToolParameters, AgentToolResult } from './types'
import { closestMatches } from '../closest'
import { KnowledgeError } from '../knowledge/errors'
import { quoteForMessage } from '../redact'
import { DEFAULT_TOP_K } from '../knowledge/vector/search'

/** Most documents one search returns. */
export const MAX_KNOWLEDGE_RESULTS = 20
/** The longest query or ID accepted. */
export const MAX_KNOWLEDGE_ARGUMENT = 2_000

/** Options of {@link createKnowledgeTool}. */
export interface KnowledgeToolOptions {
  /** The tool's name (default `knowledge`). */
  name?: string
  /** How searches rank (default `auto`: vectors and words when the base has a query embedder, else words). */
  mode?: KnowledgeSearchMode
}

/** One found document as the tool returns it: what to choose by, and the ID to retrieve it with. */
export interface KnowledgeToolHit {
  id: string
  title: string
  description?: string
  /** The heading path of its best passage. */
  heading?: string
  score: number
  url?: string
  base?: string
}

const fail = (content: string): AgentToolResult => ({ content, isError: true })

function hit(result: KnowledgeSearchResult, base: string | undefined): KnowledgeToolHit {
  return {
    id: result.id,
    title: result.title ?? result.id,
    ...(result.description ? { description: result.description } : {}),
    ...(result.heading.length > 0 ? { heading: result.heading.join(' › ') } : {}),
    score: Math.round(result.score * 1000) / 1000,
    ...(result.url ? { url: result.url } : {}),
    ...(base === undefined ? {} : { base }),
  }
}

/** A string argument of at most {@link MAX_KNOWLEDGE_ARGUMENT} characters, or the error that says what to send. */
function text(input: Record<string, unknown>, key: string, example: string): string | AgentToolResult {
  const value = input[key]
  if (typeof value !== 'string' || value.trim() === '')
    return fail(`"${key}" must be a non-empty string, e.g. {${example}}.`)
  if (value.length > MAX_KNOWLEDGE_ARGUMENT)
    return fail(`"${key}" has ${value.length} characters; at most ${MAX_KNOWLEDGE_ARGUMENT} are accepted.`)
  return value.trim()
}

const isResult = (value: unknown): value is AgentToolResult => typeof value === 'object' && value !== null && 'isError' in value

/**
 * Creates the `knowledge` tool over one or more knowledge bases: `search`
 * ranks documents for a query (metadata and the heading of the best passage,
 * never bodies), `retrieve` returns one document's whole text by the ID a
 * search gave. A knowledge base's refusal (an unknown ID, a model that cannot
 * load) comes back as an error result with its message.
 */
export function createKnowledgeTool(bases: KnowledgeBase | readonly KnowledgeBase[], options: KnowledgeToolOptions = {}): AgentTool {
  const list: readonly KnowledgeBase[] = Array.isArray(bases) ? bases : [bases as KnowledgeBase]
  if (list.length === 0)
    throw new TypeError('createKnowledgeTool needs at least one knowledge base: import one from virtual:skill-kit/knowledge/<name>.')
  const names = list.map(b => b.name)
  const several = list.length > 1

  const parameters: AgentToolParameters = {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ['search', 'retrieve'], description: '"search" ranks documents for a query; "retrieve" returns one document\'s whole text by its ID.' },
      query: { type: 'string', description: 'search: what to look for, in a few words or a question.' },
      id: { type: 'string', description: 'retrieve: a document ID from the search results.' },
      limit: { type: 'integer', minimum: 1, maximum: MAX_KNOWLEDGE_RESULTS, description: `search: most documents to return (default: the knowledge base's topK${several ? `, and ${DEFAULT_TOP_K} over several` : ''}).` },
      ...(several ? { base: { type: 'string', enum: [...names], description: 'Which knowledge base (default: search all; retrieve needs it when an ID is in several).' } } : {}),
    },
    required: ['action'],
    additionalProperties: false,
  }

  function pickBases(input: Record<string, unknown>): readonly KnowledgeBase[] | AgentToolResult {
    const base = input.base
    if (base === undefined || base === null || !several)
      return list
    const found = list.find(b => b.name === base)
    if (found)
      return [found]
    const near = typeof base === 'string' ? closestMatches(base, names) : []
    return fail(`There is no knowledge base ${quoteForMessage(base)}.${near.length ? ` Did you mean "${near[0]}"?` : ''} Knowledge bases: ${names.join(', ')}.`)
  }

  async function search(input: Record<string, unknown>, chosen: readonly KnowledgeBase[]): Promise<AgentToolResult> {
    const query = text(input, 'query', '"action": "search", "query": "how do I configure the cache"')
    if (isResult(query))
      return query
    const limit = input.limit ?? undefined
    if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_KNOWLEDGE_RESULTS))
      return fail(`"limit" must be an integer from 1 to ${MAX_KNOWLEDGE_RESULTS}; got ${quoteForMessage(limit)}.`)
    let hits: KnowledgeToolHit[] = []
    for (const base of chosen) {
      const results = await base.search(query, { ...(limit === undefined ? {} : { topK: limit }), ...(options.mode ? { mode: options.mode } : {}) })
      hits.push(...results.map(r => hit(r, several ? base.name : undefined)))
    }
    // Bases rank on one scale per mode, so their hits merge by score.
    if (chosen.length > 1)
      hits = hits.sort((a, b) => b.score - a.score).slice(0, limit ?? DEFAULT_TOP_K)
    if (hits.length === 0)
      return { content: 'No document matches this query. Search again in other words.', isError: false }
    return { content: JSON.stringify(hits, null, 1), isError: false }
  }

  async function retrieve(input: Record<string, unknown>, chosen: readonly KnowledgeBase[]): Promise<AgentToolResult> {
    const id = text(input, 'id', '"action": "retrieve", "id": "<an id from the search results>"')
    if (isResult(id))
      return id
    const holders = chosen.filter(b => b.documents.some(d => d.id.toLowerCase() === id.toLowerCase()))
    if (holders.length > 1)
      return fail(`"${id}" is a document of ${holders.map(b => `"${b.name}"`).join(' and ')}: pass "base" to say which.`)
    if (holders.length === 0 && chosen.length > 1) {
      const near = closestMatches(id, chosen.flatMap(b => b.documents.map(d => d.id)))
      return fail(`"${id}" is not a document of ${names.map(n => `"${n}"`).join(', ')}.${near.length ? ` Did you mean ${near.map(n => `"${n}"`).join(' or ')}?` : ' Search first, and retrieve an ID from the results.'}`)
    }
    // One base: its own refusal (an unknown or ambiguous ID) says what to do.
    return { content: await (holders[0] ?? chosen[0]!).retrieve(id), isError: false }
  }

  return {
    name: options.name ?? 'knowledge',
    get description(): string {
      const bases = list.map(b => `"${b.name}" (${b.documents.length} documents)`).join(', ')
      return [
        `Search the documentation in ${several ? 'the knowledge bases' : 'the knowledge base'} ${bases}, then read the documents that answer.`,
        '- action "search" with a query: the best documents, best first, as JSON (id, title, description, the heading of the best passage, score); never their text.',
        '- action "retrieve" with an id from the results: the document\'s whole text.',
      ].join('\n')
    },
    parameters,
    async execute(args: object): Promise<AgentToolResult> {
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        return fail('The knowledge tool takes an object of arguments, e.g. {"action": "search", "query": "…"}.')
      const input = args as Record<string, unknown>
      const chosen = pickBases(input)
      if (isResult(chosen))
        return chosen
      try {
        if (input.action === 'search')
          return await search(input, chosen)
        if (input.action === 'retrieve')
          return await retrieve(input, chosen)
        return fail(`"action" must be "search" (with a query) or "retrieve" (with an id); got ${quoteForMessage(input.action ?? null)}.`)
      }
      catch (error) {
        if (error instanceof KnowledgeError)
          return fail(error.message)
        return fail(`The knowledge tool failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    },
  }
}
