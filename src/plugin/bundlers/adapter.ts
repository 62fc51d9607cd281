// What the plugin asks of the bundler it runs in. Each bundler's quirks live
// in its adapter (one file each beside this one), chosen once from unplugin's
// `meta.framework`: no other plugin file asks which bundler it is in.

import type { UnpluginBuildContext, UnpluginOptions } from 'unplugin'
import type { Diagnostic } from '../../core/diagnostics'
import type { Dependencies, HookContext, LoadModule } from '../kind'
import type { AssetMode } from './asset-mode'
import type { ChunkRelativeAssets, FileUrlRequest } from './chunk-assets'
import type { BundlerMessage } from './message'
import type { InfoLogger, ProgressWrite } from './progress'

/** The Vite dev server's base and the files the plugin's middleware serves (URL path after the base → file). */
export interface ViteServe {
  base: string
  files: Map<string, string>
}

/** What choosing the way a build takes assets needs from the plugin. */
export interface AssetEnv {
  viteServe: ViteServe | undefined
  /** Assets of Rollup-like builds for Node, resolved relative to their chunk. */
  chunkAssets: ChunkRelativeAssets
}

/** Writes one file under a fixed name, relative to the build output. */
export type EmitOutput = (fileName: string, source: Uint8Array | string) => void

/** How a build writes files under fixed names into its output, and that output's folder when the build already knows it. */
export interface BuildOutput {
  emit: EmitOutput
  /** Known at build start (esbuild, webpack, rspack); else `undefined`, known when the output is rendered (Rollup, Rolldown, Vite). */
  outputDir: string | undefined
}

/** One bundler, as the plugin's features use it. */
export interface BundlerAdapter {
  /** unplugin's `meta.framework`. */
  readonly name: string
  /**
   * Whether module ids are file names relative to the root: a bundler
   * without virtual modules that prints its plugins' ids into bundles (no
   * build machine's folder may reach the output).
   */
  readonly idsAsFiles: boolean
  /** Whether the bundler resolves a file import that carries a query itself, keeping the query. */
  readonly resolvesQueriedFiles: boolean
  /** `text` as a message pointing at `at`, with a code frame where this bundler shows one (see `message.ts`). */
  message: (text: string, at: Diagnostic | undefined, source?: string) => BundlerMessage
  /** This bundler's channel for progress lines, or `undefined` where there is none (see `progress.ts`). */
  progress: (context: HookContext, viteLogger: InfoLogger | undefined) => ProgressWrite | undefined
  /** Whether this build is one of a watch session. */
  watchSession: (context: HookContext) => boolean
  /** Registers a loaded module's dependencies, so that a change rebuilds it (see `watch.ts`). */
  watchDependencies: (context: HookContext, devServer: boolean, dependencies: Dependencies) => void
  /** Registers what fixing a failed build may touch, so that the fix rebuilds (the dev server's own watchers do it there). */
  watchFailedBuild: (context: HookContext, files: readonly string[]) => void
  /** Registers, from `buildStart`, the files and folders something no module imports is made of (an export). */
  watchBuildStartSources: (context: UnpluginBuildContext, files: readonly string[], dirs: readonly string[]) => void
  /** How this build (and, in Vite, this environment) takes the files a module points at. */
  assetMode: (context: HookContext, env: AssetEnv) => AssetMode
  /** Why this build cannot copy a knowledge base's snapshot (it has no output path), or `undefined`. */
  snapshotOutputProblem: (context: HookContext) => string | undefined
  /** How `buildStart` writes files into the output, or what setting it lacks to (`set …`). */
  buildOutput: (context: UnpluginBuildContext) => BuildOutput | { missing: string }
  /** Records an error of `buildStart` where the bundler keeps watching after it; `false` where throwing it is right. */
  recordBuildStartError: (context: UnpluginBuildContext, error: Error) => boolean
  /** This bundler's own hooks (under its key of unplugin's options), made from what every bundler's hooks share. */
  hooks: (env: HooksEnv) => Partial<UnpluginOptions>
}

/** What the bundlers' own hooks are made of (`index.ts`). */
export interface HooksEnv {
  /** Every id a module kind may own. */
  ids: RegExp
  /** Loads one of the plugin's ids. */
  load: LoadModule
  /** The resolved id of a `virtual:skill-kit/…` import. */
  virtualId: (request: string) => string | undefined
  /** Rollup-like builds: our assets' URLs relative to their chunk (`chunk-assets.ts`). */
  resolveFileUrl: (request: FileUrlRequest) => string | null
  /** Rollup-like builds: checks of the output folder before anything is written. */
  renderStart: (output: { dir?: string, file?: string }) => void
}
