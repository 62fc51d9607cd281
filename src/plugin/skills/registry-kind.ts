// `virtual:skill-kit/skills`: every skill of the registry folders.

import type { CompiledSkill } from '../../skill/compile'
import type { PluginState } from '../state'
import type { ModuleKind } from '../kind'
import { resolve } from 'node:path'
import { discoverSkills } from '../../skill/discover'
import { generateRegistry } from './codegen'
import { DEFAULT_SKILL_DIRS } from '../options'
import { compileReported, failedModule } from './report'

export const REGISTRY_ID = 'virtual:skill-kit/skills'
/** Where ids are file names (`idsAsFiles`) the registry is a (never written) file; elsewhere `\0` marks it virtual. */
const REGISTRY_FILE = '__skill-kit-skills__.js'

/** The registry's resolved id in this bundler. */
export function registryId(state: PluginState): string {
  return state.bundler.idsAsFiles ? REGISTRY_FILE : `\0${REGISTRY_ID}`
}

/** The registry folders, absolute. */
export function registryDirs(state: PluginState): string[] {
  return (state.options.skills?.dirs ?? DEFAULT_SKILL_DIRS).map(dir => resolve(state.root, dir))
}

export function registryKind(state: PluginState): ModuleKind {
  const codegen = { runtime: () => state.runtime(), relativize: state.relativize, hot: () => state.viteServe !== undefined }
  return {
    name: 'registry',
    ids: /__skill-kit-skills__\.js$/,
    virtualId: request => request === REGISTRY_ID ? registryId(state) : undefined,

    resolveId(source) {
      return source === REGISTRY_ID || source === registryId(state) ? registryId(state) : undefined
    },

    owns: id => id === registryId(state),

    /** The registry, or `undefined` after reporting an invalid skill or a name used twice. */
    load(id, context) {
      const dirs = registryDirs(state)
      const files: string[] = []
      const skills: CompiledSkill[] = []
      const failed: string[] = []
      // Every invalid skill is reported (once per build, by whichever module loads it first), not only the first.
      for (const file of discoverSkills(dirs)) {
        const skill = compileReported(context, state, file, id)
        if (!skill) {
          failed.push(file)
          continue
        }
        skills.push(skill.compiled)
        files.push(...skill.files)
      }
      if (failed.length)
        return failedModule(state, failed, id)
      const byName = new Map<string, CompiledSkill>()
      for (const skill of skills) {
        const other = byName.get(skill.name)
        if (other) {
          context.error(state.bundler.message(`Two skills are named "${skill.name}": ${state.relativize(other.file)} and ${state.relativize(skill.file)}. Skill names must be unique; rename one of them.`, undefined))
          return undefined
        }
        byName.set(skill.name, skill)
      }
      return { code: generateRegistry(skills, codegen), files, dirs }
    },
  }
}
