// How the Vite dev server rebuilds folder modules (knowledge bases and their
// routed index pages): which file events concern a folder, a rebuild loop per
// folder, the overlay of a build that failed, and the one update a delivered
// build sends.

import type { ErrorPayload, ViteDevServer } from 'vite'
import type { Diagnostic } from '../../core/diagnostics'
import type { RebuildContext } from '../../knowledge/rebuild-loop'
import type { FolderTarget } from './ids'
import type { FolderBuilds, FolderOutcome, WatchedFolders } from './builds'
import type { PluginState } from '../state'
import { relative, resolve, sep } from 'node:path'
import { PROGRESS_PREFIX } from '../../knowledge/progress'
import { RebuildLoop } from '../../knowledge/rebuild-loop'
import { viteMessage } from '../bundlers/vite'

/** Whether `path` is `dir` or inside it. */
const within = (path: string, dir: string) => path === dir || path.startsWith(dir + sep)

/**
 * Whether a file event is a change to this knowledge base: inside one of its
 * folders, in no hidden entry (`.skill-kit`, `.git`) and in nothing its builds
 * write (index, vector cache, routing cache, models).
 */
export function concerns(folders: WatchedFolders, path: string): boolean {
  return folders.roots.some(root => within(path, root) && !relative(root, path).split(sep).some(part => part.startsWith('.')))
    && !folders.written.some(dir => within(path, dir))
}

/** Vite's overlay for a build that failed, at the file, line and 0-based column of its first error. */
export function overlayPayload(failure: { message: string, diagnostic?: Diagnostic }): ErrorPayload {
  const { message, id, loc, frame } = viteMessage(failure.message, failure.diagnostic)
  return { type: 'error', err: { message, id, loc, frame, stack: '', plugin: 'unplugin-skill-kit' } }
}

/**
 * Adds to Vite's watcher the paths it does not watch already: those outside
 * its root. Adding a watched folder again makes chokidar scan it again, and a
 * change made during that scan can go unreported.
 */
export function watchBeyondRoot(server: ViteDevServer, paths: readonly string[]): void {
  const root = resolve(server.config.root)
  const beyond = paths.filter(path => !within(resolve(path), root))
  if (beyond.length > 0)
    server.watcher.add(beyond)
}

/** After a delivered build: the module `id` (which accepts its own updates) gets one update in each environment that has it. */
export function publishUpdate(server: ViteDevServer, id: string): void {
  for (const environment of Object.values(server.environments)) {
    const module = environment.moduleGraph.getModuleById(id)
    if (!module)
      continue
    // A module that never loaded (the page opened on an error) has nothing to accept an update: the page reloads.
    if (module.isSelfAccepting === undefined)
      environment.hot.send({ type: 'full-reload', path: '*' })
    else
      void environment.reloadModule(module)
  }
}

/** A step of a dev-server rebuild of a folder's module; `D` adds what a kind tells of a delivered build. */
export type FolderRebuildEvent<D extends object = object> =
  /** A rebuild started, for these changed paths (absolute). */
  | { type: 'start', name: string, changes: readonly string[] }
  /** Files changed while it ran: nothing was published or sent, and one more build follows. */
  | { type: 'discard', name: string }
  /** The build gives the module the page has (a file saved unchanged, a folder swapped in with the same documents): nothing sent. */
  | ({ type: 'unchanged', name: string, changes: readonly string[] } & D)
  /** The new module was sent as an update; `changes` is empty for the complete build behind a module first served partial (a knowledge base's vectors). */
  | ({ type: 'update', name: string, changes: readonly string[], ms: number } & D)
  /** The build failed (the overlay shows why); the last valid module is still served. */
  | { type: 'error', name: string, message: string }

/** How one kind of folder module is rebuilt and told about. */
export interface FolderRebuildSpec<O extends FolderOutcome, D extends object> {
  /** The kind's builds, which the watcher keeps current (`live`). */
  folders: FolderBuilds<O>
  build: (target: FolderTarget, context: RebuildContext) => Promise<O>
  moduleId: (target: FolderTarget) => string
  emit: (event: FolderRebuildEvent<D>) => void
  /** What a delivered build adds to its `unchanged` and `update` events. */
  details: (outcome: O & { ok: true }) => D
  /** The log lines: after an update (`what`: the change, or `completed` for a background build's, for kinds that run them), for a discarded build, for a build that threw. */
  lines: { updated: (name: string, ms: number, what: string) => string, completed?: string, discarded: (name: string) => string, threw: (name: string, message: string) => string }
}

/**
 * Rebuilds folder modules on the dev server's file events: one rebuild loop
 * per folder (bursts settle, builds never overlap, a build that a change made
 * stale is dropped), a delivered build sent as the module's one update, a
 * failed one shown in Vite's overlay over the last valid module.
 */
export function watchFolderRebuilds<O extends FolderOutcome, D extends object>(server: ViteDevServer, state: PluginState, spec: FolderRebuildSpec<O, D>): void {
  const { folders, emit, lines } = spec
  folders.live = true
  const logger = server.config.logger
  const loops = new Map<string, RebuildLoop<O>>()
  /** Folders whose last build failed: pages show its overlay. */
  const failing = new Map<string, O & { ok: false }>()

  const nameOf = (target: FolderTarget) => target.kind === 'name' ? target.name : state.relativize(target.dir)

  /** Serves a build's outcome (`changes`: what it was built for, none for a background build) and tells the page. */
  const deliver = (target: FolderTarget, outcome: O, changes: readonly string[], started: number): void => {
    const key = JSON.stringify(target)
    const name = nameOf(target)
    if (!outcome.ok) {
      const failure = outcome as O & { ok: false }
      failing.set(key, failure)
      folders.adopt(target, outcome)
      logger.error(`${PROGRESS_PREFIX}${failure.message}`, { timestamp: true })
      server.environments.client.hot.send(overlayPayload(failure))
      emit({ type: 'error', name, message: failure.message })
      return
    }
    // An overlay is cleared by an update, even to the module the page has.
    const cleared = failing.delete(key)
    const changed = folders.adopt(target, outcome) || cleared
    const details = spec.details(outcome as O & { ok: true })
    if (!changed) {
      emit({ type: 'unchanged', name, changes, ...details })
      return
    }
    publishUpdate(server, spec.moduleId(target))
    const ms = Math.round(performance.now() - started)
    const what = changes.length === 0 ? lines.completed ?? 'built in the background' : changes.length === 1 ? `${state.relativize(changes[0]!)} changed` : `${changes.length} changes`
    logger.info(`${PROGRESS_PREFIX}${lines.updated(name, ms, what)}`, { timestamp: true })
    emit({ type: 'update', name, changes, ms, ...details })
  }

  // The complete build behind a module first served partial (a knowledge base's lexical preview): one update when it is in.
  folders.onBackground = (target, result) => {
    if ('outcome' in result)
      deliver(target, result.outcome, [], result.started)
    else
      logger.error(`${PROGRESS_PREFIX}${lines.threw(nameOf(target), (result.error as Error).message)}`, { timestamp: true })
  }

  const loopOf = (key: string, { target, watch }: WatchedFolders): RebuildLoop<O> => {
    let loop = loops.get(key)
    if (loop)
      return loop
    const name = nameOf(target)
    let started = 0
    loop = new RebuildLoop<O>({
      settleMs: watch?.settleMs,
      maxWaitMs: watch?.maxWaitMs,
      build: (context) => {
        started = performance.now()
        emit({ type: 'start', name, changes: context.changes })
        return spec.build(target, context)
      },
      onResult: (outcome, context) => deliver(target, outcome, context.changes, started),
      onDiscard: () => {
        logger.info(`${PROGRESS_PREFIX}${lines.discarded(name)}`, { timestamp: true })
        emit({ type: 'discard', name })
      },
      onError: (error) => {
        logger.error(`${PROGRESS_PREFIX}${lines.threw(name, (error as Error).message)}`, { timestamp: true })
      },
    })
    loops.set(key, loop)
    return loop
  }

  const onEvent = (path: string) => {
    for (const watched of folders.watched()) {
      if (concerns(watched, path))
        loopOf(JSON.stringify(watched.target), watched).change(path)
    }
  }
  for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const)
    server.watcher.on(event, onEvent)

  // Folders outside Vite's root (an import of `../docs`, a skill-kit.json's `"knowledge": "../x"`) are watched once seen.
  folders.onFolders = seen => watchBeyondRoot(server, seen.roots)

  // A page that connects while a build fails (its import may have failed before the page listened).
  server.ws.on('connection', (socket: { send: (data: string) => void }) => {
    for (const failure of new Set([...failing.values(), ...folders.failures()]))
      socket.send(JSON.stringify(overlayPayload(failure)))
  })

  server.httpServer?.once('close', () => {
    for (const loop of loops.values())
      void loop.close()
  })
}

/** Listeners of a kind's rebuild events, per plugin instance: the `api`'s `on…Rebuild` and the watcher's `emit`. */
export function rebuildListeners<E>(): { on: (state: PluginState, listener: (event: E) => void) => () => void, emit: (state: PluginState, event: E) => void } {
  const listeners = new WeakMap<PluginState, Set<(event: E) => void>>()
  const of = (state: PluginState) => {
    let set = listeners.get(state)
    if (!set)
      listeners.set(state, set = new Set())
    return set
  }
  return {
    on(state, listener) {
      of(state).add(listener)
      return () => {
        of(state).delete(listener)
      }
    },
    emit: (state, event) => of(state).forEach(listener => listener(event)),
  }
}
