// Loading a knowledge module: build (or reuse) the knowledge base, report its
// problems, reference its snapshot the way this bundler takes assets, generate.

import type { UnpluginBuildContext, UnpluginContext } from 'unplugin'
import type { KnowledgeOutcome, KnowledgeService, KnowledgeTarget } from './knowledge'
import type { AssetMode, EmitFixed } from './knowledge-assets'
import { Buffer } from 'node:buffer'
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { formatDiagnostic } from '../core/diagnostics'
import { BODY_QUERY } from './knowledge'
import { modelReference, snapshotReference } from './knowledge-assets'
import { generateKnowledgeModule } from './knowledge-codegen'

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
  /** Warnings shown in this build, so each shows once. */
  warned: Set<string>
  /** Import path of `runtime-knowledge.mjs`. */
  runtime: string
}

/** How this bundler (and, in Vite, this environment) takes the snapshot and model files. */
function assetMode(context: UnpluginBuildContext & UnpluginContext, framework: string, viteServe: ViteServe | undefined): AssetMode {
  const rollupLike = context as unknown as {
    emitFile: (file: { type: 'asset', fileName?: string, name?: string, source: Uint8Array }) => string
    environment?: { config: { consumer?: string, build?: { emitAssets?: boolean } } }
  }
  const server = rollupLike.environment?.config.consumer === 'server'
  if (framework === 'vite' && viteServe) {
    const { base, files } = viteServe
    return server ? { kind: 'file' } : { kind: 'dev-server', base, serve: (path, file) => files.set(path, file) }
  }
  if (framework === 'vite' && server && !rollupLike.environment?.config.build?.emitAssets)
    return { kind: 'file' }
  if (framework === 'vite' || framework === 'rollup' || framework === 'rolldown')
    return { kind: 'emit', emit: (fileName, name, source) => rollupLike.emitFile({ type: 'asset', ...(fileName ? { fileName } : { name }), source }) }
  if (framework === 'webpack' || framework === 'rspack')
    return { kind: 'url-asset', emit: loaderEmitter(context) }
  if (framework === 'esbuild')
    return esbuildMode(context)
  return { kind: 'file' }
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

/** esbuild: where the model's files go (outdir, unless the build has none) and where its `file` loader puts the snapshot. */
function esbuildMode(context: UnpluginBuildContext): AssetMode {
  const native = context.getNativeBuildContext?.()
  const { outdir, absWorkingDir, assetNames = '[name]-[hash]' } = native?.framework === 'esbuild' ? native.build.initialOptions : {}
  return { kind: 'esbuild', emit: outdir ? outdirEmitter(resolve(absWorkingDir ?? process.cwd(), outdir)) : undefined, assetNames }
}

/** esbuild has no emitted assets: files go straight into outdir, as its own `file` loader's do. */
function outdirEmitter(outdir: string): EmitFixed {
  return (fileName, source) => {
    const file = join(outdir, fileName)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, source)
  }
}

/**
 * Whether the module is built for browsers only (a Vite app's client, an
 * esbuild build for the browser platform): then it needs no Node model path,
 * and the build machine's folders stay out of the bundle. A Vite library may
 * run anywhere.
 */
function browserOnly(context: UnpluginBuildContext, framework: string): boolean {
  if (framework === 'vite') {
    const config = (context as unknown as { environment?: { config: { consumer?: string, build?: { lib?: unknown } } } }).environment?.config
    return config?.consumer === 'client' && !config.build?.lib
  }
  const native = context.getNativeBuildContext?.()
  return native?.framework === 'esbuild' && (native.build.initialOptions.platform ?? 'browser') === 'browser'
}

/** The knowledge module, or `undefined` after reporting why it cannot be built. */
export async function loadKnowledgeModule(context: UnpluginBuildContext & UnpluginContext, target: KnowledgeTarget, env: KnowledgeLoadEnv): Promise<string | undefined> {
const { service, framework, viteServe, relativize, warned } = env
  const outcome: KnowledgeOutcome = await service.build(target)
  // Vite resolves watched files as imports: there, folders and files yet to exist are watched by the dev server instead.
  for (const file of outcome.watch) {
    if (framework !== 'vite' || (existsSync(file) && statSync(file).isFile()))
      context.addWatchFile(file)
  }
  if (!outcome.ok) {
    const at = outcome.diagnostic
    context.error(at ? { message: outcome.message, id: at.file, loc: { file: at.file, line: at.line, column: at.column } } : outcome.message)
    return undefined
  }
  for (const d of outcome.warnings) {
    if (!warned.has(`${d.file}:${d.line}:${d.code}`)) {
      warned.add(`${d.file}:${d.line}:${d.code}`)
      context.warn({ message: formatDiagnostic(d, relativize), id: d.file, loc: { file: d.file, line: d.line, column: d.column } })
    }
  }
  const { project, build } = outcome
  const mode = assetMode(context, framework, viteServe)
  const snapshot = snapshotReference(mode, build.snapshotFile, outcome.name, build.snapshot)
  let browserModel
  const { model, search } = project.config
  if (outcome.includeModel && model) {
    const reference = modelReference(mode, model, file => readFileSync(file))
    if ('error' in reference) {
      context.error(`${relativize(project.dir)}: ${reference.error}`)
      return undefined
    }
    browserModel = reference
  }
  const paths = new Map(build.documents.map(d => [d.id, join(project.config.knowledge, d.path)]))
  return generateKnowledgeModule({
    name: outcome.name,
    runtime: env.runtime,
    documents: outcome.documents,
    bodies: outcome.documents.map(d => `${paths.get(d.id)!.replace(/\\/g, '/')}${BODY_QUERY}`),
    search,
    model: model && { id: model.id, revision: model.revision, dtype: model.dtype, maxTokens: model.maxTokens, queryPrefix: model.queryPrefix },
    snapshotUrl: snapshot.url,
    imports: snapshot.imports,
    nodeModelPath: !model || browserOnly(context, framework) ? undefined : model.cacheDir.replace(/\\/g, '/'),
    browserModel,
  })
}
