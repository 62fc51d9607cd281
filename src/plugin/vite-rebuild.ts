// What the Vite dev server's rebuilds of folder modules share (knowledge bases
// and their routed index pages): which file events concern a folder, the
// overlay of a build that failed, and the one update a delivered build sends.

import type { ErrorPayload, ViteDevServer } from 'vite'
import type { Diagnostic } from '../core/diagnostics'
import type { KnowledgeFolders } from './knowledge'
import { relative, sep } from 'node:path'
import { bundlerMessage } from './bundler-message'

/** Whether `path` is `dir` or inside it. */
const within = (path: string, dir: string) => path === dir || path.startsWith(dir + sep)

/**
 * Whether a file event is a change to this knowledge base: inside one of its
 * folders, in no hidden entry (`.skill-kit`, `.git`) and in nothing its builds
 * write (index, vector cache, routing cache, models).
 */
export function concerns(folders: KnowledgeFolders, path: string): boolean {
  return folders.roots.some(root => within(path, root) && !relative(root, path).split(sep).some(part => part.startsWith('.')))
    && !folders.written.some(dir => within(path, dir))
}

/** Vite's overlay for a build that failed, at the file, line and 0-based column of its first error. */
export function overlayPayload(failure: { message: string, diagnostic?: Diagnostic }): ErrorPayload {
  const { message, id, loc, frame } = bundlerMessage('vite', failure.message, failure.diagnostic)
  return { type: 'error', err: { message, id, loc, frame, stack: '', plugin: 'unplugin-skill-kit' } }
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
