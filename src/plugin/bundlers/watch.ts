// Watch builds: making each bundler rebuild a module when a file it read is
// edited, added or removed, or when a file appears in or leaves a folder it lists.

import type { Dependencies, HookContext } from '../kind'
import { existsSync, statSync } from 'node:fs'
import { folderTree } from '../../core/folders'

/** What the plugin needs of a webpack or rspack loader context. */
interface WebpackLoaderContext {
  addDependency: (file: string) => void
  addContextDependency: (dir: string) => void
  addMissingDependency: (path: string) => void
}

/**
 * Registers a loaded module's dependencies with the bundler that loads it
 * (esbuild's go with its load result: see `esbuild-load.ts`):
 * - webpack, rspack: files as dependencies, folders as context dependencies
 *   (watched with everything below them); what does not exist yet as missing
 *   dependencies, so that creating it rebuilds;
 * - Rollup, rolldown, `vite build --watch`: `addWatchFile` for both; their
 *   watchers watch a folder with everything below it.
 *
 * Watched folders hold sources only (a knowledge base's is its documents
 * folder, not the project's hidden `.skill-kit` its build writes), so a
 * build never starts the next.
 * - The Vite dev server resolves watched files as imports, so there only
 *   existing files are added: its own watcher sees the rest (`vite-skills.ts`,
 *   `vite-knowledge.ts`).
 */
export function watchDependencies(context: HookContext, framework: string, devServer: boolean, { files, dirs }: Dependencies): void {
  const native = context.getNativeBuildContext?.()
  const loader = (native?.framework === 'webpack' || native?.framework === 'rspack' ? native.loaderContext : undefined) as WebpackLoaderContext | undefined
  if (loader) {
    for (const file of files.filter(file => existsSync(file)))
      loader.addDependency(file)
    for (const dir of dirs.filter(dir => existsSync(dir)))
      loader.addContextDependency(dir)
    for (const path of [...files, ...dirs].filter(path => !existsSync(path)))
      loader.addMissingDependency(path)
    return
  }
  if (unwatched(context))
    return
  if (framework === 'vite' && devServer) {
    for (const file of files.filter(isFile))
      context.addWatchFile(file)
    return
  }
  for (const path of [...files, ...dirs])
    context.addWatchFile(path)
}

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

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile()
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
