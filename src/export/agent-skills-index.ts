// The Agent Skills Discovery index (RFC v0.2.0,
// github.com/cloudflare/agent-skills-discovery-rfc): the published skills as
// `/.well-known/agent-skills/index.json` and the artefact files beside it,
// `<name>/SKILL.md` for a skill that is its SKILL.md alone and `<name>.tar.gz`
// for a folder with bundled files. Pure: the files come in as bytes.

import type { ArchiveFile } from './tar-gz'
import { createHash } from 'node:crypto'
import { inertText } from '../routing/plain-text'
import { DESCRIPTION_MAX, isValidSkillName } from '../skill/spec'
import { reproducibleTarGz } from './tar-gz'

/** The index's `$schema`: the version of the format, which clients match exactly. */
export const AGENT_SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json'

/** Where the index and its artefacts go, relative to the site's root. */
export const WELL_KNOWN_DIR = '.well-known/agent-skills'

/** A skill to publish: its name, its description, and its folder's files (`SKILL.md` at the top). */
export interface PublishedSkill {
  name: string
  description: string
  files: readonly ArchiveFile[]
}

/** One entry of the index, as the RFC names its fields. */
export interface AgentSkillsEntry {
  name: string
  type: 'skill-md' | 'archive'
  description: string
  /** Relative to the index, so that the site works under any base path. */
  url: string
  digest: string
}

/** The index and the artefact files, with paths relative to {@link WELL_KNOWN_DIR}. */
export interface AgentSkillsOutput {
  index: { $schema: string, skills: AgentSkillsEntry[] }
  files: ArchiveFile[]
}

/** `sha256:<hex>` of exactly these bytes, as the RFC's `digest`. */
export function artefactDigest(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`
}

/**
 * A description as the index states it: one line of plain text (no link,
 * address, HTML or control character: clients show it, and models read it,
 * before anything is verified), within the specification's 1,024 characters.
 */
export function indexDescription(description: string, name: string): string {
  const text = inertText(description) || `The ${name} skill.`
  return text.length <= DESCRIPTION_MAX ? text : `${text.slice(0, DESCRIPTION_MAX - 1).replace(/\s+\S*$/, '')}…`
}

/**
 * The index and artefacts of `skills`, sorted by name. A name that the Agent
 * Skills specification refuses, one used twice, or a skill without a
 * top-level SKILL.md is a bug of the caller (which says what to fix first).
 */
export function agentSkillsOutput(skills: readonly PublishedSkill[]): AgentSkillsOutput {
  const sorted = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const files: ArchiveFile[] = []
  const entries = sorted.map((skill, i): AgentSkillsEntry => {
    if (!isValidSkillName(skill.name) || skill.name === sorted[i - 1]?.name)
      throw new Error(`Invalid published skill name ${JSON.stringify(skill.name)}`)
    const top = skill.files.find(file => file.path === 'SKILL.md')
    if (!top)
      throw new Error(`Published skill ${skill.name} has no SKILL.md`)
    const alone = skill.files.length === 1
    const file = alone
      ? { path: `${skill.name}/SKILL.md`, data: top.data }
      : { path: `${skill.name}.tar.gz`, data: reproducibleTarGz(skill.files) }
    files.push(file)
    return {
      name: skill.name,
      type: alone ? 'skill-md' : 'archive',
      description: indexDescription(skill.description, skill.name),
      url: file.path,
      digest: artefactDigest(file.data),
    }
  })
  return { index: { $schema: AGENT_SKILLS_SCHEMA, skills: entries }, files }
}

/** The index as the file `index.json` holds it: two-space indented, with a final newline. */
export function agentSkillsIndexJson(output: AgentSkillsOutput): string {
  return `${JSON.stringify(output.index, null, 2)}\n`
}
