// Hot updates in the Vite dev server: the handlers of `onSkillUpdate`, called once per update message.
import type { RegistrySkill } from './types'

/** What a hot update in the Vite dev server changed, by skill name. */
export interface SkillUpdate {
  /** The registry, already patched in place, when the update reached `virtual:skill-kit/skills`. */
  registry?: readonly RegistrySkill[]
  /** Skills that are new (a new file). */
  added: string[]
  /** Skills whose file, listing or body changed (under their new name when renamed). */
  changed: string[]
  /** Skills that are gone. */
  removed: string[]
}

type Handler = (update: SkillUpdate) => void
interface Hub {
  handlers: Set<Handler>
  pending: SkillUpdate | undefined
}

// On `globalThis` under a registered symbol: Vite may serve two copies of the runtime (the one
// generated modules import and the one an app imports), and both must share the handlers.
const HUB = Symbol.for('unplugin-skill-kit.skill-updates')

function hub(): Hub {
  const global = globalThis as { [HUB]?: Hub }
  return global[HUB] ??= { handlers: new Set(), pending: undefined }
}

/**
 * Reports what a module's update changed. One update message can patch the
 * registry and a skill module: the handlers run once, after all of them.
 */
export function notifySkillUpdate(update: SkillUpdate): void {
  const state = hub()
  if (state.pending) {
    const merged = state.pending
    merged.registry ??= update.registry
    for (const key of ['added', 'changed', 'removed'] as const)
      merged[key] = [...new Set([...merged[key], ...update[key]])]
    return
  }
  state.pending = update
  queueMicrotask(() => {
    const ready = state.pending!
    state.pending = undefined
    for (const handler of state.handlers)
      handler(ready)
  })
}

/**
 * Calls `handler` after each hot update of skills in the Vite dev server,
 * once `virtual:skill-kit/skills` and the skills you imported are patched in
 * place: re-render from the registry or skill you hold. They never reload
 * and always read fresh skills; this is the one line that tells you when to
 * look again. Returns a function that removes the handler. Builds never
 * call it.
 *
 * @example
 * import skills from 'virtual:skill-kit/skills'
 * onSkillUpdate(() => render(skills))
 */
export function onSkillUpdate(handler: (update: SkillUpdate) => void): () => void {
  const { handlers } = hub()
  handlers.add(handler)
  return () => {
    handlers.delete(handler)
  }
}
