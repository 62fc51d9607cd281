// Loading a knowledge module: build (or reuse) the knowledge base, report its
// problems, reference its snapshot the way this bundler takes assets, generate.

import type { UnpluginBuildContext, UnpluginContext } from 'unplugin'
import type { KnowledgeOutcome, KnowledgeService, KnowledgeTarget } from './service'
import type { ChunkRelativeAssets } from '../bundlers/chunk-assets'
import type { PluginBuild } from 'esbuild'
import type { AssetMode, EmitFixed, Platform } from './assets'
import type { Loaded } from '../kind'
import type { ProgressWrite } from '../bundlers/progress'
import type { BuildReports } from '../reports'
import type { HtmlPreloads } from './html-preloads'
import { Buffer } from 'node:buffer'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { formatDiagnostic } from '../../core/diagnostics'
import { bundlerMessage, fileTexts } from '../bundlers/message'
import { BODY_QUERY, bodyVersion, devBodyId, KNOWLEDGE_PREFIX } from './service'
import { encodeShardedSnapshot } from '../../knowledge/snapshot-shards'
import { modelReference, shardedReference, snapshotReference } from './assets'
import { queryTableReference } from './query-table-assets'
import { generateKnowledgeModule } from './codegen'

/** The Vite dev server's base and the files the plugin's middleware serves (URL path after the base → file). */
export interface ViteServe {
  base: string
  files: Map<string, string>
}

/** What loading a knowledge module needs from the plugin. */
export interface KnowledgeLoadEnv {
  service: KnowledgeService
  framework: string
  viteServe: ViteServe | undefined
  relativize: (file: string) => string
  /** What this build has reported, so each warning shows once. */
  reports: BuildReports
  /** Import path of `runtime-knowledge.mjs`. */
  runtime: string
  /** Assets of Rollup-like builds for Node, resolved relative to their chunk. */
  chunkAssets: ChunkRelativeAssets
  /** Rolldown's `platform` option, when the build sets one. */
  rolldownPlatform: string | undefined
  /** The files Vite's HTML pages preload, by module id (`preloadHtml`). */
  htmlPreloads: HtmlPreloads
  /** The module's id, under which its preloads are noted. */
  moduleId: string
  /** This bundler's channel for the lines of a knowledge build (see `progress.ts`). */
  progress: ProgressWrite | undefined
}

interface RollupLikeContext {
  emitFile: (file: { type: 'asset', fileName?: string, name?: string, source: Uint8Array }) => string
  environment?: { name: string, config: { consumer?: string, build?: { lib?: unknown } } }
}

/**
 * Where a Vite environment's output runs: a server's in Node, an app's client
 * in browsers, a library anywhere.
 */
function vitePlatform(context: RollupLikeContext): Platform {
  const config = context.environment?.config
  if (config?.consumer === 'server')
    return 'node'
  return config?.build?.lib ? 'any' : 'browser'
}

/** How this bundler (and, in Vite, this environment) takes the snapshot and model files. */
function assetMode(context: UnpluginBuildContext & UnpluginContext, env: KnowledgeLoadEnv): AssetMode {
  const { framework, viteServe } = env
  const rollupLike = context as unknown as RollupLikeContext
  if (framework === 'vite' && viteServe) {
    const { base, files } = viteServe
    return rollupLike.environment?.config.consumer === 'server' ? { kind: 'file' } : { kind: 'dev-server', base, serve: (path, file) => files.set(path, file) }
  }
  if (framework === 'vite' || framework === 'rollup' || framework === 'rolldown') {
    // Rollup and Rolldown builds may run anywhere (unless Rolldown's are for Node): asset URLs relative to the chunk suit both.
    const platform = framework === 'vite' ? vitePlatform(rollupLike) : env.rolldownPlatform === 'node' ? 'node' : 'any'
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
  if (framework === 'webpack' || framework === 'rspack')
    return { kind: 'url-asset', platform: webpackPlatform(context), emit: loaderEmitter(context) }
  if (framework === 'esbuild')
    return esbuildMode(context)
  return { kind: 'file' }
}

/** webpack's and rspack's platform of the target (`target: 'node'`, `'web'`, …). */
function webpackPlatform(context: UnpluginBuildContext): Platform {
  const native = context.getNativeBuildContext?.()
  const loader = native?.framework === 'webpack' || native?.framework === 'rspack' ? native.loaderContext : undefined
  const platform = (loader as { _compiler?: { platform?: { web?: boolean | null, node?: boolean | null } } } | undefined)?._compiler?.platform
  if (platform?.node && !platform.web)
    return 'node'
  return platform?.web && !platform.node ? 'browser' : 'any'
}

/**
 * Emits through the loader, not the compilation: the module then carries its
 * files, which webpack and rspack emit again when they reuse it from a cache
 * (watch mode, persistent cache). `minimized` keeps minifiers off ONNX
 * Runtime's `.mjs`, `immutable` says the names are versioned.
 */
function loaderEmitter(context: UnpluginBuildContext): EmitFixed {
  return (fileName, source) => {
    const native = context.getNativeBuildContext?.()
    const loader = native?.framework === 'webpack' || native?.framework === 'rspack' ? native.loaderContext : undefined
    if (!loader)
      throw new Error(`unplugin-skill-kit cannot emit ${fileName} outside a loader.`)
    loader.emitFile(fileName, Buffer.from(source.buffer, source.byteOffset, source.byteLength), undefined, { immutable: true, minimized: true })
  }
}

/** Whether this esbuild build has an output path, which its `file` loader needs. */
function esbuildWrites(context: UnpluginBuildContext): boolean {
  const native = context.getNativeBuildContext?.()
  const options = native?.framework === 'esbuild' ? native.build.initialOptions : {}
  return Boolean(options.outdir || options.outfile)
}

/** esbuild: where the model's files go (outdir, unless the build has none), where its `file` loader puts the snapshot, and what that is relative to. */
function esbuildMode(context: UnpluginBuildContext): AssetMode {
  const native = context.getNativeBuildContext?.()
  const { outdir, absWorkingDir, assetNames = '[name]-[hash]', platform = 'browser', format } = native?.framework === 'esbuild' ? native.build.initialOptions : {}
  // esbuild's default format for Node is CommonJS, where it leaves `import.meta.url` empty: there the bundle's URL is its file's.
  const cjs = format === 'cjs' || (format === undefined && platform === 'node')
  return {
    kind: 'esbuild',
    platform: platform === 'neutral' ? 'any' : platform,
    emit: outdir && native?.framework === 'esbuild' ? outdirEmitter(resolve(absWorkingDir ?? process.cwd(), outdir), native.build.initialOptions) : undefined,
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
export function writeEsbuildOutputs(build: PluginBuild): void {
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

/** The knowledge module, or `undefined` after reporting why it cannot be built. */
export async function loadKnowledgeModule(context: UnpluginBuildContext & UnpluginContext, target: KnowledgeTarget, env: KnowledgeLoadEnv): Promise<Loaded | undefined> {
  const { service, framework, relativize, reports } = env
  if (framework === 'esbuild' && !esbuildWrites(context)) {
    const what = target.kind === 'name' ? `${KNOWLEDGE_PREFIX}${target.name}` : `${relativize(target.dir)}?knowledge`
    context.error(bundlerMessage(framework, `${what}: esbuild copies a knowledge base's snapshot beside the bundle, so the build needs an output path: set outdir (or outfile).`, undefined))
    return undefined
  }
  const outcome: KnowledgeOutcome = await service.build(target, env.progress)
  if (!outcome.ok) {
    // A loaded module's dependencies are watched by the plugin (`watch.ts`); a failed one's, so that fixing it rebuilds, here.
    // The dev server's knowledge watcher rebuilds on its own (see vite-knowledge.ts): Vite must not chase these files.
    for (const file of env.viteServe ? [] : outcome.watch) {
      if (framework !== 'vite' || (existsSync(file) && statSync(file).isFile()))
        context.addWatchFile(file)
    }
    context.error(bundlerMessage(framework, outcome.message, outcome.diagnostic))
    return undefined
  }
  const textOf = fileTexts()
  for (const d of outcome.warnings) {
    if (reports.firstWarning(`${d.file}:${d.line}:${d.code}`))
      context.warn(bundlerMessage(framework, formatDiagnostic(d, relativize), d, textOf(d.file)))
  }
  const { project, build } = outcome
  const mode = assetMode(context, env)
  const sharded = outcome.shards ? shardedReference(mode, outcome.name, encodeShardedSnapshot(build.snapshot, outcome.shards)) : undefined
  if (sharded && 'error' in sharded) {
    context.error(bundlerMessage(framework, `${relativize(project.dir)}: ${sharded.error}`, undefined))
    return undefined
  }
  // esbuild finds the output folder from the snapshot its `file` loader copies: it stays the anchor of the shards' URLs.
  const snapshot: ReturnType<typeof snapshotReference> = sharded && mode.kind !== 'esbuild' ? { url: '' } : snapshotReference(mode, build.snapshotFile, outcome.name, build.snapshot)
  let bundledModel
  const { model, search } = project.config
  // The Vite dev server's SSR runs in place: it loads the model from the build's cache.
  if (outcome.includeModel && model && mode.kind !== 'file') {
    const reference = modelReference(mode, model, file => readFileSync(file))
    if ('error' in reference) {
      context.error(bundlerMessage(framework, `${relativize(project.dir)}: ${reference.error}`, undefined))
      return undefined
    }
    bundledModel = reference
  }
  // `auto` with the model in the bundle embeds with the model: the table would never be read.
  const { queryEncoder } = project.config
  let queryTable: string | undefined
  let queryTableReferenceId: string | undefined
  if (build.queryTable && (queryEncoder === 'static' || !bundledModel)) {
    const reference = queryTableReference(mode, build.queryTable, build.queryTable.dir)
    if ('error' in reference) {
      if (queryEncoder === 'static') {
        context.error(bundlerMessage(framework, `${relativize(project.dir)}: ${reference.error}`, undefined))
        return undefined
      }
      if (reports.firstWarning(`${project.dir}:query-table`))
        context.warn(bundlerMessage(framework, `${relativize(project.dir)}: ${reference.error} Until then, queries are embedded by the model.`, undefined))
    }
    else {
      queryTable = reference.core
      queryTableReferenceId = reference.coreReference
    }
  }
  // A page's first search fetches both cores: its HTML may ask for them before the JavaScript runs.
  if (framework === 'vite' && outcome.preloadHtml && sharded?.coreReference && mode.kind === 'emit' && mode.platform === 'browser')
    env.htmlPreloads.record(env.moduleId, queryTableReferenceId ? [sharded.coreReference, queryTableReferenceId] : [sharded.coreReference])
  const paths = new Map(build.documents.map(d => [d.id, join(project.config.knowledge, d.path)]))
  const versions = new Map(build.documents.map(d => [d.id, bodyVersion(d.body)]))
  const bodyId = (id: string): string => {
    const path = paths.get(id)!
    if (env.viteServe)
      return devBodyId(versions.get(id)!, id)
    // esbuild prints its plugins' module ids into bundles: there, relative to the root.
    return `${(framework === 'esbuild' ? relativize(path) : path).replace(/\\/g, '/')}${BODY_QUERY}`
  }
  const code = generateKnowledgeModule({
    name: outcome.name,
    runtime: env.runtime,
    documents: outcome.documents,
    bodies: outcome.documents.map(d => bodyId(d.id)),
    search,
    model: model && { id: model.id, revision: model.revision, dtype: model.dtype, maxTokens: model.maxTokens, queryPrefix: model.queryPrefix },
    queryEncoder: queryTable ? queryEncoder : 'model',
    queryTable,
    modelFingerprint: build.model ?? undefined,
    snapshotUrl: snapshot.url,
    sharded,
    base: snapshot.base,
    imports: snapshot.imports,
    devModelPath: model && mode.kind === 'file' ? model.cacheDir.replace(/\\/g, '/') : undefined,
    bundledModel,
    hot: env.viteServe !== undefined,
  })
  // The dev server's knowledge watcher rebuilds and updates the module (see vite-knowledge.ts): Vite must not chase its files.
  if (env.viteServe)
    return { code, files: [], dirs: [] }
  // The documents are the knowledge folder's: not the project's, whose hidden `.skill-kit` this build writes.
  return { code, files: outcome.watch.filter(file => file !== project.dir), dirs: [project.config.knowledge] }
}
