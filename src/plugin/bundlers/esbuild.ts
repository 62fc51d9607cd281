// esbuild: no virtual modules, and module ids printed into bundles (ids are
// file names relative to the root); a snapshot is imported for esbuild's `file`
// loader to copy, the other files go straight into outdir when the build
// succeeds; progress on stderr (esbuild has no channel for plugins); the
// plugin loads its own ids so that its folders are watched (`esbuild-load.ts`).

import type { PluginBuild } from 'esbuild'
import type { HookContext } from '../kind'
import type { BundlerAdapter } from './adapter'
import type { AssetMode, EmitFixed } from './asset-mode'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { PROGRESS_PREFIX } from '../../knowledge/progress'
import { loadWithWatchDirs } from './esbuild-load'
import { genericAdapter } from './generic'

/** esbuild levels under which information is not shown; esbuild itself prints its summary from `info`. */
const ESBUILD_QUIET = new Set(['silent', 'error', 'warning'])
/** esbuild reads the generated modules as JavaScript. */
const ESBUILD_LOADER = 'js'

/** The build's options, where the context is esbuild's. */
function initialOptions(context: HookContext): PluginBuild['initialOptions'] | undefined {
  const native = context.getNativeBuildContext?.()
  return native?.framework === 'esbuild' ? native.build.initialOptions : undefined
}

/** esbuild: where the model's files go (outdir, unless the build has none), where its `file` loader puts the snapshot, and what that is relative to. */
function esbuildMode(context: HookContext): AssetMode {
  const options = initialOptions(context)
  const { outdir, absWorkingDir, assetNames = '[name]-[hash]', platform = 'browser', format } = options ?? {}
  // esbuild's default format for Node is CommonJS, where it leaves `import.meta.url` empty: there the bundle's URL is its file's.
  const cjs = format === 'cjs' || (format === undefined && platform === 'node')
  return {
    kind: 'file-loader',
    bundler: 'esbuild',
    platform: platform === 'neutral' ? 'any' : platform,
    emit: outdir && options ? outdirEmitter(resolve(absWorkingDir ?? process.cwd(), outdir), options) : undefined,
    assetNames,
    base: cjs ? 'require("node:url").pathToFileURL(__filename)' : 'import.meta.url',
  }
}

/** esbuild has no emitted assets: files go straight into outdir, as its own `file` loader's do. */
function outdirEmitter(outdir: string, build: object): EmitFixed {
  return (fileName, source) => {
    let files = pendingOutputs.get(build)
    if (!files)
      pendingOutputs.set(build, files = new Map())
    files.set(join(outdir, fileName), source)
  }
}

/** Files a build's knowledge modules give esbuild's outdir, by the build's options: written when it succeeds. */
const pendingOutputs = new WeakMap<object, Map<string, Uint8Array>>()

/**
 * Writes what the knowledge modules put in outdir when the esbuild build ends
 * without errors, as esbuild writes its own files: a failed build (an export
 * refused, a broken document) writes nothing.
 */
function writeEsbuildOutputs(build: PluginBuild): void {
  build.onEnd((result) => {
    const files = pendingOutputs.get(build.initialOptions)
    pendingOutputs.delete(build.initialOptions)
    if (!files || result.errors.length > 0)
      return
    for (const [file, source] of files) {
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, source)
    }
  })
}

export function esbuildAdapter(): BundlerAdapter {
  const generic = genericAdapter('esbuild')
  return {
    ...generic,
    idsAsFiles: true,
    progress(context) {
      const options = initialOptions(context)
      if (!options)
        return undefined
      const level = options.logLevel
      return level && ESBUILD_QUIET.has(level) ? undefined : line => process.stderr.write(`${PROGRESS_PREFIX}${line}\n`)
    },
    // esbuild watches only what its loads return: there, an export follows the modules' folders.
    watchBuildStartSources: (context, files, dirs) => initialOptions(context as HookContext) ? undefined : generic.watchBuildStartSources(context, files, dirs),
    assetMode: esbuildMode,
    snapshotOutputProblem(context) {
      const options = initialOptions(context) ?? {}
      return options.outdir || options.outfile ? undefined : 'esbuild copies a knowledge base\'s snapshot beside the bundle, so the build needs an output path: set outdir (or outfile).'
    },
    buildOutput(context) {
      const options = initialOptions(context as HookContext)
      if (!options)
        return generic.buildOutput(context)
      const { outdir, outfile, absWorkingDir } = options
      const folder = outdir ?? (outfile ? dirname(outfile) : undefined)
      if (!folder)
        return { missing: 'set outdir (or outfile)' }
      const root = resolve(absWorkingDir ?? process.cwd(), folder)
      return {
        emit: (fileName, source) => {
          mkdirSync(dirname(join(root, fileName)), { recursive: true })
          writeFileSync(join(root, fileName), source)
        },
        outputDir: root,
      }
    },
    hooks: ({ ids, load }) => ({
      esbuild: {
        onResolveFilter: ids,
        onLoadFilter: ids,
        loader: ESBUILD_LOADER,
        // Loads the plugin's ids before unplugin's adapter would, which drops the folders a module lists.
        setup(build) {
          loadWithWatchDirs(build, ids, ESBUILD_LOADER, load)
          writeEsbuildOutputs(build)
        },
        config(build) {
          // Snapshots are imported for their URL: esbuild copies them next to the bundle. Its `file`
          // loader needs an output path, and a build without one (skills only) must not fail for it.
          if (build.outdir || build.outfile)
            build.loader = { '.skillkit': 'file', ...build.loader }
        },
      },
    }),
  }
}
