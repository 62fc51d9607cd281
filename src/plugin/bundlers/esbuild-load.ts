// esbuild: loading the plugin's modules together with the folders they list.
// unplugin's esbuild adapter hands esbuild a load's `watchFiles` but no
// `watchDirs`, so in `context().watch()` a skill added to a registry folder,
// or a file added to a skill's folder, would never rebuild. The plugin
// therefore answers esbuild's `onLoad` for its ids itself; registered from
// `esbuild.setup`, that is before unplugin's, so esbuild asks it first.

import type { Loader, PartialMessage, PluginBuild } from 'esbuild'
import type { BundlerMessage } from './message'
import type { HookContext, LoadModule } from '../kind'
import { dirname } from 'node:path'
import { listedFolders } from './watch'

/** As unplugin's adapter reports a plugin's message to esbuild, with the line's text where the message has it. */
function esbuildMessage(message: string | BundlerMessage): PartialMessage {
  const m = typeof message === 'string' ? { message } as BundlerMessage : message
  return {
    id: m.id,
    text: m.message,
    location: m.loc ? { file: m.loc.file, line: m.loc.line, column: m.loc.column, lineText: m.lineText } : null,
    detail: m.meta,
  }
}

export function loadWithWatchDirs(build: PluginBuild, filter: RegExp, loader: Loader, load: LoadModule): void {
  build.onLoad({ filter }, async (args) => {
    const errors: PartialMessage[] = []
    const warnings: PartialMessage[] = []
    const watchFiles: string[] = []
    // What the kinds use of a hook context in esbuild; they neither parse nor emit files there.
    const context = {
      error: (message: string | BundlerMessage) => {
        errors.push(esbuildMessage(message))
      },
      warn: (message: string | BundlerMessage) => {
        warnings.push(esbuildMessage(message))
      },
      addWatchFile: (file: string) => {
        watchFiles.push(file)
      },
      getWatchFiles: () => watchFiles,
      getNativeBuildContext: () => ({ framework: 'esbuild' as const, build }),
    } as unknown as HookContext
    const loaded = await load(args.path + args.suffix, context)
    if (loaded === null)
      return undefined
    return {
      // Empty after an error, which esbuild then reports: a failed module must not be read as the file itself.
      contents: loaded?.code ?? '',
      errors,
      warnings,
      watchFiles: [...watchFiles, ...loaded?.files ?? []],
      // esbuild watches a folder's own entries: each subfolder is listed too.
      watchDirs: loaded ? listedFolders(loaded.dirs) : [],
      loader,
      resolveDir: dirname(args.path),
    }
  })
}
