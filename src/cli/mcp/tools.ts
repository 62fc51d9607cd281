// The tools of `skill-kit mcp`: the runtime's skill tool as it is (load a
// cover, read a section), search_skills, two for a skill's listing and
// bundled files, and search and retrieve over the knowledge bases, answering
// as the CLI does.
// Arguments come from a model: every one is checked here, whatever the
// client did with the JSON Schema.

import type { RegistrySkill } from '../../runtime/skill/types'
import type { AgentTool } from '../../runtime/agent/types'
import type { SkillCatalog } from './skills'
import type { ServedKnowledge } from './knowledge'
import { createSearchSkillsTool } from '../../runtime/agent/search-skills'
import { createSkillTool } from '../../runtime/skill/skill-tool'
import { estimateTokens, listingLine } from '../../runtime/tokens'
import { isSearchMode, SEARCH_MODE_LIST, SEARCH_MODES } from '../../runtime/knowledge/ranking/search-modes'
import { THRESHOLD_RULE, TOP_K_RULE } from '../../runtime/knowledge/ranking/search-options'
import { quoteForMessage } from '../../runtime/redact'
import { skillUri } from './uris'

/** A tool as `tools/list` gives it. */
export interface McpTool {
  name: string
  description: string
  inputSchema: { type: 'object', properties: Record<string, object>, required?: string[], additionalProperties?: boolean }
  annotations: typeof READ_ONLY
}

/** Every tool only reads what the project holds: hosts may run them without asking. */
const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const

/** What a tool call gives back: text, and whether it is an error the model should read. */
export interface ToolAnswer {
  text: string
  isError: boolean
}

/** Most bytes of a bundled file returned as text: a skill's files go whole into a model's context. */
const MAX_FILE_BYTES = 1024 * 1024

const fail = (text: string): ToolAnswer => ({ text, isError: true })
const ok = (text: string): ToolAnswer => ({ text, isError: false })
const json = (value: unknown) => ok(JSON.stringify(value, null, 2))

/** The tools and what they serve. */
export interface ServedTools {
  catalog: SkillCatalog | undefined
  knowledge: readonly ServedKnowledge[]
}

/**
 * Past this many tokens of `- name: description` lines, the skill tool lists
 * no skill and points at search_skills: hosts cap what tool descriptions and
 * skill listings take (Claude Code gives skills about 16,000 characters), and
 * a listing past that is cut or crowds the prompt.
 */
export const MAX_LISTING_TOKENS = 4_000

/** The skill tool and search_skills of each registry the catalog has given: made again only when the skills changed. */
const made = new WeakMap<readonly RegistrySkill[], { skill: ReturnType<typeof createSkillTool>, search: AgentTool }>()

function skillTools(catalog: SkillCatalog): { skill: ReturnType<typeof createSkillTool>, search: AgentTool } {
  const registry = catalog.registry()
  let tools = made.get(registry)
  if (!tools) {
    const listingTokens = registry.reduce((sum, skill) => sum + estimateTokens(listingLine(skill)), 0)
    tools = { skill: createSkillTool(registry, { listSkills: listingTokens <= MAX_LISTING_TOKENS }), search: createSearchSkillsTool(registry) }
    made.set(registry, tools)
  }
  return tools
}

function baseProperty(knowledge: readonly ServedKnowledge[]): Record<string, object> {
  if (knowledge.length < 2)
    return {}
  return { knowledge_base: { type: 'string', enum: knowledge.map(k => k.name), description: 'The knowledge base to use.' } }
}

/** The tools offered now (the skill tool's description lists the skills as they are). */
export function listTools({ catalog, knowledge }: ServedTools): McpTool[] {
  const tools: McpTool[] = []
  if (catalog) {
    const { skill, search } = skillTools(catalog)
    tools.push(
      { name: skill.name, description: skill.description, inputSchema: skill.parameters, annotations: READ_ONLY },
      { name: search.name, description: search.description, inputSchema: search.parameters as McpTool['inputSchema'], annotations: READ_ONLY },
      {
        name: 'list_skills',
        description: 'List the skills: name, description, mode, section IDs (progressive skills) and bundled files. Load one with the skill tool.',
        inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        annotations: READ_ONLY,
      },
      {
        name: 'read_skill_file',
        description: 'Read a file bundled with a skill (a script, a reference, a template), by its path in the skill\'s folder as list_skills or the skill\'s cover names it.',
        inputSchema: {
          type: 'object',
          properties: {
            skill: { type: 'string', description: 'The skill\'s name.' },
            path: { type: 'string', description: 'The file\'s path in the skill\'s folder, e.g. "scripts/check.sh".' },
          },
          required: ['skill', 'path'],
          additionalProperties: false,
        },
        annotations: READ_ONLY,
      },
    )
  }
  if (knowledge.length > 0) {
    const names = knowledge.map(k => `"${k.name}"`).join(', ')
    tools.push(
      {
        name: 'search',
        description: `Search the documentation (${names}) for a question or task. Returns the best documents as JSON (id, title, description, path, score, heading), best first, without their text: read one with retrieve.`,
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'What to find, in words, e.g. "restore a deleted file".' },
            ...baseProperty(knowledge),
            top_k: { type: 'integer', minimum: 1, description: 'Documents to return (default: the project\'s search.topK).' },
            threshold: { type: 'number', minimum: -1, maximum: 1, description: 'Lowest score returned (default: the project\'s).' },
            mode: { type: 'string', enum: [...SEARCH_MODES], description: 'auto (default), vector, lexical or hybrid.' },
          },
          required: ['query', ...(knowledge.length > 1 ? ['knowledge_base'] : [])],
          additionalProperties: false,
        },
        annotations: READ_ONLY,
      },
      {
        name: 'retrieve',
        description: `Read a whole document of the documentation (${names}) by the id search returned.`,
        inputSchema: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'The document\'s id, from search.' },
            ...baseProperty(knowledge),
          },
          required: ['id', ...(knowledge.length > 1 ? ['knowledge_base'] : [])],
          additionalProperties: false,
        },
        annotations: READ_ONLY,
      },
    )
  }
  return tools
}

function stringArgument(args: Record<string, unknown>, key: string, example: string): string | ToolAnswer {
  const value = args[key]
  if (typeof value !== 'string' || value.trim() === '')
    return fail(`"${key}" must be a non-empty string, e.g. ${JSON.stringify(example)}; got ${quoteForMessage(value)}.`)
  return value
}

function chooseBase(knowledge: readonly ServedKnowledge[], args: Record<string, unknown>): ServedKnowledge | ToolAnswer {
  const named = args.knowledge_base
  if (named === undefined && knowledge.length === 1)
    return knowledge[0]!
  const names = knowledge.map(k => `"${k.name}"`).join(', ')
  const base = knowledge.find(k => k.name === named)
  return base ?? fail(`"knowledge_base" must be one of ${names}; got ${quoteForMessage(named)}.`)
}

const isAnswer = (value: unknown): value is ToolAnswer => typeof value === 'object' && value !== null && 'isError' in value

function searchRequest(args: Record<string, unknown>) {
  const { top_k: topK, threshold, mode } = args
  if (topK !== undefined && !TOP_K_RULE.test(topK))
    return fail(`"top_k" must be ${TOP_K_RULE.expected}, got ${quoteForMessage(topK)}.`)
  if (threshold !== undefined && !THRESHOLD_RULE.test(threshold))
    return fail(`"threshold" must be ${THRESHOLD_RULE.expected}, got ${quoteForMessage(threshold)}.`)
  if (mode !== undefined && !isSearchMode(mode))
    return fail(`"mode" must be ${SEARCH_MODE_LIST}, got ${quoteForMessage(mode)}.`)
  return { topK: topK as number | undefined, threshold: threshold as number | undefined, mode: mode as typeof SEARCH_MODES[number] | undefined }
}

/** Runs a tool. Bad arguments and refusals are answers with `isError`, in the CLI's words. */
export async function callTool(served: ServedTools, name: string, input: unknown): Promise<ToolAnswer> {
  const args = (typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {}) as Record<string, unknown>
  const { catalog, knowledge } = served
  if (catalog && name === 'skill') {
    const result = await skillTools(catalog).skill.execute(args as never)
    return { text: result.content, isError: result.isError }
  }
  if (catalog && name === 'search_skills') {
    const result = await skillTools(catalog).search.execute(args)
    return { text: result.content, isError: result.isError }
  }
  if (catalog && name === 'list_skills') {
    return json(catalog.skills().map(skill => ({
      name: skill.name,
      description: skill.compiled.description,
      mode: skill.compiled.mode,
      uri: skillUri(skill.name, 'SKILL.md'),
      sections: skill.compiled.sections.map(s => s.id),
      files: catalog.filePaths(skill).slice(1),
    })))
  }
  if (catalog && name === 'read_skill_file') {
    const skillName = stringArgument(args, 'skill', 'my-skill')
    const path = stringArgument(args, 'path', 'scripts/check.sh')
    if (isAnswer(skillName))
      return skillName
    if (isAnswer(path))
      return path
    const skill = catalog.find(skillName)
    if (!skill)
      return fail(`Unknown skill ${quoteForMessage(skillName)}. Skills: ${catalog.skills().map(s => s.name).join(', ') || '(none)'}.`)
    const bytes = catalog.read(skill, path)
    if (bytes.byteLength > MAX_FILE_BYTES)
      return fail(`"${path}" of skill "${skill.name}" has ${bytes.byteLength.toLocaleString('en-US')} bytes; at most ${MAX_FILE_BYTES.toLocaleString('en-US')} are returned as text. Read it as the resource ${skillUri(skill.name, path)}.`)
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes)
    if (text.includes('\uFFFD') || text.includes('\0'))
      return fail(`"${path}" of skill "${skill.name}" is not text. Read it as the resource ${skillUri(skill.name, path)}.`)
    return ok(text)
  }
  if (knowledge.length > 0 && name === 'search') {
    const query = stringArgument(args, 'query', 'restore a deleted file')
    if (isAnswer(query))
      return query
    const base = chooseBase(knowledge, args)
    if (isAnswer(base))
      return base
    const request = searchRequest(args)
    if (isAnswer(request))
      return request
    return json(await base.search({ query, ...request }))
  }
  if (knowledge.length > 0 && name === 'retrieve') {
    const id = stringArgument(args, 'id', 'restore-backup')
    if (isAnswer(id))
      return id
    const base = chooseBase(knowledge, args)
    if (isAnswer(base))
      return base
    return ok(await base.retrieve(id))
  }
  return fail(`Unknown tool ${quoteForMessage(name)}. Tools: ${listTools(served).map(t => t.name).join(', ') || '(none)'}.`)
}
