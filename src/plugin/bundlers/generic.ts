// The answers of a bundler with no quirk of its own: what every adapter starts
// from (`adapter.ts`), and the whole adapter of a bundler the plugin has no
// entry for.

import type { UnpluginBuildContext } from 'unplugin'
import type { Dependencies, HookContext } from '../kind'
import type { BundlerAdapter } from './adapter'
import { bundlerMessage } from './message'
import { unwatched } from './watch'

/** Whether the bundler runs this build in watch mode (`this.meta.watchMode`). */
export function metaWatchMode(context: HookContext): boolean {
  return Boolean((context as { meta?: { watchMode?: boolean } }).meta?.watchMode)
}

/** `addWatchFile` for each path, unless nothing watches this build. */
export function addWatchFiles(context: HookContext | UnpluginBuildContext, paths: readonly string[]): void {
  if (unwatched(context as HookContext))
    return
  for (const path of paths)
    context.addWatchFile(path)
}

/** A bundler's adapter with the common answers, named `name` in messages. */
export function genericAdapter(name: string): BundlerAdapter {
  return {
    name,
    idsAsFiles: false,
    resolvesQueriedFiles: false,
    message: (text, at, source) => bundlerMessage(name, text, at, source),
    progress: () => undefined,
    watchSession: metaWatchMode,
    watchDependencies: (context: HookContext, _devServer: boolean, { files, dirs }: Dependencies) => addWatchFiles(context, [...files, ...dirs]),
    watchFailedBuild: (context, files) => files.forEach(file => context.addWatchFile(file)),
    watchBuildStartSources: (context, files, dirs) => addWatchFiles(context, [...files, ...dirs]),
    assetMode: () => ({ kind: 'file' }),
    snapshotOutputProblem: () => undefined,
    buildOutput: context => ({ emit: (fileName, source) => context.emitFile({ type: 'asset', fileName, source }), outputDir: undefined }),
    recordBuildStartError: () => false,
    hooks: () => ({}),
  }
}
