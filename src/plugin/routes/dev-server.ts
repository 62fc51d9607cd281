// The Vite dev server and routed index pages: routing a knowledge folder again
// when its documents or settings change, and handing the page the new pages
// through HMR, as knowledge/dev-server.ts does for knowledge modules (same file
// events, same rebuild loop: bursts settle, builds never overlap, a build a
// change made stale is dropped). Routing is cache-only here, so an edit never
// asks a paid model; the folder's memo re-parses and re-cards only what changed.

import type { ViteDevServer } from 'vite'
import type { RoutesOutcome } from './service'
import type { PluginState } from '../state'
import type { FolderRebuildEvent } from '../folders/dev-rebuild'
import { PROGRESS_PREFIX } from '../../knowledge/progress'
import { routesModuleId } from './routes-kind'
import { rebuildListeners, watchFolderRebuilds } from '../folders/dev-rebuild'

/**
 * What a routes rebuild tells of the pages it delivered: `carded`, the
 * documents (paths) whose card was made again (the others' came from the
 * memo); `uncached`, the documents the routing model has no cached answer
 * for, described by the offline router.
 */
export interface RoutesRebuildDetails {
  carded: readonly string[]
  uncached: readonly string[]
}

/** A step of a dev-server rebuild of routed index pages. */
export type RoutesRebuildEvent = FolderRebuildEvent<RoutesRebuildDetails>

/** The plugin's `api` for the dev server's routes rebuilds (see `vite-api.ts`). */
export interface RoutesViteApi {
  /** Calls `listener` at each step of each rebuild of routed index pages; returns a function that stops it. */
  onRoutesRebuild: (listener: (event: RoutesRebuildEvent) => void) => () => void
}

const listeners = rebuildListeners<RoutesRebuildEvent>()

export function routesViteApi(state: PluginState): RoutesViteApi {
  return { onRoutesRebuild: listener => listeners.on(state, listener) }
}

export function watchRoutes(server: ViteDevServer, state: PluginState): void {
  const { routes } = state
  const logger = server.config.logger
  routes.onWarning = message => logger.warn(`${PROGRESS_PREFIX}${message}`, { timestamp: true })
  watchFolderRebuilds<RoutesOutcome, RoutesRebuildDetails>(server, state, {
    folders: routes.builds,
    build: target => routes.rebuild(target),
    moduleId: target => routesModuleId(target, false, state.root),
    emit: event => listeners.emit(state, event),
    details: ({ stats }) => ({ carded: stats.carded, uncached: stats.uncached }),
    lines: {
      updated: (name, ms, what) => `${name}: routed index pages updated in ${ms} ms (${what})`,
      discarded: name => `${name}: files changed while the index pages were routed; routing again`,
      threw: (name, message) => `${name}: routing the index pages failed: ${message}`,
    },
  })
}
