import type { Activation, RegistrySkill, SectionIndexEntry, Skill } from './types'
import { closestMatches } from '../closest'
import { SkillReadError } from './read-section'
import { registryGeneration } from './registry'
import { listingLine } from '../tokens'

/** Options of {@link createSkillTool}. */
export interface SkillToolOptions {
  /**
   * The session's activation: the description then lists only active skills,
   * and loading or reading a dormant skill by name activates it.
   */
  activation?: Activation<RegistrySkill>
  /**
   * `false`: the description lists no skills and says to find them with the
   * search_skills tool (unplugin-skill-kit/runtime/agent), for registries too
   * large to list in a prompt (default true).
   */
  listSkills?: boolean
}

/** The arguments an agent passes to the skill tool. */
export interface SkillToolArgs {
  action: 'load' | 'read_section'
  /** The skill's name. */
  skill: string
  /** `read_section`: the section's stable ID, from the cover's index. */
  section_id?: string
  /** `read_section`: the heading text (case-insensitive), when no `section_id` is given. */
  heading?: string
  /** `read_section`: lines of the section to skip (default 0). */
  offset?: number
  /** `read_section`: most lines to return (default: the whole section). */
  limit?: number
}

/** What a tool call gives back to the agent; errors are results too, never exceptions. */
export interface SkillToolResult {
  content: string
  isError: boolean
}

/** A JSON Schema property of the tool's parameters. */
export interface SkillToolProperty {
  type: 'string' | 'integer'
  description: string
  enum?: string[]
  minimum?: number
}

/** The tool's parameters, a JSON Schema that OpenAI and Anthropic tool definitions take as is. */
export interface SkillToolParameters {
  type: 'object'
  properties: Record<keyof SkillToolArgs, SkillToolProperty>
  required: ['action', 'skill']
  additionalProperties: false
}

/** An agent tool that loads skills and reads their sections. */
export interface SkillTool {
  readonly name: 'skill'
  /** What the tool does and the skills it offers now (the active ones, with an activation). */
  readonly description: string
  readonly parameters: SkillToolParameters
  /** Runs a call; every failure comes back as `{ isError: true }` with what to do instead. */
  execute: (args: SkillToolArgs) => Promise<SkillToolResult>
}

const ACTIONS = ['load', 'read_section'] as const

const INTRO = [
  'Load an agent skill, or read one section of a progressive skill.',
  '- action "load": returns the skill\'s cover. A progressive skill\'s cover holds its always-on rules and an index of section IDs; other skills return their whole body.',
  '- action "read_section": returns one section of a progressive skill, by section_id (from the cover\'s index) or, without one, by heading text (case-insensitive); offset and limit read a range of the section\'s lines.',
].join('\n')

/** The description's end when skills are not listed (`listSkills: false`). */
const UNLISTED = 'Skills are not listed here: find the ones that fit a task with the search_skills tool, then load one by the name it returns.'

function parameters(): SkillToolParameters {
  return {
    type: 'object',
    properties: {
      action: {
        type: 'string',
        enum: [...ACTIONS],
        description: '"load" returns the skill\'s cover; "read_section" returns one section of a progressive skill.',
      },
      skill: {
        type: 'string',
        description: 'The skill\'s name, as listed in the tool description.',
      },
      section_id: {
        type: 'string',
        description: 'read_section: the section ID from the cover\'s index, e.g. "core-tools".',
      },
      heading: {
        type: 'string',
        description: 'read_section: the section\'s heading text, case-insensitive, when no section_id is given. IDs are more reliable.',
      },
      offset: {
        type: 'integer',
        minimum: 0,
        description: 'read_section: lines of the section to skip (default 0).',
      },
      limit: {
        type: 'integer',
        minimum: 0,
        description: 'read_section: most lines to return (default: the whole section).',
      },
    },
    required: ['action', 'skill'],
    additionalProperties: false,
  }
}

function didYouMean(word: string, candidates: readonly string[]): string {
  const names = closestMatches(word, candidates)
  return names.length > 0 ? ` Did you mean ${names.map(n => `"${n}"`).join(' or ')}?` : ''
}

/**
 * A heading as an agent may quote it: `## Core tools {#core-tools}` → `core tools`.
 * Linear in the text: the `{#id}` suffix is cut at its last `{#`, not by a
 * backtracking pattern (an agent controls the text).
 */
function normalizeHeading(text: string): string {
  let heading = text.trim().replace(/^#+/, '').trimEnd()
  const id = heading.lastIndexOf('{#')
  if (id >= 0 && heading.endsWith('}') && !heading.slice(id + 2, -1).includes('}'))
    heading = heading.slice(0, id)
  return heading.split(/\s+/).filter(Boolean).join(' ').toLowerCase()
}

/** The longest `skill`, `section_id` or `heading` accepted: longer ones match nothing, so they are refused before any comparison. */
export const MAX_ARGUMENT_LENGTH = 1_000

/** A value an agent sent, as an error message quotes it: JSON, cut to a readable length. */
function shown(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value)
  return json.length > 80 ? `${json.slice(0, 80)}…` : json
}

const fail = (content: string): SkillToolResult => ({ content, isError: true })
const ok = (content: string): SkillToolResult => ({ content, isError: false })

function message(error: unknown): string {
  if (error instanceof Error)
    return error.message
  return String(error)
}

/** A string argument, with `null`, `undefined` and blank strings read as absent. */
function optionalString(args: Record<string, unknown>, key: string): string | undefined | SkillToolResult {
  const value = args[key]
  if (value === undefined || value === null)
    return undefined
  if (typeof value !== 'string')
    return fail(`"${key}" must be a string, got ${shown(value)}.`)
  if (value.length > MAX_ARGUMENT_LENGTH)
    return fail(`"${key}" has ${value.length} characters; at most ${MAX_ARGUMENT_LENGTH} are accepted. Pass a section ID or heading from the skill's cover.`)
  return value.trim() === '' ? undefined : value.trim()
}

/** A line count argument: a non-negative integer, with `null` read as absent. */
function optionalCount(args: Record<string, unknown>, key: 'offset' | 'limit'): number | undefined | SkillToolResult {
  const value = args[key]
  if (value === undefined || value === null)
    return undefined
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    const meaning = key === 'offset' ? 'the number of lines to skip (default 0)' : 'the most lines to return (omit it for the rest of the section)'
    return fail(`"${key}" must be a non-negative integer, ${meaning}; got ${typeof value === 'number' ? String(value) : shown(value)}.`)
  }
  return value
}

const isResult = (value: unknown): value is SkillToolResult => typeof value === 'object' && value !== null && 'isError' in value

/**
 * Creates the `skill` tool an agent calls to load skills (their cover) and
 * read sections of progressive skills. With an activation, the description
 * lists only active skills, and a dormant skill the agent names is activated.
 * Given the live registry of the Vite dev server, it offers the skills of its
 * latest hot update.
 */
export function createSkillTool(registry: readonly RegistrySkill[], options: SkillToolOptions = {}): SkillTool {
  const { activation } = options
  const listSkills = options.listSkills !== false
  let byName = new Map<string, RegistrySkill>()
  let names: string[] = []
  let generation = -1

  /** Indexes the skills by name when they changed (only a hot update of the registry changes them). */
  function sync(): void {
    if (generation === registryGeneration(registry))
      return
    generation = registryGeneration(registry)
    byName = new Map()
    for (const skill of registry) {
      if (!byName.has(skill.name))
        byName.set(skill.name, skill)
    }
    names = [...byName.keys()]
  }

  /** The skills offered now: all, or the active ones in activation order. */
  function offered(): RegistrySkill[] {
    sync()
    if (!activation)
      return [...byName.values()]
    return activation.active.flatMap(skill => byName.get(skill.name) ?? [])
  }

  function find(name: string): RegistrySkill | undefined {
    const exact = byName.get(name)
    if (exact)
      return exact
    const folded = names.filter(n => n.toLowerCase() === name.toLowerCase())
    return folded.length === 1 ? byName.get(folded[0]!) : undefined
  }

  function unknownSkill(name: string): SkillToolResult {
    if (names.length === 0)
      return fail(`Unknown skill "${name}": no skills are available.`)
    if (!listSkills)
      return fail(`Unknown skill "${name}".${didYouMean(name, names)} Find skills with the search_skills tool, and load one by a name it returns.`)
    const available = offered().map(s => s.name)
    return fail(`Unknown skill "${name}".${didYouMean(name, names)} Available skills: ${available.join(', ') || '(none active)'}.`)
  }

  async function load(entry: RegistrySkill): Promise<Skill | SkillToolResult> {
    try {
      return await entry.load()
    }
    catch (error) {
      return fail(`Skill "${entry.name}" could not be loaded: ${message(error)}`)
    }
  }

  async function notProgressive(entry: RegistrySkill): Promise<SkillToolResult> {
    const hint = ` Call the skill tool with action "load" and skill "${entry.name}" instead.`
    const skill = await load(entry)
    if (!isResult(skill)) {
      try {
        skill.readSection('')
      }
      catch (error) {
        if (error instanceof SkillReadError && error.code === 'not-progressive')
          return fail(error.message + hint)
      }
    }
    const why = entry.mode === 'fallback'
      ? `failed validation and loaded in fallback mode`
      : `is a regular skill`
    return fail(`Skill "${entry.name}" ${why}: it has no sections to read, and loading it returns the whole body.${hint}`)
  }

  function resolve(entry: RegistrySkill, sections: readonly SectionIndexEntry[], sectionId: string | undefined, heading: string | undefined): SectionIndexEntry | SkillToolResult {
    const ids = sections.map(s => s.id)
    const known = `Section IDs of "${entry.name}": ${ids.join(', ') || '(none)'}.`
    if (sectionId !== undefined) {
      const section = sections.find(s => s.id === sectionId)
      if (section)
        return section
      // A heading passed as section_id still finds its section, when it is unique.
      const wanted = normalizeHeading(sectionId)
      const titled = sections.filter(s => normalizeHeading(s.title) === wanted)
      if (titled.length === 1)
        return titled[0]!
      return fail(`Skill "${entry.name}" has no section with the ID "${sectionId}".${didYouMean(sectionId, ids)} ${known}`)
    }
    const wanted = normalizeHeading(heading!)
    const titled = sections.filter(s => normalizeHeading(s.title) === wanted)
    if (titled.length === 1)
      return titled[0]!
    if (titled.length > 1)
      return fail(`Several sections of "${entry.name}" have the heading "${heading}": ${titled.map(s => s.id).join(', ')}. Pass one of these IDs as section_id instead.`)
    // An ID passed as heading still finds its section.
    const byId = sections.find(s => s.id === heading!.trim())
    if (byId)
      return byId
    return fail(`Skill "${entry.name}" has no section with the heading "${heading}".${didYouMean(heading!, sections.map(s => s.title))} ${known} Pass one of them as section_id.`)
  }

  async function readSection(entry: RegistrySkill, args: Record<string, unknown>): Promise<SkillToolResult> {
    const sectionId = optionalString(args, 'section_id')
    if (isResult(sectionId))
      return sectionId
    const heading = optionalString(args, 'heading')
    if (isResult(heading))
      return heading
    const offset = optionalCount(args, 'offset')
    if (isResult(offset))
      return offset
    const limit = optionalCount(args, 'limit')
    if (isResult(limit))
      return limit

    if (entry.mode !== 'progressive')
      return notProgressive(entry)
    const skill = await load(entry)
    if (isResult(skill))
      return skill
    if (skill.mode !== 'progressive')
      return notProgressive(entry)

    if (sectionId === undefined && heading === undefined) {
      const ids = skill.sections.map(s => s.id)
      return fail(`read_section needs a section_id (or a heading). Section IDs of "${entry.name}": ${ids.join(', ') || '(none)'}.`)
    }
    const section = resolve(entry, skill.sections, sectionId, heading)
    if (isResult(section))
      return section

    let text: string
    try {
      text = skill.readSection(section.id)
    }
    catch (error) {
      return fail(`Reading section "${section.id}" of skill "${entry.name}" failed: ${message(error)}`)
    }
    if (offset === undefined && limit === undefined)
      return ok(text)
    const lines = text.split('\n')
    const start = offset ?? 0
    if (start > 0 && start >= lines.length)
      return fail(`Section "${section.id}" of skill "${entry.name}" has ${lines.length} lines, so offset ${start} is past its end. Use an offset below ${lines.length}.`)
    return ok(lines.slice(start, limit === undefined ? undefined : start + limit).join('\n'))
  }

  async function execute(args: SkillToolArgs): Promise<SkillToolResult> {
    sync()
    if (typeof args !== 'object' || args === null || Array.isArray(args))
      return fail(`The skill tool takes an object of arguments, e.g. {"action": "load", "skill": "${names[0] ?? 'my-skill'}"}.`)
    const input = args as unknown as Record<string, unknown>
    const action = input.action
    if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
      const got = action === undefined ? 'no action was given' : `got ${shown(action)}`
      return fail(`"action" must be "load" (the skill's cover) or "read_section" (one section by section_id or heading); ${got}.`)
    }
    const name = input.skill
    if (typeof name !== 'string' || name.trim() === '')
      return fail(`"skill" must be the name of a skill, e.g. ${offered().map(s => `"${s.name}"`).slice(0, 3).join(', ') || '"my-skill"'}.`)
    if (name.length > MAX_ARGUMENT_LENGTH)
      return fail(`"skill" has ${name.length} characters; at most ${MAX_ARGUMENT_LENGTH} are accepted. Pass the name of a skill, e.g. ${offered().map(s => `"${s.name}"`).slice(0, 3).join(', ') || '"my-skill"'}.`)
    const entry = find(name.trim())
    if (!entry)
      return unknownSkill(name.trim())

    // Naming a skill is reason enough to make it available for the rest of the session.
    activation?.activate(entry.name)

    if (action === 'load') {
      const skill = await load(entry)
      return isResult(skill) ? skill : ok(skill.cover)
    }
    return readSection(entry, input)
  }

  return {
    name: 'skill',
    get description(): string {
      if (!listSkills)
        return `${INTRO}\n\n${UNLISTED}`
      const skills = offered()
      const list = skills.length > 0
        ? `Available skills:\n${skills.map(listingLine).join('\n')}`
        : 'No skills are available yet.'
      return `${INTRO}\n\n${list}`
    },
    parameters: parameters(),
    async execute(args: SkillToolArgs): Promise<SkillToolResult> {
      try {
        return await execute(args)
      }
      catch (error) {
        return fail(`The skill tool failed: ${message(error)}`)
      }
    },
  }
}
