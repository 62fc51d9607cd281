// The adapter of the bundler a plugin instance runs in, chosen once from
// unplugin's `meta.framework` (see `adapter.ts` for what an adapter answers).

import type { BundlerAdapter } from './adapter'
import { esbuildAdapter } from './esbuild'
import { genericAdapter } from './generic'
import { rolldownAdapter, rollupAdapter } from './rollup'
import { viteAdapter } from './vite'
import { webpackAdapter } from './webpack'

export type { BundlerAdapter, HooksEnv, ViteServe } from './adapter'

/** A new adapter for this plugin instance (an adapter may keep what its bundler tells of the build). */
export function bundlerAdapter(framework: string): BundlerAdapter {
  switch (framework) {
    case 'vite':
      return viteAdapter()
    case 'rollup':
      return rollupAdapter()
    case 'rolldown':
      return rolldownAdapter()
    case 'esbuild':
      return esbuildAdapter()
    case 'webpack':
    case 'rspack':
      return webpackAdapter(framework)
    default:
      return genericAdapter(framework)
  }
}
