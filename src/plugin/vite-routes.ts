// The Vite dev server and routed index pages: routing a knowledge folder again
// when its documents or settings change, and handing the page the new pages
// through HMR, as vite-knowledge.ts does for knowledge modules (same file
// events, same rebuild loop: bursts settle, builds never overlap, a build a
// change made stale is dropped). Routing is cache-only here, so an edit never
// asks a paid model; the folder's memo re-parses and re-cards only what changed.

import type { ViteDevServer } from 'vite'
import type { FolderTarget } from './folder-ids'
import type { KnowledgeFolders } from './knowledge'
import type { RoutesOutcome } from './routes'
import type { PluginState } from './state'
import { PROGRESS_PREFIX } from '../knowledge/progress'
import { RebuildLoop } from '../knowledge/rebuild-loop'
import { routesModuleId } from './kinds/routes'
import { concerns, overlayPayload, publishUpdate } from './vite-rebuild'

/** A step of a dev-server rebuild of routed index pages. */
export type RoutesRebuildEvent =
  /** A rebuild started, for these changed paths (absolute). */
  | { type: 'start', name: string, changes: readonly string[] }
  /** Files changed while it ran: nothing was sent, and one more build follows. */
  | { type: 'discard', name: string }
  /** The pages are the ones the page has (a file saved unchanged): nothing sent. `carded`: as for `update`. */
  | { type: 'unchanged', name: string, changes: readonly string[], carded: readonly string[] }
  /**
   * The new pages were sent as the routes module's update. `carded`: the
   * documents (paths) whose card was made again, the others' came from the
   * memo; `uncached`: documents the routing model has no cached answer for,
   * described by the offline router.
   */
  | { type: 'update', name: string, changes: readonly string[], ms: number, carded: readonly string[], uncached: readonly string[] }
  /** The pages cannot be built (the overlay shows why); the last valid ones are still served. */
  | { type: 'error', name: string, message: string }

/** The plugin's `api` for the dev server's routes rebuilds (see `vite-api.ts`). */
export interface RoutesViteApi {
  /** Calls `listener` at each step of each rebuild of routed index pages; returns a function that stops it. */
  onRoutesRebuild: (listener: (event: RoutesRebuildEvent) => void) => () => void
}

const listeners = new WeakMap<PluginState, Set<(event: RoutesRebuildEvent) => void>>()

function listenersOf(state: PluginState): Set<(event: RoutesRebuildEvent) => void> {
  let set = listeners.get(state)
  if (!set)
    listeners.set(state, set = new Set())
  return set
}

export function routesViteApi(state: PluginState): RoutesViteApi {
  return {
    onRoutesRebuild(listener) {
      listenersOf(state).add(listener)
      return () => {
        listenersOf(state).delete(listener)
      }
    },
  }
}

export function watchRoutes(server: ViteDevServer, state: PluginState): void {
  const { routes } = state
  // This watcher keeps every build current; imports get the last delivered one.
  routes.live = true
  const logger = server.config.logger
  routes.onWarning = message => logger.warn(`${PROGRESS_PREFIX}${message}`, { timestamp: true })
  const emit = (event: RoutesRebuildEvent) => listenersOf(state).forEach(listener => listener(event))
  const loops = new Map<string, RebuildLoop<RoutesOutcome>>()
  /** The last rebuild of these pages failed: pages show its overlay (over the last valid pages, if any). */
  const failing = new Map<string, RoutesOutcome & { ok: false }>()

  const nameOf = (target: FolderTarget) => target.kind === 'name' ? target.name : state.relativize(target.dir)

  const loopOf = (key: string, { target, watch }: KnowledgeFolders): RebuildLoop<RoutesOutcome> => {
    let loop = loops.get(key)
    if (loop)
      return loop
    const name = nameOf(target)
    let started = 0
    loop = new RebuildLoop<RoutesOutcome>({
      settleMs: watch?.settleMs,
      maxWaitMs: watch?.maxWaitMs,
      build: (context) => {
        started = performance.now()
        emit({ type: 'start', name, changes: context.changes })
        return routes.rebuild(target)
      },
      onResult: (outcome, context) => {
        if (!outcome.ok) {
          failing.set(key, outcome)
          routes.adopt(target, outcome)
          logger.error(`${PROGRESS_PREFIX}${outcome.message}`, { timestamp: true })
          server.environments.client.hot.send(overlayPayload(outcome))
          emit({ type: 'error', name, message: outcome.message })
          return
        }
        // An overlay is cleared by an update, even to the pages the page has.
        const cleared = failing.delete(key)
        const changed = routes.adopt(target, outcome) || cleared
        const { carded, uncached } = outcome.stats
        if (!changed) {
          emit({ type: 'unchanged', name, changes: context.changes, carded })
          return
        }
        publishUpdate(server, routesModuleId(target, false, state.root))
        const ms = Math.round(performance.now() - started)
        const what = context.changes.length === 1 ? `${state.relativize(context.changes[0]!)} changed` : `${context.changes.length} changes`
        logger.info(`${PROGRESS_PREFIX}${name}: routed index pages updated in ${ms} ms (${what})`, { timestamp: true })
        emit({ type: 'update', name, changes: context.changes, ms, carded, uncached })
      },
      onDiscard: () => {
        logger.info(`${PROGRESS_PREFIX}${name}: files changed while the index pages were routed; routing again`, { timestamp: true })
        emit({ type: 'discard', name })
      },
      onError: (error) => {
        logger.error(`${PROGRESS_PREFIX}${name}: routing the index pages failed: ${(error as Error).message}`, { timestamp: true })
      },
    })
    loops.set(key, loop)
    return loop
  }

  const onEvent = (path: string) => {
    for (const folders of routes.watched()) {
      if (concerns(folders, path))
        loopOf(JSON.stringify(folders.target), folders).change(path)
    }
  }
  for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const)
    server.watcher.on(event, onEvent)

  // Folders outside Vite's root (a `?routes` import of `../docs`, a skill-kit.json's `"knowledge": "../x"`) are watched once seen.
  routes.onFolders = folders => server.watcher.add(folders.roots)

  // A page that connects while routed pages cannot be built (its import may have failed before the page listened).
  server.ws.on('connection', (socket: { send: (data: string) => void }) => {
    for (const outcome of new Set([...failing.values(), ...routes.failures()]))
      socket.send(JSON.stringify(overlayPayload(outcome)))
  })

  server.httpServer?.once('close', () => {
    for (const loop of loops.values())
      void loop.close()
  })
}
