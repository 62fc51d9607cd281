import type { DiagnosticBag, Position } from '../core/diagnostics'
import type { YamlDocument } from '../core/yaml'
import type { YamlValue } from '../core/yaml-value'
import type { SkillTriggers } from '../runtime/skill/types'
import type { MetadataList } from './metadata-form'
import { didYouMean } from '../core/did-you-mean'
import { isYamlMapping } from '../core/yaml-value'
import { globLimitProblem, MAX_TRIGGERS, phraseLengthProblem, topicProblem } from '../runtime/skill/trigger-limits'
import { metadataList, metadataOf, splitList, TRIGGER_PREFIX, triggerKeys } from './metadata-form'

const TRIGGER_KEYS = ['paths', 'topics', 'projects', 'always_active']
/** Letters, digits, `_`, `-` and `#` (one digit). */
const PROJECT_CODE = /^[A-Za-z0-9#][\w#-]*$/

/** Why a gitignore-style glob can never match as its author meant, or `undefined` if it is fine. */
export function globProblem(glob: string): string | undefined {
  if (glob.startsWith('#'))
    return 'starts with "#", which .gitignore reads as a comment; write \\# for a literal #'
  if (/(?:^|[^\\])(?:\\\\)*\\$/.test(glob))
    return 'ends with a lone backslash'
  if (glob === '!' || glob === '/' || glob === '!/')
    return 'matches nothing'
  if (/(?:^|\/)\.\.(?:\/|$)/.test(glob))
    return 'contains "..": paths are matched inside the working folder'
  if (/^[A-Za-z]:[\\/]/.test(glob) || glob.includes('\\\\'))
    return 'is a Windows path; use forward slashes relative to the working folder'
  let open = -1
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === '\\')
      i++
    else if (glob[i] === '[' && open < 0)
      open = i
    else if (glob[i] === ']' && open >= 0 && i > open + 1)
      open = -1
  }
  if (open >= 0)
    return 'has a "[" without a closing "]"'
  return undefined
}

/** A trigger list as written: its name in messages, its value, and where it and each item are. */
interface ListField {
  name: string
  value: YamlValue
  at: (index?: number) => Position
}

/** A field of the YAML form, located through the document. */
function yamlField(path: (string | number)[], value: YamlValue, doc: YamlDocument): ListField {
  return { name: path.join('.'), value, at: index => doc.locate(index === undefined ? path : [...path, index]) }
}

/** A comma-separated metadata value as a list field. */
function metadataField(list: MetadataList): ListField {
  return { name: `metadata.${list.key}`, value: list.items, at: index => index === undefined ? list.at() : list.itemAt(index) }
}

/** A list of non-empty strings, or diagnostics at the offending entries. */
function stringList(field: ListField, what: string, example: string, bag: DiagnosticBag): string[] | undefined {
  const { name, value } = field
  if (!Array.isArray(value)) {
    bag.error('trigger-invalid', `"${name}" must be a list of ${what}, e.g. ${name.split('.').pop()}: [${example}].`, field.at())
    return undefined
  }
  if (value.length === 0) {
    bag.error('trigger-invalid', `"${name}" is an empty list. Add ${what}, or remove the key.`, field.at())
    return undefined
  }
  if (value.length > MAX_TRIGGERS) {
    bag.error('trigger-too-many', `"${name}" lists ${value.length} entries; at most ${MAX_TRIGGERS} are allowed. Keep the ones that identify the skill best.`, field.at())
    return undefined
  }
  const items: string[] = []
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item.trim() === '')
      bag.error('trigger-invalid', `"${name}" item ${index + 1} must be a non-empty string.`, field.at(index))
    else items.push(item.trim())
  })
  return items.length === value.length ? items : undefined
}

/**
 * Validates `context_trigger`, its strict form under `metadata`
 * (`context_trigger.paths: "*.sql, supabase/**"`, see `metadata-form.ts`)
 * and Claude Code's top-level `paths` (a list or a comma-separated string),
 * and returns the normalised triggers; `null` when the skill has none.
 * `source` is the file's text, for the positions of metadata list items.
 */
export function readTriggers(frontmatter: Record<string, YamlValue>, doc: YamlDocument, bag: DiagnosticBag, source: string): SkillTriggers | null {
  const hasTrigger = 'context_trigger' in frontmatter
  const hasPaths = 'paths' in frontmatter
  const metaKeys = triggerKeys(frontmatter)
  const metadata = metadataOf(frontmatter)
  if (metadata && 'context_trigger' in metadata)
    bag.error('trigger-invalid', `"metadata.context_trigger" is not read: give each trigger its own string key, e.g. ${TRIGGER_PREFIX}paths: "*.sql, supabase/**".`, doc.locate(['metadata', 'context_trigger'], 'key'))
  if (!hasTrigger && !hasPaths && metaKeys.length === 0)
    return null
  const triggers: SkillTriggers = { paths: [], topics: [], projects: [], alwaysActive: false }
  let pathsGiven = false

  if (hasTrigger && metaKeys.length > 0) {
    bag.error('trigger-invalid', `Triggers are given twice, in "context_trigger" and in "metadata.${metaKeys[0]}". Keep one form.`, doc.locate(['metadata', metaKeys[0]!], 'key'))
  }
  else if (hasTrigger) {
    const trigger = frontmatter.context_trigger!
    if (!isYamlMapping(trigger)) {
      bag.error('trigger-invalid', '"context_trigger" must be a mapping with paths, topics, projects or always_active.', doc.locate(['context_trigger']))
      return null
    }
    for (const key of Object.keys(trigger)) {
      if (!TRIGGER_KEYS.includes(key)) {
        bag.error('trigger-unknown-key', `Unknown key "context_trigger.${key}".${didYouMean(key, TRIGGER_KEYS, known => known in trigger)} Use paths, topics, projects or always_active.`, doc.locate(['context_trigger', key], 'key'))
      }
    }
    if (Object.keys(trigger).length === 0)
      bag.error('trigger-invalid', '"context_trigger" is empty, so the skill could never activate. Add paths, topics or projects, or remove it.', doc.locate(['context_trigger']))
    const field = (key: string) => yamlField(['context_trigger', key], trigger[key]!, doc)
    pathsGiven = 'paths' in trigger
    readTriggerFields(triggers, key => key in trigger ? field(key) : undefined, bag)
    if ('always_active' in trigger) {
      if (typeof trigger.always_active === 'boolean')
        triggers.alwaysActive = trigger.always_active
      else bag.error('trigger-invalid', '"context_trigger.always_active" must be true or false.', doc.locate(['context_trigger', 'always_active']))
    }
  }
  else if (metaKeys.length > 0) {
    for (const key of metaKeys) {
      const short = key.slice(TRIGGER_PREFIX.length)
      if (!TRIGGER_KEYS.includes(short)) {
        bag.error('trigger-unknown-key', `Unknown key "metadata.${key}".${didYouMean(short, TRIGGER_KEYS, known => metaKeys.includes(TRIGGER_PREFIX + known), known => TRIGGER_PREFIX + known)} Use ${TRIGGER_KEYS.map(k => TRIGGER_PREFIX + k).join(', ')}.`, doc.locate(['metadata', key], 'key'))
      }
    }
    const list = (key: string) => metadataList(frontmatter, TRIGGER_PREFIX + key, doc, source)
    pathsGiven = metaKeys.includes(`${TRIGGER_PREFIX}paths`)
    readTriggerFields(triggers, (key) => {
      const found = list(key)
      return found && metadataField(found)
    }, bag)
    const always = metadata![`${TRIGGER_PREFIX}always_active`]
    if (typeof always === 'string') {
      if (always === 'true' || always === 'false')
        triggers.alwaysActive = always === 'true'
      else bag.error('trigger-invalid', `"metadata.${TRIGGER_PREFIX}always_active" must be "true" or "false".`, doc.locate(['metadata', `${TRIGGER_PREFIX}always_active`]))
    }
  }

  if (hasPaths) {
    if (pathsGiven) {
      const other = hasTrigger ? 'context_trigger.paths' : `metadata.${TRIGGER_PREFIX}paths`
      bag.error('trigger-invalid', `Paths are given twice, in "paths" and in "${other}". Keep one of them.`, doc.locate(['paths'], 'key'))
    }
    else {
      const value = frontmatter.paths!
      const list = typeof value === 'string' ? splitList(value) : value
      if (typeof value === 'string' && (list as string[]).length === 0)
        bag.error('trigger-invalid', '"paths" is empty. List globs, e.g. paths: "src/db/**, *.sql", or remove it.', doc.locate(['paths']))
      else triggers.paths = readGlobs({ ...yamlField(['paths'], list, doc), at: index => Array.isArray(value) && index !== undefined ? doc.locate(['paths', index]) : doc.locate(['paths']) }, bag)
    }
  }
  return triggers
}

/** Reads paths, topics and projects from whichever form `field` looks them up in. */
function readTriggerFields(triggers: SkillTriggers, field: (key: string) => ListField | undefined, bag: DiagnosticBag): void {
  const paths = field('paths')
  if (paths)
    triggers.paths = readGlobs(paths, bag)
  const topics = field('topics')
  if (topics) {
    const phrases = stringList(topics, 'keywords or phrases', 'database, schema migration', bag) ?? []
    triggers.topics = phrases.filter((topic, index) => {
      const problem = topicProblem(topic)
      if (problem)
        bag.error('trigger-invalid', `Topic "${quoted(topic)}" ${problem}.`, topics.at(index))
      return !problem
    })
  }
  const projects = field('projects')
  if (projects) {
    const codes = stringList(projects, 'project codes', '"E##"', bag) ?? []
    codes.forEach((code, index) => {
      const tooLong = phraseLengthProblem(code)
      if (tooLong)
        bag.error('trigger-invalid', `Project code "${quoted(code)}" ${tooLong}.`, projects.at(index))
      else if (PROJECT_CODE.test(code))
        triggers.projects.push(code)
      else bag.error('trigger-invalid', `Project code "${code}" may only use letters, digits, "_", "-" and "#" (one digit), e.g. "E##".`, projects.at(index))
    })
  }
}

/** A trigger as a message quotes it: long ones cut, the length is in the message. */
function quoted(trigger: string): string {
  return trigger.length > 60 ? `${trigger.slice(0, 60)}…` : trigger
}

function readGlobs(field: ListField, bag: DiagnosticBag): string[] {
  const globs = stringList(field, 'globs with .gitignore semantics', '"*.sql", "supabase/**"', bag) ?? []
  return globs.filter((glob, index) => {
    const problem = globProblem(glob) ?? globLimitProblem(glob)
    if (problem)
      bag.error('trigger-glob-invalid', `Glob "${quoted(glob)}" ${problem}.`, field.at(index))
    return !problem
  })
}
