import type { AgentTool, AgentToolParameters, AgentToolResult } from './types'
import type { RankedSkillInput, SkillRankingOptions } from './skill-ranking'
import { createSkillRanking } from './skill-ranking'
import { listingLine } from '../tokens'

/** Most skills one search returns. */
export const MAX_SKILL_RESULTS = 20
/** Skills a search returns when the agent does not say. */
export const DEFAULT_SKILL_RESULTS = 5
/** The longest query accepted: a request, not a document. */
export const MAX_QUERY_LENGTH = 2_000

/** Options of {@link createSearchSkillsTool}. */
export interface SearchSkillsToolOptions extends SkillRankingOptions {
  /** The tool's name (default `search_skills`). */
  name?: string
}

const DESCRIPTION = [
  'Find the agent skills that fit a task: searches every available skill by its name, description and topics, and returns the best ones, best first, as "- name: description" lines.',
  'Describe the task in a few words (what it is about, the file type, the tool); then load the skill that fits with the skill tool (action "load").',
].join('\n')

function parameters(): AgentToolParameters {
  return {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description: 'The task, in a few words: "extract tables from a PDF", "review a database migration".',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_SKILL_RESULTS,
        description: `Most skills to return (default ${DEFAULT_SKILL_RESULTS}).`,
      },
    },
    required: ['query'],
    additionalProperties: false,
  }
}

const fail = (content: string): AgentToolResult => ({ content, isError: true })

/**
 * Creates the `search_skills` tool: the agent finds skills by what its task
 * is about instead of reading a listing of every skill, then loads one with
 * the skill tool. Lexical by default; by meaning too with `embedQuery`.
 */
export function createSearchSkillsTool(skills: readonly RankedSkillInput[], options: SearchSkillsToolOptions = {}): AgentTool {
  const ranking = createSkillRanking(skills, options)
  return {
    name: options.name ?? 'search_skills',
    description: DESCRIPTION,
    parameters: parameters(),
    async execute(args: object): Promise<AgentToolResult> {
      const input = args as Record<string, unknown>
      const query = typeof args === 'object' && args !== null ? input.query : undefined
      if (typeof query !== 'string' || query.trim() === '')
        return fail('"query" must be the task in a few words, e.g. {"query": "extract tables from a PDF"}.')
      if (query.length > MAX_QUERY_LENGTH)
        return fail(`"query" has ${query.length} characters; at most ${MAX_QUERY_LENGTH} are accepted. Describe the task in a few words.`)
      const limit = input.limit ?? DEFAULT_SKILL_RESULTS
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SKILL_RESULTS)
        return fail(`"limit" must be an integer from 1 to ${MAX_SKILL_RESULTS} (default ${DEFAULT_SKILL_RESULTS}); got ${JSON.stringify(limit)}.`)
      try {
        const found = await ranking.search(query, limit)
        if (found.length === 0)
          return { content: 'No skill matches this request. Search again in other words: what the task is about, the file type, the tool.', isError: false }
        return { content: `Skills for this request, best first (load one with the skill tool, action "load"):\n${found.map(listingLine).join('\n')}`, isError: false }
      }
      catch (error) {
        return fail(`search_skills failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    },
  }
}
