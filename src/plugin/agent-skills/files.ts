// What `agentSkills` publishes, by path in the output: the index, its
// artefacts and llms.txt, from the registry's skills and the knowledge
// exports of a build. Builds emit these (`index.ts`); the Vite dev server
// serves them (`dev-server.ts`).

import type { EmittedExport } from '../export'
import type { AgentSkillsOptions } from '../options'
import type { PluginState } from '../state'
import type { SourcedSkill } from './sources'
import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { agentSkillsIndexJson, agentSkillsOutput, WELL_KNOWN_DIR } from '../../export/agent-skills-index'
import { siteLlmsTxt } from '../../export/site-llms-txt'
import { exportedSkills, registrySkills, unpublishable } from './sources'

/** The option with its defaults, or `undefined` when nothing is published. */
function settingsOf(option: boolean | AgentSkillsOptions | undefined): AgentSkillsOptions & { llmsTxt: boolean } | undefined {
  if (!option)
    return undefined
  return { ...(option === true ? {} : option), llmsTxt: option === true || option.llmsTxt !== false }
}

/** The `name` and `description` of `package.json` in `root`, for llms.txt's defaults; nothing when there is none. */
function packageFields(root: string): { name?: unknown, description?: unknown } {
  try {
    return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown, description?: unknown }
  }
  catch {
    return {}
  }
}

/** Refuses two skills of one name: a client would fetch one of them under both. */
function assertUniqueNames(skills: readonly SourcedSkill[]): void {
  const seen = new Map<string, string>()
  for (const skill of skills) {
    const other = seen.get(skill.name)
    if (other)
      throw unpublishable(`Two published skills are named "${skill.name}": ${other} and ${skill.source}. Names in the well-known index must be unique: rename one (a knowledge base's skill takes the "name" of its skill-kit.json).`)
    seen.set(skill.name, skill.source)
  }
}

/**
 * What the options publish, by path relative to the output's root (the
 * index, its artefacts, llms.txt), or `undefined` when they publish nothing.
 * `exports` are the knowledge exports this build emitted; `watch` is told
 * the registry's files and folders. A skill that cannot be published throws
 * an `ExportError` naming it and the fix.
 */
export function agentSkillsFiles(state: PluginState, exports: readonly EmittedExport[], watch: (files: string[], dirs: string[]) => void): Map<string, Uint8Array | string> | undefined {
  const settings = settingsOf(state.options.agentSkills)
  if (!settings)
    return undefined
  const knowledge = exportedSkills(exports)
  const skills = [...registrySkills(state, watch), ...knowledge]
  assertUniqueNames(skills)
  const published = agentSkillsOutput(skills)
  const files = new Map<string, Uint8Array | string>([[`${WELL_KNOWN_DIR}/index.json`, agentSkillsIndexJson(published)]])
  for (const file of published.files)
    files.set(`${WELL_KNOWN_DIR}/${file.path}`, file.data)
  if (!settings.llmsTxt)
    return files
  const fields = packageFields(state.root)
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
  files.set('llms.txt', siteLlmsTxt({
    title: settings.title ?? text(fields.name) ?? basename(state.root),
    summary: settings.summary ?? text(fields.description) ?? '',
    skills: published.index.skills,
    knowledge: exports.map((exported, i) => ({
      name: knowledge[i]!.name,
      description: knowledge[i]!.description,
      path: `${exported.folder}/${exported.mode === 'routed' ? 'llms.txt' : 'SKILL.md'}`,
    })),
  }))
  return files
}
