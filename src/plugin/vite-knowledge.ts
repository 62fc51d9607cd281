// The Vite dev server and knowledge bases: rebuilding one when its documents
// or settings change, and handing the page the new index through HMR.
//
// File events only note a change (a few string comparisons): each knowledge
// base has a rebuild loop that waits for a burst to settle, never runs two
// builds at once, and drops a build that a change made stale for one more.
// A delivered build becomes what the knowledge module serves, and the module
// (which accepts its own updates, see knowledge-codegen.ts) gets one update;
// its document bodies have versioned ids, so the new index never imports an
// old body. A build that fails shows Vite's overlay and leaves the last valid
// module served.

import type { ViteDevServer } from 'vite'
import type { Embedder } from '../knowledge/embedder'
import type { KnowledgeFolders, KnowledgeOutcome, KnowledgeTarget } from './knowledge'
import type { PluginState } from './state'
import { RebuildLoop } from '../knowledge/rebuild-loop'
import { PROGRESS_PREFIX } from '../knowledge/progress'
import { knowledgeModuleId } from './knowledge'
import { concerns, overlayPayload, publishUpdate } from './vite-rebuild'

/** A step of a dev-server knowledge rebuild. */
export type KnowledgeRebuildEvent =
  /** A rebuild started, for these changed paths (absolute). */
  | { type: 'start', name: string, changes: readonly string[] }
  /** Files changed while it ran: nothing was published or sent, and one more build follows. */
  | { type: 'discard', name: string }
  /** The build gives the module the page has (a file saved unchanged, a folder swapped in with the same documents): nothing sent. */
  | { type: 'unchanged', name: string, changes: readonly string[] }
  /** The new index was published and the knowledge module's update sent. */
  | { type: 'update', name: string, changes: readonly string[], ms: number }
  /** The knowledge base cannot be built (the overlay shows why); the last valid module is still served. */
  | { type: 'error', name: string, message: string }

/** The plugin's `api` for the dev server's knowledge rebuilds (see `vite-api.ts`). */
export interface KnowledgeViteApi {
  /** Calls `listener` at each step of each knowledge rebuild; returns a function that stops it. */
  onKnowledgeRebuild: (listener: (event: KnowledgeRebuildEvent) => void) => () => void
  /** Embeds every knowledge build with `embedder` instead of the project's model (`undefined`: the model again). */
  setKnowledgeEmbedder: (embedder: Embedder | undefined) => void
}

const listeners = new WeakMap<PluginState, Set<(event: KnowledgeRebuildEvent) => void>>()

function listenersOf(state: PluginState): Set<(event: KnowledgeRebuildEvent) => void> {
  let set = listeners.get(state)
  if (!set)
    listeners.set(state, set = new Set())
  return set
}

export function knowledgeViteApi(state: PluginState): KnowledgeViteApi {
  return {
    onKnowledgeRebuild(listener) {
      listenersOf(state).add(listener)
      return () => {
        listenersOf(state).delete(listener)
      }
    },
    setKnowledgeEmbedder(embedder) {
      state.knowledge.embedder = embedder
    },
  }
}

export function watchKnowledge(server: ViteDevServer, state: PluginState): void {
  const { knowledge } = state
  // This watcher keeps every build current; imports get the last delivered one.
  knowledge.live = true
  const logger = server.config.logger
  const emit = (event: KnowledgeRebuildEvent) => listenersOf(state).forEach(listener => listener(event))
  const loops = new Map<string, RebuildLoop<KnowledgeOutcome>>()
  /** The last rebuild of these knowledge bases failed: pages show its overlay (over the last valid index, if any). */
  const failing = new Map<string, KnowledgeOutcome & { ok: false }>()
  server.watcher.add(knowledge.namedFolders())

  const nameOf = (target: KnowledgeTarget) => target.kind === 'name' ? target.name : state.relativize(target.dir)

  /** After a delivered build: the knowledge module of `target` in each environment gets one update. */
  const publish = (target: KnowledgeTarget) => publishUpdate(server, knowledgeModuleId(target, false, state.root))

  const loopOf = (key: string, { target, watch }: KnowledgeFolders): RebuildLoop<KnowledgeOutcome> => {
    let loop = loops.get(key)
    if (loop)
      return loop
    const name = nameOf(target)
    let started = 0
    loop = new RebuildLoop<KnowledgeOutcome>({
      settleMs: watch?.settleMs,
      maxWaitMs: watch?.maxWaitMs,
      build: (context) => {
        started = performance.now()
        emit({ type: 'start', name, changes: context.changes })
        return knowledge.rebuild(target, { stale: context.stale, progress: line => logger.info(`${PROGRESS_PREFIX}${line}`) })
      },
      onResult: (outcome, context) => {
        if (!outcome.ok) {
          failing.set(key, outcome)
          knowledge.adopt(target, outcome)
          logger.error(`${PROGRESS_PREFIX}${outcome.message}`, { timestamp: true })
          server.environments.client.hot.send(overlayPayload(outcome))
          emit({ type: 'error', name, message: outcome.message })
          return
        }
        // An overlay is cleared by an update, even to the module the page has.
        const cleared = failing.delete(key)
        const changed = knowledge.adopt(target, outcome) || cleared
        if (!changed) {
          emit({ type: 'unchanged', name, changes: context.changes })
          return
        }
        publish(target)
        const ms = Math.round(performance.now() - started)
        const what = context.changes.length === 1 ? `${state.relativize(context.changes[0]!)} changed` : `${context.changes.length} changes`
        logger.info(`${PROGRESS_PREFIX}${name}: updated in ${ms} ms (${what})`, { timestamp: true })
        emit({ type: 'update', name, changes: context.changes, ms })
      },
      onDiscard: () => {
        logger.info(`${PROGRESS_PREFIX}${name}: files changed during the build; building again`, { timestamp: true })
        emit({ type: 'discard', name })
      },
      onError: (error) => {
        logger.error(`${PROGRESS_PREFIX}${name}: the rebuild failed: ${(error as Error).message}`, { timestamp: true })
      },
    })
    loops.set(key, loop)
    return loop
  }

  const onEvent = (path: string) => {
    for (const folders of knowledge.watched()) {
      if (concerns(folders, path))
        loopOf(JSON.stringify(folders.target), folders).change(path)
    }
  }
  for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const)
    server.watcher.on(event, onEvent)

  // Folders outside Vite's root (a `?knowledge` import of `../docs`, a skill-kit.json's `"knowledge": "../x"`) are watched once seen.
  knowledge.onFolders = folders => server.watcher.add(folders.roots)

  // A page that connects while a knowledge base cannot be built (its import may have failed before the page listened).
  server.ws.on('connection', (socket: { send: (data: string) => void }) => {
    for (const outcome of new Set([...failing.values(), ...knowledge.failures()]))
      socket.send(JSON.stringify(overlayPayload(outcome)))
  })

  server.httpServer?.once('close', () => {
    for (const loop of loops.values())
      void loop.close()
  })
}
