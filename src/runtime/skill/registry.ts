import type { RegistrySkill, Skill } from './types'

/** What the registry module knows of a skill at build time: everything but the loaders. */
export type RegistryEntry = Omit<RegistrySkill, 'load' | 'readSection'>

/**
 * The skills of `virtual:skill-kit/skills`. Each `load` imports the skill's
 * own chunk once; a failed import is retried on the next call.
 */
export function createRegistry(entries: readonly RegistryEntry[], loaders: readonly (() => Promise<{ default: Skill }>)[]): RegistrySkill[] {
  return entries.map((entry, index) => {
    let loading: Promise<Skill> | undefined
    const load = () => (loading ??= loaders[index]!().then(module => module.default, (error: unknown) => {
      loading = undefined
      throw error
    }))
    return {
      ...entry,
      load,
      readSection: async (ref, options) => (await load()).readSection(ref, options),
    }
  })
}
