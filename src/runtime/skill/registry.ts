import type { SkillUpdate } from './hot'
import type { RegistrySkill, Skill } from './types'
import { notifySkillUpdate } from './hot'

/** What the registry module knows of a skill at build time: everything but the loaders. */
export type RegistryEntry = Omit<RegistrySkill, 'load' | 'readSection'>

// Symbols from the global registry: Vite may serve two copies of the runtime (the one
// generated modules import and the one an app imports), and both must see one state.
/** A registry skill's content version (dev server only). */
const VERSION = Symbol.for('unplugin-skill-kit.skill-version')
/** How often a registry array was patched. */
const GENERATION = Symbol.for('unplugin-skill-kit.registry-generation')

type Versioned = RegistrySkill & { [VERSION]?: string }
type Live = readonly object[] & { [GENERATION]?: number }

/**
 * The skills of `virtual:skill-kit/skills`. Each `load` imports the skill's
 * own chunk once; a failed import is retried on the next call. `versions`
 * (dev server only) identify each skill's content, so that an update knows
 * which skills changed.
 */
export function createRegistry(
  entries: readonly RegistryEntry[],
  loaders: readonly (() => Promise<{ default: Skill }>)[],
  versions?: readonly string[],
): RegistrySkill[] {
  return entries.map((entry, index) => {
    let loading: Promise<Skill> | undefined
    const load = () => (loading ??= loaders[index]!().then(module => module.default, (error: unknown) => {
      loading = undefined
      throw error
    }))
    const skill: RegistrySkill = {
      ...entry,
      load,
      readSection: async (ref, options) => (await load()).readSection(ref, options),
    }
    if (versions)
      Object.defineProperty(skill, VERSION, { value: versions[index], writable: true })
    return skill
  })
}

/**
 * Patches a registry in place with its next version (from a hot update):
 * the array and each skill object stay the same, so whoever holds them sees
 * the new skills; a changed skill gets its new fields and a `load` that
 * imports the new body. Then tells the `onSkillUpdate` handlers.
 */
export function patchRegistry(registry: RegistrySkill[], next: readonly RegistrySkill[]): void {
  const byFile = new Map((registry as Versioned[]).map(skill => [skill.file, skill]))
  const update: Required<SkillUpdate> = { registry, added: [], changed: [], removed: [] }
  const patched = (next as Versioned[]).map((skill) => {
    const old = byFile.get(skill.file)
    if (!old) {
      update.added.push(skill.name)
      return skill
    }
    byFile.delete(skill.file)
    if (old[VERSION] !== skill[VERSION]) {
      for (const key of Object.keys(old))
        delete (old as unknown as Record<string, unknown>)[key]
      Object.assign(old, skill)
      old[VERSION] = skill[VERSION]
      update.changed.push(skill.name)
    }
    return old
  })
  update.removed = [...byFile.values()].map(skill => skill.name)
  const moved = patched.some((skill, i) => registry[i] !== skill) || patched.length !== registry.length
  if (!moved && update.changed.length === 0)
    return
  registry.splice(0, registry.length, ...patched)
  const live = registry as Live
  live[GENERATION] = (live[GENERATION] ?? 0) + 1
  notifySkillUpdate(update)
}

/**
 * How often a skill list was patched by a hot update; 0 for any other list.
 * The skill tool and activation compare it to rebuild what they derived.
 */
export function registryGeneration(skills: readonly object[]): number {
  return (skills as Live)[GENERATION] ?? 0
}
