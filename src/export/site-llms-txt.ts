// The site's llms.txt (llmstxt.org): an H1, a summary, and lists of links to
// what an agent can take from the build, the well-known skills and each
// exported knowledge base. Every link is the program's; every other text
// (a title, a description, a summary) is made plain and escaped, so that a
// hostile description leaves no link, image or HTML on the page.

import type { AgentSkillsEntry } from './agent-skills-index'
import { escapeMarkdown, inertText } from '../routing/plain-text'
import { WELL_KNOWN_DIR } from './agent-skills-index'

/** An exported knowledge base, as llms.txt lists it. */
export interface LlmsTxtKnowledge {
  /** Its skill name. */
  name: string
  description: string
  /** The file an agent starts from, relative to the output root: a routed export's llms.txt, a semantic export's SKILL.md. */
  path: string
}

export interface SiteLlmsTxtInput {
  title: string
  summary: string
  /** The index's entries (their `url` relative to {@link WELL_KNOWN_DIR}). */
  skills: readonly AgentSkillsEntry[]
  knowledge: readonly LlmsTxtKnowledge[]
}

/** A path of the output as a link target: each part percent-encoded, parentheses too (they would end the target). */
function target(path: string): string {
  return path.split('/').map(part => encodeURIComponent(part).replace(/\(/g, '%28').replace(/\)/g, '%29')).join('/')
}

/** Text from a person or a document as one inert, escaped line. */
function text(value: string): string {
  return escapeMarkdown(inertText(value))
}

/** llms.txt of the build output's root. */
export function siteLlmsTxt({ title, summary, skills, knowledge }: SiteLlmsTxtInput): string {
  const index = `${WELL_KNOWN_DIR}/index.json`
  const lines = [`# ${text(title) || 'Skills'}`, '']
  const said = text(summary)
  if (said)
    lines.push(`> ${said}`, '')
  lines.push(`Agent skills: the [Agent Skills Discovery index](${target(index)}) lists each with the SHA-256 digest of its file.`, '')
  if (skills.length > 0) {
    lines.push('## Skills', '')
    for (const skill of skills) {
      const kind = skill.type === 'archive' ? ' (its folder, as a .tar.gz)' : ''
      lines.push(`- [${skill.name}](${target(`${WELL_KNOWN_DIR}/${skill.url}`)}): ${text(skill.description)}${kind}`)
    }
    lines.push('')
  }
  if (knowledge.length > 0) {
    lines.push('## Knowledge bases', '')
    for (const base of knowledge)
      lines.push(`- [${base.name}](${target(base.path)}): ${text(base.description)}`)
    lines.push('')
  }
  return lines.join('\n')
}
