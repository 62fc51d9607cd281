// The Vite dev server and knowledge bases: rebuilding one when its documents
// or settings change, and handing the page the new index through HMR.
//
// File events only note a change (a few string comparisons): each knowledge
// base has a rebuild loop that waits for a burst to settle, never runs two
// builds at once, and drops a build that a change made stale for one more.
// A delivered build becomes what the knowledge module serves, and the module
// (which accepts its own updates, see codegen.ts) gets one update; so does the
// complete build of a folder first served with its lexical index alone, while
// its documents were embedded (see `service.ts` and `lexical-preview.ts`);
// its document bodies have versioned ids, so the new index never imports an
// old body. A build that fails shows Vite's overlay and leaves the last valid
// module served.

import type { ViteDevServer } from 'vite'
import type { Embedder } from '../../knowledge/embedder'
import type { KnowledgeOutcome } from './service'
import type { PluginState } from '../state'
import type { FolderRebuildEvent } from '../folders/dev-rebuild'
import { PROGRESS_PREFIX } from '../../knowledge/progress'
import { knowledgeModuleId } from './ids'
import { rebuildListeners, watchBeyondRoot, watchFolderRebuilds } from '../folders/dev-rebuild'

/** A step of a dev-server knowledge rebuild. */
export type KnowledgeRebuildEvent = FolderRebuildEvent

/** The plugin's `api` for the dev server's knowledge rebuilds (see `vite-api.ts`). */
export interface KnowledgeViteApi {
  /** Calls `listener` at each step of each knowledge rebuild; returns a function that stops it. */
  onKnowledgeRebuild: (listener: (event: KnowledgeRebuildEvent) => void) => () => void
  /** Embeds every knowledge build with `embedder` instead of the project's model (`undefined`: the model again). */
  setKnowledgeEmbedder: (embedder: Embedder | undefined) => void
}

const listeners = rebuildListeners<KnowledgeRebuildEvent>()

export function knowledgeViteApi(state: PluginState): KnowledgeViteApi {
  return {
    onKnowledgeRebuild: listener => listeners.on(state, listener),
    setKnowledgeEmbedder(embedder) {
      state.knowledge.embedder = embedder
    },
  }
}

export function watchKnowledge(server: ViteDevServer, state: PluginState): void {
  const { knowledge } = state
  const logger = server.config.logger
  watchBeyondRoot(server, knowledge.namedFolders())
  watchFolderRebuilds<KnowledgeOutcome, object>(server, state, {
    folders: knowledge.builds,
    build: (target, context) => knowledge.rebuild(target, { stale: context.stale, progress: line => logger.info(`${PROGRESS_PREFIX}${line}`) }),
    moduleId: target => knowledgeModuleId(target, false, state.root),
    emit: event => listeners.emit(state, event),
    details: () => ({}),
    lines: {
      updated: (name, ms, what) => `${name}: updated in ${ms} ms (${what})`,
      completed: 'vectors embedded: searches rank by meaning too',
      discarded: name => `${name}: files changed during the build; building again`,
      threw: (name, message) => `${name}: the rebuild failed: ${message}`,
    },
  })
}
