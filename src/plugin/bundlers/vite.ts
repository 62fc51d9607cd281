// Vite: builds emit assets as Rollup does (per environment: a server's run in
// Node, an app's client in browsers, a library anywhere); the dev server
// serves the published files itself and its SSR reads them in place; progress
// goes to Vite's logger; its watcher resolves watched files as imports, so
// only existing files are added. Vite's own hooks are the plugin's features
// (`index.ts`): this adapter adds none.

import type { Diagnostic } from '../../core/diagnostics'
import type { HookContext } from '../kind'
import type { BundlerAdapter } from './adapter'
import type { Platform } from './asset-mode'
import type { BundlerMessage } from './message'
import type { RollupLikeContext } from './rollup'
import { existsSync, statSync } from 'node:fs'
import { PROGRESS_PREFIX } from '../../knowledge/progress'
import { genericAdapter } from './generic'
import { bundlerMessage } from './message'
import { emitMode } from './rollup'
import { unwatched } from './watch'

/** A message as Vite shows it (its overlay and terminal). */
export function viteMessage(text: string, at: Diagnostic | undefined, source?: string): BundlerMessage {
  return bundlerMessage('vite', text, at, source)
}

/** Where a Vite environment's output runs: a server's in Node, an app's client in browsers, a library anywhere. */
function vitePlatform(context: RollupLikeContext): Platform {
  const config = context.environment?.config
  if (config?.consumer === 'server')
    return 'node'
  return config?.build?.lib ? 'any' : 'browser'
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile()
}

export function viteAdapter(): BundlerAdapter {
  return {
    ...genericAdapter('vite'),
    message: viteMessage,
    progress: (_context, viteLogger) => viteLogger && (line => viteLogger.info(`${PROGRESS_PREFIX}${line}`)),
    watchDependencies(context: HookContext, devServer, { files, dirs }) {
      if (unwatched(context))
        return
      // The dev server resolves watched files as imports: its own watcher sees the rest (`skills/hot-update.ts`, `knowledge/dev-server.ts`).
      for (const path of devServer ? files.filter(isFile) : [...files, ...dirs])
        context.addWatchFile(path)
    },
    watchFailedBuild: (context, files) => files.filter(isFile).forEach(file => context.addWatchFile(file)),
    assetMode(context, env) {
      const rollupLike = context as unknown as RollupLikeContext
      if (env.viteServe) {
        const { base, files } = env.viteServe
        return rollupLike.environment?.config.consumer === 'server' ? { kind: 'file' } : { kind: 'dev-server', base, serve: (path, file) => files.set(path, file) }
      }
      return emitMode(context, vitePlatform(rollupLike), env)
    },
  }
}
