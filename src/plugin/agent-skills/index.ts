// The `agentSkills` option: each build's output gets the Agent Skills
// Discovery index (`.well-known/agent-skills/index.json`), its artefacts and
// the site's `llms.txt`, emitted at build start under fixed names, after the
// knowledge exports (which it publishes too), so every bundler that takes
// the exports takes these. The dev server publishes nothing.

import type { UnpluginBuildContext } from 'unplugin'
import type { EmittedExport } from '../export'
import type { AgentSkillsOptions } from '../options'
import type { PluginState } from '../state'
import type { SourcedSkill } from './sources'
import { readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { agentSkillsIndexJson, agentSkillsOutput, WELL_KNOWN_DIR } from '../../export/agent-skills-index'
import { ExportError } from '../../export/error'
import { siteLlmsTxt } from '../../export/site-llms-txt'
import { exportedSkills, registrySkills, unpublishable } from './sources'

/** The option with its defaults, or `undefined` when nothing is published. */
function settingsOf(option: boolean | AgentSkillsOptions | undefined): Required<Pick<AgentSkillsOptions, 'llmsTxt'>> & AgentSkillsOptions | undefined {
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
 * Emits the index, its artefacts and (unless `llmsTxt: false`) llms.txt into
 * the build's output, when the options ask for them. `exports` are the
 * knowledge exports this build emitted. A skill that cannot be published
 * throws an `ExportError` naming it and the fix.
 */
export function emitAgentSkills(context: UnpluginBuildContext, state: PluginState, exports: readonly EmittedExport[]): void {
  const settings = settingsOf(state.options.agentSkills)
  if (!settings)
    return
  const output = state.bundler.buildOutput(context)
  if ('missing' in output) {
    const error = new ExportError('invalid-options', `The agentSkills option writes the well-known skills index into the build output: ${output.missing}.`)
    error.stack = ''
    throw error
  }
  const knowledge = exportedSkills(exports)
  const skills = [...registrySkills(context, state), ...knowledge]
  assertUniqueNames(skills)
  const published = agentSkillsOutput(skills)
  output.emit(`${WELL_KNOWN_DIR}/index.json`, agentSkillsIndexJson(published))
  for (const file of published.files)
    output.emit(`${WELL_KNOWN_DIR}/${file.path}`, file.data)
  if (!settings.llmsTxt)
    return
  const fields = packageFields(state.root)
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
  output.emit('llms.txt', siteLlmsTxt({
    title: settings.title ?? text(fields.name) ?? basename(state.root),
    summary: settings.summary ?? text(fields.description) ?? '',
    skills: published.index.skills,
    knowledge: exports.map((exported, i) => ({
      name: knowledge[i]!.name,
      description: knowledge[i]!.description,
      path: `${exported.folder}/${exported.mode === 'routed' ? 'llms.txt' : 'SKILL.md'}`,
    })),
  }))
}
