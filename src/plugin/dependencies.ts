import type { Dependencies, Loaded } from './kind'
import { sep } from 'node:path'

/**
 * What each module was last loaded from, by module id: the dev server asks
 * it which modules a file event makes stale, and serves the last valid code
 * of a module that became invalid. A module whose last load failed has no
 * dependencies, only that mark: whatever fixes it is unknown.
 */
export class ModuleDependencies {
  private readonly byId = new Map<string, Loaded | 'failed'>()
  /** Called with the folders a loaded module lists, so that the dev server watches them. */
  onDirs: ((dirs: string[]) => void) | undefined

  /** Records a load: the module, or `undefined` when it failed. */
  record(id: string, loaded: Loaded | undefined): void {
    this.byId.set(id, loaded ?? 'failed')
    if (loaded && loaded.dirs.length > 0)
      this.onDirs?.(loaded.dirs)
  }

  /** The module ids recorded, with their dependencies (`failed` when the last load failed). */
  entries(): IterableIterator<[string, Dependencies | 'failed']> {
    return this.byId.entries()
  }

  /** A module's last successful load. */
  lastLoaded(id: string): Loaded | undefined {
    const loaded = this.byId.get(id)
    return loaded === 'failed' ? undefined : loaded
  }

  /** Whether some module reads this file. */
  isDependency(file: string): boolean {
    for (const dependencies of this.byId.values()) {
      if (dependencies !== 'failed' && dependencies.files.includes(file))
        return true
    }
    return false
  }
}

/** A file event: `update` for an edit. */
export type FileEvent = 'create' | 'update' | 'delete'

/** Whether a module made from `dependencies` is stale after `event` on `file`. */
export function isStale(dependencies: Dependencies, file: string, event: FileEvent): boolean {
  return dependencies.files.includes(file)
    || (event !== 'update' && dependencies.dirs.some(dir => file === dir || file.startsWith(dir + sep)))
}
