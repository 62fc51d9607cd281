// What `agentSkills` publishes, each with where it came from (for messages):
// the skills of the registry folders, compiled as the registry compiles them,
// and the knowledge bases this build exported.

import type { PublishedSkill } from '../../export/agent-skills-index'
import type { EmittedExport } from '../export'
import type { PluginState } from '../state'
import { formatDiagnostic } from '../../core/diagnostics'
import { splitFrontmatter } from '../../core/frontmatter'
import { parseYaml } from '../../core/yaml'
import { DiagnosticBag } from '../../core/diagnostics'
import { ExportError } from '../../export/error'
import { skillFolderFiles } from '../../export/skill-folder-files'
import { archivePathProblem } from '../../export/tar-gz'
import { discoverSkills } from '../../skill/discover'
import { isValidSkillName } from '../../skill/spec'
import { registryDirs } from '../skills/registry-kind'

/** A skill to publish, and what it is in the project's own terms (`skill skills/x/SKILL.md`, `knowledge base "docs"`). */
export interface SourcedSkill extends PublishedSkill {
  source: string
}

/** An error whose message says all a person needs: no stack of the plugin's under it. */
export function unpublishable(message: string): ExportError {
  const error = new ExportError('skill-unpublishable', message)
  error.stack = ''
  return error
}

/**
 * The registry's skills, in path order, with their files. A skill with
 * errors fails as the registry does (every diagnostic); a skill loaded whole
 * (`onInvalid: 'fallback'`) is published only when its name is valid.
 * `watch` is told what they were made from, even when one fails, so that a
 * watch build publishes an edit or a fix.
 */
export function registrySkills(state: PluginState, watch: (files: string[], dirs: string[]) => void): SourcedSkill[] {
  const dirs = registryDirs(state)
  const skills: SourcedSkill[] = []
  const watched: string[] = []
  try {
    for (const file of discoverSkills(dirs)) {
      const { compiled, dependencies } = state.loader.load(file)
      watched.push(...dependencies)
      const shown = state.relativize(file)
      if (compiled.failed) {
        const list = compiled.diagnostics.map(d => formatDiagnostic(d, state.relativize)).join('\n')
        const error = new ExportError('build-failed', `Invalid skill ${shown}, which agentSkills publishes. Fix it, or set onInvalid: 'fallback' to load it whole:\n\n${list}`)
        error.stack = ''
        throw error
      }
      if (!isValidSkillName(compiled.name))
        throw unpublishable(`Skill ${shown} cannot be published: its name ${JSON.stringify(compiled.name)} is not a valid Agent Skills name (lowercase letters, digits and single hyphens, at most 64 characters). Fix its name.`)
      const files = skillFolderFiles({ name: compiled.name, file, resources: compiled.resources }, shown)
      skills.push({ name: compiled.name, description: compiled.description, files, source: `skill ${shown}` })
    }
  }
  finally {
    watch(watched, dirs)
  }
  return skills
}

/** `name` and `description` of a SKILL.md this package wrote (an export's). */
function exportedFields(skillMd: Uint8Array, file: string): { name: string, description: string } {
  const split = splitFrontmatter(new TextDecoder().decode(skillMd))
  const value = split.yaml === undefined ? undefined : parseYaml(split.yaml, split.yamlLine, new DiagnosticBag(file)).value
  const fields = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}) as Record<string, unknown>
  return { name: String(fields.name ?? ''), description: String(fields.description ?? '') }
}

/** Each exported knowledge base as a skill, under the name its SKILL.md gives it; a file no archive entry can hold throws, naming it. */
export function exportedSkills(exports: readonly EmittedExport[]): SourcedSkill[] {
  return exports.map((exported) => {
    const source = `knowledge base "${exported.base}"`
    const top = exported.files.find(file => file.path === 'SKILL.md')
    if (!top)
      throw new Error(`The export of ${source} has no SKILL.md`)
    for (const file of exported.files) {
      const problem = archivePathProblem(file.path)
      if (problem)
        throw unpublishable(`The export of ${source} cannot be published: its file ${file.path} cannot be packed (${problem}). Shorten the path of that document in the knowledge folder.`)
    }
    return { ...exportedFields(top.data, `${exported.folder}/SKILL.md`), files: exported.files, source }
  })
}
