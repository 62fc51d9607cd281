// What the agents and validators that `skill-kit validate --target` checks
// against reject or cut, as established from their sources (each fact with
// where it was read; nothing here is guessed, and what could not be
// established is left out):
//
// agentskills: the Agent Skills reference validator, `skills-ref validate`
// (github.com/agentskills/agentskills, commit 69ef37e):
// - skills-ref/src/skills_ref/validator.py: ALLOWED_FIELDS = name,
//   description, license, allowed-tools, metadata, compatibility; any other
//   top-level key fails with "Unexpected fields in frontmatter: … Only [...]
//   are allowed.". name: non-empty, at most 64 characters (after NFKC),
//   lowercase, no leading, trailing or double hyphen, letters, digits and
//   hyphens only, and equal to its directory's name ("Directory name '…'
//   must match skill name '…'"). description: non-empty, at most 1024
//   characters. compatibility: a string of at most 500 characters.
//   validate() takes a directory and looks for SKILL.md (or skill.md) in it.
// - skills-ref/src/skills_ref/parser.py: the frontmatter is parsed with
//   StrictYAML (`strictyaml.load`), and metadata values are turned into
//   strings (`{str(k): str(v)}`), so a nested metadata value passes the
//   validator though docs/specification.mdx defines metadata as "a map from
//   string keys to string values". StrictYAML refuses flow collections
//   ("Found ugly disallowed JSONesque flow mapping"), anchors and aliases and
//   tags (crdoconnor/strictyaml hitch/disallow.story); checked by running
//   validator.py on fixtures with StrictYAML 1.6.1.
// - No listing budget: skills-ref/src/skills_ref/prompt.py renders every
//   skill into <available_skills> with no limit, and the specification sets
//   none.
//
// claude: Claude Code (closed source; its documentation, mirrored in
// github.com/thevibeworks/claude-code-docs content/en/docs/claude-code/skills.md,
// commit 3f1ef7c, from code.claude.com/docs/en/skills):
// - Skills are <skills dir>/<name>/SKILL.md ("Where skills live").
// - Frontmatter it reads ("Frontmatter reference"): name, description,
//   when_to_use, argument-hint, arguments, disable-model-invocation,
//   user-invocable, allowed-tools, disallowed-tools, model, effort, context,
//   agent, background, hooks, paths, shell; metadata, license and
//   compatibility are accepted without effect. Nothing reads context_trigger.
// - "the combined description and when_to_use text is truncated at 1,536
//   characters in the skill listing" (setting skillListingMaxDescChars).
// - "Skill descriptions are cut short": the listing of names and
//   descriptions gets 1% of the model's context window (setting
//   skillListingBudgetFraction, or SLASH_COMMAND_TOOL_CHAR_BUDGET "to a fixed
//   character count"); "The listing always contains every skill name", and
//   on overflow "Claude Code drops descriptions starting with the skills you
//   invoke least". The documentation named "a fallback of 8,000 characters"
//   until its revision of 2026-05-11 (commit 9bb510d of the mirror); that is
//   the default used here. Skills with disable-model-invocation: true are not
//   in the listing ("Description not in context"). The listing's exact line
//   format is not public: entries are counted as `- name: description` lines.
//
// codex: OpenAI Codex CLI (github.com/openai/codex):
// - codex-rs/core-skills/src/loader.rs (commit c9d127c): only files named
//   SKILL.md are loaded; the frontmatter fields read are name, description
//   and metadata.short-description (serde ignores every other key); name
//   falls back to the folder's name; whitespace runs are collapsed to one
//   space; an empty description, a name over 64 characters, a description or
//   short-description over 1024 characters make the skill fail to load.
// - codex-rs/core-skills/src/render.rs (commit deae88d): each skill is listed
//   as `- {name}: {description} (file: {absolute path of SKILL.md})`, each
//   line plus its newline counted against a budget of 2% of the model's
//   context window in approximate tokens, or DEFAULT_SKILL_METADATA_CHAR_BUDGET
//   = 8,000 characters when the window is unknown (the default used here).
//   Skills are taken in order of scope (system, admin, repo, user), then name,
//   then path; a line that no longer fits is left out whole and the scan goes
//   on with the next ("Skills list trimmed to fit the metadata budget").
//   Later revisions shorten descriptions before leaving skills out; that
//   variant was not found on the repository's main line, so it is not modelled.

import type { Diagnostic, Position } from '../core/diagnostics'
import type { YamlDocument } from '../core/yaml'
import type { YamlValue } from '../core/yaml-value'
import type { CompiledSkill } from './compile'
import { basename, dirname } from 'node:path'
import { DiagnosticBag } from '../core/diagnostics'
import { splitFrontmatter } from '../core/frontmatter'
import { isYamlMapping } from '../core/yaml-value'
import { parseYaml } from '../core/yaml'
import { ALWAYS_KEY, metadataOf, PROGRESSIVE_KEY, RESOURCES_KEY, TRIGGER_PREFIX, triggerKeys } from './metadata-form'
import { strictYamlProblems } from './strict-yaml'

/** An agent or validator whose format `skill-kit validate --target` checks. */
export type Target = 'agentskills' | 'claude' | 'codex'

/** Every target, in the order reports list them. */
export const TARGETS: readonly Target[] = ['agentskills', 'claude', 'codex']

/** How reports name a target. */
export const TARGET_LABELS: Record<Target, string> = {
  agentskills: 'Agent Skills (skills-ref)',
  claude: 'Claude Code',
  codex: 'Codex',
}

/** The top-level keys the Agent Skills reference validator allows. */
export const AGENTSKILLS_FIELDS: readonly string[] = ['name', 'description', 'license', 'allowed-tools', 'metadata', 'compatibility']

/** Claude Code's cap on a skill's description plus when_to_use in its listing. */
export const CLAUDE_ENTRY_MAX = 1536
/** Claude Code's documented listing budget in characters when no other is set. */
export const CLAUDE_LISTING_BUDGET = 8000
/** Codex's listing budget in characters when the model's context window is unknown. */
export const CODEX_LISTING_BUDGET = 8000
/** Codex's limit on `metadata.short-description`. */
export const CODEX_SHORT_DESCRIPTION_MAX = 1024

/** Length in Unicode code points, as Rust's `chars().count()` and Python's `len` count. */
export function codePoints(text: string): number {
  let count = 0
  for (const _ of text)
    count++
  return count
}

/** The frontmatter document of a compiled skill, for positions; `undefined` without frontmatter. */
export function frontmatterDoc(skill: CompiledSkill): YamlDocument | undefined {
  const split = splitFrontmatter(skill.source)
  if (split.yaml === undefined || split.unclosed)
    return undefined
  const doc = parseYaml(split.yaml, split.yamlLine, new DiagnosticBag(skill.file))
  return isYamlMapping(doc.value) ? doc : undefined
}

/** A YAML value as a one-line string for a metadata key: lists joined with commas. */
function asMetadataString(value: YamlValue | undefined): string {
  if (Array.isArray(value))
    return value.map(v => String(v)).join(', ')
  return value === undefined || value === null ? '' : String(value)
}

/** `key: "value"` as a metadata line of the fix. */
function metadataLine(key: string, value: string): string {
  return `${key}: ${JSON.stringify(value)}`
}

/** The metadata lines that carry the same meaning as an extension key, for the fix in a message. */
function strictForm(key: string, frontmatter: Record<string, YamlValue>): string[] {
  const value = frontmatter[key]
  if (key === 'context_trigger') {
    return !isYamlMapping(value) ? [] : Object.entries(value).map(([k, v]) => metadataLine(TRIGGER_PREFIX + k, asMetadataString(v)))
  }
  if (key === 'paths')
    return [metadataLine(`${TRIGGER_PREFIX}paths`, typeof value === 'string' ? value : asMetadataString(value))]
  if (key === 'progressive') {
    const always = isYamlMapping(value) ? value.always : undefined
    return Array.isArray(always) && always.length > 0
      ? [metadataLine(ALWAYS_KEY, asMetadataString(always))]
      : [metadataLine(PROGRESSIVE_KEY, 'true')]
  }
  return [metadataLine(RESOURCES_KEY, asMetadataString(value))]
}

/** Our extension keys, which have a strict form under metadata. */
const EXTENSION_KEYS = ['context_trigger', 'paths', 'progressive', 'resources']

/** The frontmatter fields Claude Code reads ("Frontmatter reference"). */
const CLAUDE_FIELDS: readonly string[] = ['name', 'description', 'when_to_use', 'argument-hint', 'arguments', 'disable-model-invocation', 'user-invocable', 'allowed-tools', 'disallowed-tools', 'model', 'effort', 'context', 'agent', 'background', 'hooks', 'paths', 'shell', 'metadata', 'license', 'compatibility']

/** A skill's entry text in Claude Code's listing before its cap: description, then when_to_use. */
export function claudeEntryText(frontmatter: Record<string, YamlValue>): string {
  return [frontmatter.description, frontmatter.when_to_use].filter((t): t is string => typeof t === 'string' && t !== '').join(' ')
}

/** The message for a top-level key skills-ref rejects, with the fix. */
function rejectedFieldMessage(key: string, frontmatter: Record<string, YamlValue>): string {
  const head = `The Agent Skills reference validator rejects the field "${key}" ("Unexpected fields in frontmatter").`
  if (EXTENSION_KEYS.includes(key)) {
    const lines = strictForm(key, frontmatter)
    if (lines.length === 0)
      return `${head} For strict compliance, give each trigger its own string key under "metadata", which skill-kit reads too, e.g. ${metadataLine(`${TRIGGER_PREFIX}paths`, '*.sql, supabase/**')}.`
    const claude = key === 'paths' ? ' Claude Code then no longer limits the skill to those paths.' : ''
    return `${head} For strict compliance, replace it with ${lines.length === 1 ? 'this key' : 'these keys'} under "metadata", which skill-kit reads too: ${lines.join('; ')}.${claude}`
  }
  const readers = CLAUDE_FIELDS.includes(key) ? 'only Claude Code reads it' : 'no agent reads it'
  return `${head} Remove it, or move it under "metadata" as a string; ${readers}.`
}

/** Checks one skill against the Agent Skills reference validator. */
function checkAgentSkills(skill: CompiledSkill, doc: YamlDocument, bag: DiagnosticBag, split: { yaml: string, yamlLine: number }): void {
  const base = basename(skill.file)
  if (base !== 'SKILL.md') {
    const stem = base.replace(/\.skill\.md$/, '')
    bag.error('agentskills-not-skill-folder', `skills-ref validates a folder holding a SKILL.md; "${base}" is not one. Move it to ${stem}/SKILL.md.`, { line: 1, column: 1 })
  }
  for (const key of Object.keys(skill.frontmatter)) {
    if (!AGENTSKILLS_FIELDS.includes(key))
      bag.error('agentskills-field-rejected', rejectedFieldMessage(key, skill.frontmatter), doc.locate([key], 'key'))
  }
  for (const problem of strictYamlProblems(split.yaml, split.yamlLine)) {
    if (problem.kind === 'flow')
      bag.error('agentskills-yaml-flow', `The reference validator parses frontmatter with StrictYAML, which rejects flow collections ("${problem.text}…${problem.text === '[' ? ']' : '}'}"). Write a list one "- item" per line and a mapping one "key: value" per line, or quote the value if it is text.`, problem.at)
    else if (problem.kind === 'tag')
      bag.error('agentskills-yaml-tag', `The reference validator parses frontmatter with StrictYAML, which rejects tags ("${problem.text}"). Remove the tag; quote the value to keep it text.`, problem.at)
    else bag.error('agentskills-yaml-anchor', `The reference validator parses frontmatter with StrictYAML, which rejects anchors and aliases ("${problem.text}"). Write the value out in full.`, problem.at)
  }
  const mismatch = skill.diagnostics.find(d => d.code === 'name-mismatch')
  if (base === 'SKILL.md' && mismatch?.severity === 'warning')
    bag.error('agentskills-name-mismatch', `The reference validator requires the folder's name to equal "name" ("Directory name '${basename(dirname(skill.file))}' must match skill name '${skill.name}'"). Rename the folder or the name so they agree.`, mismatch)
}

/** Where the skill's trigger keys are, in either form, for a warning that an agent ignores them. */
function triggerPosition(skill: CompiledSkill, doc: YamlDocument): Position | undefined {
  if ('context_trigger' in skill.frontmatter)
    return doc.locate(['context_trigger'], 'key')
  const [first] = triggerKeys(skill.frontmatter)
  return first === undefined ? undefined : doc.locate(['metadata', first], 'key')
}

/** Checks one skill against Claude Code. */
function checkClaude(skill: CompiledSkill, doc: YamlDocument, bag: DiagnosticBag): void {
  const base = basename(skill.file)
  if (base !== 'SKILL.md')
    bag.error('claude-not-discovered', `Claude Code loads skills from <skills folder>/<name>/SKILL.md, so it never sees "${base}". Move it to ${base.replace(/\.skill\.md$/, '')}/SKILL.md.`, { line: 1, column: 1 })
  const trigger = triggerPosition(skill, doc)
  if (trigger) {
    const paths = skill.triggers && skill.triggers.paths.length > 0 && !('paths' in skill.frontmatter)
      ? ` For its paths, add the top-level key Claude Code reads: paths: ${JSON.stringify(skill.triggers.paths.join(', '))}.`
      : ''
    bag.warning('claude-field-ignored', `Claude Code does not read context_trigger: it lists this skill from the start instead of activating it on a match.${paths}`, trigger)
  }
  const entry = claudeEntryText(skill.frontmatter)
  if (codePoints(entry) > CLAUDE_ENTRY_MAX) {
    bag.warning('claude-description-truncated', `Claude Code cuts the combined description and when_to_use at ${CLAUDE_ENTRY_MAX.toLocaleString('en')} characters in its skill listing; this skill has ${codePoints(entry).toLocaleString('en')}. Put the key use case first, or shorten them.`, doc.locate(['description']))
  }
}

/** Checks one skill against Codex. */
function checkCodex(skill: CompiledSkill, doc: YamlDocument, bag: DiagnosticBag): void {
  const base = basename(skill.file)
  if (base !== 'SKILL.md')
    bag.error('codex-not-discovered', `Codex only loads files named SKILL.md, so it never sees "${base}". Move it to ${base.replace(/\.skill\.md$/, '')}/SKILL.md.`, { line: 1, column: 1 })
  const trigger = triggerPosition(skill, doc) ?? ('paths' in skill.frontmatter ? doc.locate(['paths'], 'key') : undefined)
  if (trigger)
    bag.warning('codex-field-ignored', 'Codex reads only name, description and metadata.short-description: it lists this skill from the start, whatever its triggers.', trigger)
  const short = metadataOf(skill.frontmatter)?.['short-description']
  if (typeof short === 'string' && codePoints(collapseWhitespace(short)) > CODEX_SHORT_DESCRIPTION_MAX)
    bag.error('codex-short-description-too-long', `Codex refuses to load a skill whose metadata.short-description has more than ${CODEX_SHORT_DESCRIPTION_MAX} characters; this one has ${codePoints(collapseWhitespace(short))}. Shorten it.`, doc.locate(['metadata', 'short-description']))
}

/** Whitespace runs as one space, trimmed, as Codex reads names and descriptions. */
export function collapseWhitespace(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(' ')
}

/**
 * What `target` would reject (errors) or cut (warnings) in one skill, in
 * reading order. A file without readable frontmatter gets nothing: the
 * skill's own diagnostics already say why.
 */
export function targetDiagnostics(skill: CompiledSkill, target: Target): Diagnostic[] {
  const doc = frontmatterDoc(skill)
  if (!doc)
    return []
  const bag = new DiagnosticBag(skill.file)
  if (target === 'agentskills') {
    const split = splitFrontmatter(skill.source)
    checkAgentSkills(skill, doc, bag, { yaml: split.yaml!, yamlLine: split.yamlLine })
  }
  else if (target === 'claude') {
    checkClaude(skill, doc, bag)
  }
  else {
    checkCodex(skill, doc, bag)
  }
  return bag.sorted()
}
