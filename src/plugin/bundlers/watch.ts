// Watch builds: making each bundler rebuild a module when a file it read is
// edited, added or removed, or when a file appears in or leaves a folder it lists.

import type { HookContext } from '../kind'
import { folderTree } from '../../core/folders'

/*
 * How each bundler registers a loaded module's dependencies is its adapter's
 * `watchDependencies` (esbuild's go with its load result: see `esbuild-load.ts`):
 * - webpack, rspack: files as dependencies, folders as context dependencies
 *   (watched with everything below them); what does not exist yet as missing
 *   dependencies, so that creating it rebuilds;
 * - Rollup, Rolldown, `vite build --watch`: `addWatchFile` for both; their
 *   watchers watch a folder with everything below it;
 * - the Vite dev server resolves watched files as imports, so there only
 *   existing files are added: its own watcher sees the rest.
 *
 * Watched folders hold sources only (a knowledge base's is its documents
 * folder, not the project's hidden `.skill-kit` its build writes), so a
 * build never starts the next.
 */

/**
 * Whether the bundler says that nothing watches this build: a Rollup,
 * rolldown or `vite build` run without watch mode (`this.meta.watchMode`).
 * Registering files there costs a call into the bundler each, for nothing.
 * webpack and rspack keep dependencies for their caches and say nothing here;
 * the Vite dev server and watch builds say `true`.
 */
export function unwatched(context: HookContext): boolean {
  return (context as { meta?: { watchMode?: boolean } }).meta?.watchMode === false
}

/**
 * The folders whose listings stand for `dirs` and everything below them:
 * each folder and its subfolders, for watchers that watch one folder's
 * entries only (esbuild's `watchDirs`). Hidden folders and `node_modules`
 * hold no skill files or documents, and a knowledge build writes into
 * hidden ones (`.skill-kit`): watching them would rebuild for nothing.
 */
export function listedFolders(dirs: readonly string[]): string[] {
  return [...new Set(dirs)].flatMap(dir => folderTree(dir, ['node_modules']))
}
