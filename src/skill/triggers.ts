import type { DiagnosticBag } from '../core/diagnostics'
import type { YamlDocument, YamlValue } from '../core/yaml'
import type { SkillTriggers } from '../runtime/skill/types'
import { closest } from '../core/text'
import { isYamlMapping } from '../core/yaml'

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

/** A list of non-empty strings, or diagnostics at the offending entries. */
function stringList(value: YamlValue, path: (string | number)[], what: string, example: string, doc: YamlDocument, bag: DiagnosticBag): string[] | undefined {
  const name = path.join('.')
  if (!Array.isArray(value)) {
    bag.error('trigger-invalid', `"${name}" must be a list of ${what}, e.g. ${name.split('.').pop()}: [${example}].`, doc.locate(path))
    return undefined
  }
  if (value.length === 0) {
    bag.error('trigger-invalid', `"${name}" is an empty list. Add ${what}, or remove the key.`, doc.locate(path))
    return undefined
  }
  const items: string[] = []
  value.forEach((item, index) => {
    if (typeof item !== 'string' || item.trim() === '')
      bag.error('trigger-invalid', `"${name}" item ${index + 1} must be a non-empty string.`, doc.locate([...path, index]))
    else items.push(item.trim())
  })
  return items.length === value.length ? items : undefined
}

/**
 * Validates `context_trigger` and Claude Code's top-level `paths` (a list or
 * a comma-separated string), and returns the normalised triggers; `null`
 * when the skill has none.
 */
export function readTriggers(frontmatter: Record<string, YamlValue>, doc: YamlDocument, bag: DiagnosticBag): SkillTriggers | null {
  const hasTrigger = 'context_trigger' in frontmatter
  const hasPaths = 'paths' in frontmatter
  if (!hasTrigger && !hasPaths)
    return null
  const triggers: SkillTriggers = { paths: [], topics: [], projects: [], alwaysActive: false }

  if (hasTrigger) {
    const trigger = frontmatter.context_trigger!
    if (!isYamlMapping(trigger)) {
      bag.error('trigger-invalid', '"context_trigger" must be a mapping with paths, topics, projects or always_active.', doc.locate(['context_trigger']))
      return null
    }
    for (const key of Object.keys(trigger)) {
      if (!TRIGGER_KEYS.includes(key)) {
        const guess = closest(key, TRIGGER_KEYS)
        bag.error('trigger-unknown-key', `Unknown key "context_trigger.${key}".${guess ? ` Did you mean "${guess}"?` : ''} Use paths, topics, projects or always_active.`, doc.locate(['context_trigger', key], 'key'))
      }
    }
    if (Object.keys(trigger).length === 0)
      bag.error('trigger-invalid', '"context_trigger" is empty, so the skill could never activate. Add paths, topics or projects, or remove it.', doc.locate(['context_trigger']))
    if ('paths' in trigger)
      triggers.paths = readGlobs(trigger.paths!, ['context_trigger', 'paths'], doc, bag)
    if ('topics' in trigger)
      triggers.topics = stringList(trigger.topics!, ['context_trigger', 'topics'], 'keywords or phrases', 'database, schema migration', doc, bag) ?? []
    if ('projects' in trigger) {
      const projects = stringList(trigger.projects!, ['context_trigger', 'projects'], 'project codes', '"E##"', doc, bag) ?? []
      projects.forEach((code, index) => {
        if (PROJECT_CODE.test(code))
          triggers.projects.push(code)
        else bag.error('trigger-invalid', `Project code "${code}" may only use letters, digits, "_", "-" and "#" (one digit), e.g. "E##".`, doc.locate(['context_trigger', 'projects', index]))
      })
    }
    if ('always_active' in trigger) {
      if (typeof trigger.always_active === 'boolean')
        triggers.alwaysActive = trigger.always_active
      else bag.error('trigger-invalid', '"context_trigger.always_active" must be true or false.', doc.locate(['context_trigger', 'always_active']))
    }
  }

  if (hasPaths) {
    if (triggers.paths.length > 0 || (isYamlMapping(frontmatter.context_trigger) && 'paths' in frontmatter.context_trigger)) {
      bag.error('trigger-invalid', 'Paths are given twice, in "paths" and in "context_trigger.paths". Keep one of them.', doc.locate(['paths'], 'key'))
    }
    else {
      const value = frontmatter.paths!
      const list = typeof value === 'string' ? value.split(',').map(p => p.trim()).filter(Boolean) : value
      if (typeof value === 'string' && (list as string[]).length === 0)
        bag.error('trigger-invalid', '"paths" is empty. List globs, e.g. paths: "src/db/**, *.sql", or remove it.', doc.locate(['paths']))
      else triggers.paths = readGlobs(list, ['paths'], doc, bag)
    }
  }
  return triggers
}

function readGlobs(value: YamlValue, path: (string | number)[], doc: YamlDocument, bag: DiagnosticBag): string[] {
  const globs = stringList(value, path, 'globs with .gitignore semantics', '"*.sql", "supabase/**"', doc, bag) ?? []
  return globs.filter((glob, index) => {
    const problem = globProblem(glob)
    if (problem) {
      const at = Array.isArray(value) ? doc.locate([...path, index]) : doc.locate(path)
      bag.error('trigger-glob-invalid', `Glob "${glob}" ${problem}.`, at)
    }
    return !problem
  })
}
