// Rollup and Rolldown: emitted assets referenced by `import.meta.ROLLUP_FILE_URL_…`
// (relative to their chunk for builds that run in Node or anywhere), progress
// through `this.info`, watch mode from `this.meta.watchMode`. Vite builds
// share the asset emission (`vite.ts`).

import type { HookContext } from '../kind'
import type { AssetEnv, BundlerAdapter } from './adapter'
import type { AssetMode, Platform } from './asset-mode'
import { genericAdapter } from './generic'

/** What the plugin uses of a Rollup-like plugin context beyond unplugin's. */
export interface RollupLikeContext {
  emitFile: (file: { type: 'asset', fileName?: string, name?: string, source: Uint8Array }) => string
  environment?: { name: string, config: { consumer?: string, build?: { lib?: unknown } } }
}

/**
 * Emitted assets: an app's for browsers as the bundler places them; for
 * Node or anywhere also recorded, so that their URLs are relative to the
 * chunk (`chunk-assets.ts`).
 */
export function emitMode(context: HookContext, platform: Platform, env: AssetEnv): AssetMode {
  const rollupLike = context as unknown as RollupLikeContext
  const build = rollupLike.environment?.name ?? ''
  return {
    kind: 'emit',
    platform,
    emit: (fileName, name, source) => {
      const reference = rollupLike.emitFile({ type: 'asset', ...(fileName ? { fileName } : { name }), source })
      if (platform !== 'browser')
        env.chunkAssets.add(build, reference, source)
      return reference
    },
  }
}

/** Progress lines through `this.info` (shown at the default `logLevel: 'info'`; the bundler names the plugin). */
function infoChannel(context: HookContext): ((line: string) => void) | undefined {
  const native = context as unknown as { info?: (message: string) => void }
  return native.info && (line => native.info!(line))
}

export function rollupAdapter(): BundlerAdapter {
  return {
    ...genericAdapter('rollup'),
    progress: infoChannel,
    // Rollup builds may run anywhere: asset URLs relative to the chunk suit both.
    assetMode: (context, env) => emitMode(context, 'any', env),
    hooks: ({ resolveFileUrl, renderStart }) => ({ rollup: { resolveFileUrl, renderStart } }),
  }
}

export function rolldownAdapter(): BundlerAdapter {
  /** Rolldown's `platform` option, when the build sets one. */
  let platform: string | undefined
  return {
    ...genericAdapter('rolldown'),
    progress: infoChannel,
    // Rolldown builds may run anywhere, unless they are for Node.
    assetMode: (context, env) => emitMode(context, platform === 'node' ? 'node' : 'any', env),
    hooks: ({ resolveFileUrl, renderStart }) => ({
      rolldown: {
        resolveFileUrl,
        renderStart,
        options(input) {
          platform = input.platform
        },
      },
    }),
  }
}
