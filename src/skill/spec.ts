import type { DiagnosticBag } from '../core/diagnostics'
import type { YamlDocument } from '../core/yaml'
import type { YamlValue } from '../core/yaml-value'
import { didYouMean } from '../core/did-you-mean'
import { isYamlMapping } from '../core/yaml-value'

/** Fields of the Agent Skills specification. */
const SPEC_FIELDS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools']
/** Extensions this package reads: progressive structure, conditional activation, bundled files. */
const EXTENSION_FIELDS = ['progressive', 'context_trigger', 'paths', 'resources']
/** Fields Claude Code reads; known, so not reported as typos. */
const CLAUDE_CODE_FIELDS = ['argument-hint', 'arguments', 'disable-model-invocation', 'user-invocable', 'disallowed-tools', 'model', 'effort', 'context', 'agent', 'background', 'hooks', 'shell', 'when_to_use', 'version']

/** Every frontmatter field that is not reported as unknown. */
export const KNOWN_FIELDS: readonly string[] = [...SPEC_FIELDS, ...EXTENSION_FIELDS, ...CLAUDE_CODE_FIELDS]

const NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const NAME_MAX = 64
export const DESCRIPTION_MAX = 1024
export const COMPATIBILITY_MAX = 500

/** Turns any text into a valid skill name, for suggestions. */
export function toSkillName(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, NAME_MAX).replace(/-+$/, '')
}

/** Whether `name` passes every rule on a skill name, the match with its folder or file aside. */
export function isValidSkillName(name: string): boolean {
  return name.length <= NAME_MAX && NAME.test(name)
}

/**
 * The fix to suggest for a missing or invalid name, starting with `verb`
 * (`Use`, `Add`): a name that passes every rule, the match with the folder
 * (`SKILL.md`) or file stem (`x.skill.md`) included, so that the fix leads to
 * no next error. That is the folder's or stem's own name when it is valid;
 * else no name can match it, so the fix renames the folder or file too.
 * The name ends the sentence unpunctuated, to be copied as it is.
 */
export function nameFix(verb: 'Use' | 'Add', expectedName: string, expectedFrom: 'folder' | 'file'): string {
  if (isValidSkillName(expectedName))
    return `${verb} name: ${expectedName}`
  const name = toSkillName(expectedName) || 'my-skill'
  const rename = expectedFrom === 'folder' ? `the folder "${expectedName}" to "${name}"` : `"${expectedName}.skill.md" to "${name}.skill.md"`
  return `Rename ${rename}, and ${verb.toLowerCase()} name: ${name}`
}

interface SpecContext {
  frontmatter: Record<string, YamlValue>
  doc: YamlDocument
  bag: DiagnosticBag
  /** The name the skill must have: its folder (`SKILL.md`) or file stem (`x.skill.md`). */
  expectedName: string
  /** Whether the file is a `SKILL.md` (so the name must match its folder) or a `x.skill.md`. */
  expectedFrom: 'folder' | 'file'
  strict: boolean
  /** The skill file's line `line` (1-based), as written: a fix that quotes a value quotes it as written. */
  sourceLine: (line: number) => string
}

/** Checks the frontmatter against the Agent Skills specification. */
export function validateSpec({ frontmatter, doc, bag, expectedName, expectedFrom, strict, sourceLine }: SpecContext): void {
  const at = (key: string) => doc.locate([key])
  const fm = frontmatter
  const fixName = (verb: 'Use' | 'Add') => nameFix(verb, expectedName, expectedFrom)

  if (!('name' in fm)) {
    bag.error('name-missing', `The frontmatter has no "name". ${fixName('Add')}`, doc.locate([]))
  }
  else if (typeof fm.name !== 'string' || fm.name.length === 0) {
    bag.error('name-invalid', `"name" must be a non-empty string of lowercase letters, digits and hyphens. ${fixName('Use')}`, at('name'))
  }
  else if (fm.name.length > NAME_MAX) {
    bag.error('name-too-long', `"name" has ${fm.name.length} characters; the limit is ${NAME_MAX}. ${fixName('Use')}`, at('name'))
  }
  else if (!NAME.test(fm.name)) {
    bag.error('name-invalid', `"name" must use only lowercase letters, digits and single hyphens, and not start or end with a hyphen. ${fixName('Use')}`, at('name'))
  }
  else if (fm.name !== expectedName) {
    const where = expectedFrom === 'folder' ? `its folder "${expectedName}"` : `its file name "${expectedName}.skill.md"`
    const message = `"name" is "${fm.name}" but must match ${where}. Rename one of them so they agree.`
    if (strict)
      bag.error('name-mismatch', message, at('name'))
    else bag.warning('name-mismatch', message, at('name'))
  }

  if (!('description' in fm)) {
    bag.error('description-missing', 'The frontmatter has no "description". Add one that says what the skill does and when to use it (1–1024 characters).', doc.locate([]))
  }
  else if (typeof fm.description !== 'string') {
    bag.error('description-invalid', '"description" must be a string. Quote it if YAML reads it as another type.', at('description'))
  }
  else if (fm.description.trim().length === 0) {
    bag.error('description-empty', '"description" is empty. Say what the skill does and when to use it (1–1024 characters).', at('description'))
  }
  else if (fm.description.length > DESCRIPTION_MAX) {
    bag.error('description-too-long', `"description" has ${fm.description.length} characters; the limit is ${DESCRIPTION_MAX}. Move details into the body.`, at('description'))
  }

  if ('license' in fm && typeof fm.license !== 'string')
    bag.error('license-invalid', '"license" must be a string, e.g. license: Apache-2.0', at('license'))

  if ('compatibility' in fm) {
    if (typeof fm.compatibility !== 'string' || fm.compatibility.trim().length === 0)
      bag.error('compatibility-invalid', '"compatibility" must be a non-empty string describing environment requirements.', at('compatibility'))
    else if (fm.compatibility.length > COMPATIBILITY_MAX)
      bag.error('compatibility-too-long', `"compatibility" has ${fm.compatibility.length} characters; the limit is ${COMPATIBILITY_MAX}. Shorten it.`, at('compatibility'))
  }

  if ('metadata' in fm) {
    const metadata = fm.metadata
    if (!isYamlMapping(metadata)) {
      bag.error('metadata-invalid', '"metadata" must be a mapping of string keys to string values.', at('metadata'))
    }
    else {
      for (const [key, value] of Object.entries(metadata)) {
        if (typeof value === 'string')
          continue
        const position = doc.locate(['metadata', key])
        bag.error('metadata-invalid', `"metadata.${key}" must be a string. ${typeof value === 'object' && value !== null ? 'Write it as one string.' : `Quote the value, e.g. ${quotedScalar(key, sourceLine(position.line).slice(position.column - 1))}`}`, position)
      }
    }
  }

  if ('allowed-tools' in fm) {
    const tools = fm['allowed-tools']
    const ok = typeof tools === 'string' || (Array.isArray(tools) && tools.every(t => typeof t === 'string'))
    if (!ok)
      bag.error('allowed-tools-invalid', '"allowed-tools" must be a space-separated string (or a list of strings) of tool names, e.g. allowed-tools: Read Grep Bash(git:*)', at('allowed-tools'))
  }

  for (const key of Object.keys(fm)) {
    if (KNOWN_FIELDS.includes(key))
      continue
    bag.warning('field-unknown', `Unknown frontmatter field "${key}".${didYouMean(key, KNOWN_FIELDS, field => field in fm)} Agents ignore it; put custom data under "metadata".`, doc.locate([key], 'key'))
  }
}

/**
 * `key: "value"`: a scalar as written (`1.10`, not the number 1.1 it reads
 * as), its trailing comment left out, as a YAML double-quoted string.
 */
function quotedScalar(key: string, written: string): string {
  const text = written.replace(/\s+#.*$/, '').trim()
  return `${/^[\w.-]+$/.test(key) ? key : JSON.stringify(key)}: ${JSON.stringify(text)}`
}
