// Loading a knowledge module: build (or reuse) the knowledge base, report its
// problems, reference its snapshot the way this bundler takes assets, generate.

import type { BundlerAdapter, ViteServe } from '../bundlers'
import type { ChunkRelativeAssets } from '../bundlers/chunk-assets'
import type { ProgressWrite } from '../bundlers/progress'
import type { HookContext, Loaded } from '../kind'
import type { BuildReports } from '../reports'
import type { HtmlPreloads } from './html-preloads'
import type { KnowledgeTarget } from './ids'
import type { KnowledgeOutcome, KnowledgeService } from './service'
import type { ShardedSnapshotFiles, ShardOptions } from '../../knowledge/snapshot-shards'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { formatDiagnostic } from '../../core/diagnostics'
import { fileTexts } from '../bundlers/message'
import { failFolderModule } from '../folders/builds'
import { BODY_QUERY, bodyVersion, devBodyId, KNOWLEDGE_PREFIX } from './ids'
import { encodeShardedSnapshot } from '../../knowledge/snapshot-shards'
import { modelReference, shardedReference, snapshotReference } from './assets'
import { queryTableReference } from './query-table-assets'
import { generateKnowledgeModule } from './codegen'

/**
 * Each build's core and shards, by its snapshot's bytes and the options: a
 * base is loaded once per environment and importer, and splitting it (row
 * groups, CRC-32 of every shard) costs more than any of those loads should.
 */
const shardedFiles = new WeakMap<Uint8Array, { options: string, files: ShardedSnapshotFiles }>()

function shardsOf(snapshot: Uint8Array, options: ShardOptions): ShardedSnapshotFiles {
  const key = JSON.stringify(options)
  const known = shardedFiles.get(snapshot)
  if (known?.options === key)
    return known.files
  const files = encodeShardedSnapshot(snapshot, options)
  shardedFiles.set(snapshot, { options: key, files })
  return files
}

/** What loading a knowledge module needs from the plugin. */
export interface KnowledgeLoadEnv {
  service: KnowledgeService
  bundler: BundlerAdapter
  viteServe: ViteServe | undefined
  relativize: (file: string) => string
  /** What this build has reported, so each warning shows once. */
  reports: BuildReports
  /** Import path of `runtime-knowledge.mjs`. */
  runtime: string
  /** Emitted assets of builds for Node, resolved relative to their chunk. */
  chunkAssets: ChunkRelativeAssets
  /** The files Vite's HTML pages preload, by module id (`preloadHtml`). */
  htmlPreloads: HtmlPreloads
  /** The module's id, under which its preloads are noted. */
  moduleId: string
  /** This bundler's channel for the lines of a knowledge build (see `bundlers/progress.ts`). */
  progress: ProgressWrite | undefined
}

/** The knowledge module, or `undefined` after reporting why it cannot be built. */
export async function loadKnowledgeModule(context: HookContext, target: KnowledgeTarget, env: KnowledgeLoadEnv): Promise<Loaded | undefined> {
  const { service, bundler, relativize, reports } = env
  const outputProblem = bundler.snapshotOutputProblem(context)
  if (outputProblem) {
    const what = target.kind === 'name' ? `${KNOWLEDGE_PREFIX}${target.name}` : `${relativize(target.dir)}?knowledge`
    context.error(bundler.message(`${what}: ${outputProblem}`, undefined))
    return undefined
  }
  const outcome: KnowledgeOutcome = await service.build(target, env.progress)
  // A loaded module's dependencies are watched by the plugin (`index.ts`); a failed one's, so that fixing it rebuilds, by failFolderModule.
  if (!outcome.ok)
    return failFolderModule(context, env, outcome)
  const textOf = fileTexts()
  for (const d of outcome.warnings) {
    if (reports.firstWarning(`${d.file}:${d.line}:${d.code}`))
      context.warn(bundler.message(formatDiagnostic(d, relativize), d, textOf(d.file)))
  }
  const { project, build } = outcome
  const mode = bundler.assetMode(context, env)
  const sharded = outcome.shards ? shardedReference(mode, outcome.name, shardsOf(build.snapshot, outcome.shards)) : undefined
  if (sharded && 'error' in sharded) {
    context.error(bundler.message(`${relativize(project.dir)}: ${sharded.error}`, undefined))
    return undefined
  }
  // A `file` loader's build finds the output folder from the snapshot it copies: it stays the anchor of the shards' URLs.
  const snapshot: ReturnType<typeof snapshotReference> = sharded && mode.kind !== 'file-loader' ? { url: '' } : snapshotReference(mode, build.snapshotFile, outcome.name, build.snapshot)
  let bundledModel
  const { model, search } = project.config
  // The Vite dev server's SSR runs in place: it loads the model from the build's cache.
  if (outcome.includeModel && model && mode.kind !== 'file') {
    const reference = modelReference(mode, model, file => readFileSync(file))
    if ('error' in reference) {
      context.error(bundler.message(`${relativize(project.dir)}: ${reference.error}`, undefined))
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
        context.error(bundler.message(`${relativize(project.dir)}: ${reference.error}`, undefined))
        return undefined
      }
      if (reports.firstWarning(`${project.dir}:query-table`))
        context.warn(bundler.message(`${relativize(project.dir)}: ${reference.error} Until then, queries are embedded by the model.`, undefined))
    }
    else {
      queryTable = reference.core
      queryTableReferenceId = reference.coreReference
    }
  }
  // A page's first search fetches both cores: its HTML may ask for them before the JavaScript runs (only Vite's app builds emit for browsers).
  if (outcome.preloadHtml && sharded?.coreReference && mode.kind === 'emit' && mode.platform === 'browser')
    env.htmlPreloads.record(env.moduleId, queryTableReferenceId ? [sharded.coreReference, queryTableReferenceId] : [sharded.coreReference])
  const paths = new Map(build.documents.map(d => [d.id, join(project.config.knowledge, d.path)]))
  const versions = new Map(build.documents.map(d => [d.id, bodyVersion(d.body)]))
  const bodyId = (id: string): string => {
    const path = paths.get(id)!
    if (env.viteServe)
      return devBodyId(versions.get(id)!, id)
    // Where ids are file names printed into bundles, relative to the root.
    return `${(bundler.idsAsFiles ? relativize(path) : path).replace(/\\/g, '/')}${BODY_QUERY}`
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
    vectorsPending: outcome.vectorsPending,
  })
  // The dev server's knowledge watcher rebuilds and updates the module (see dev-server.ts): Vite must not chase its files.
  if (env.viteServe)
    return { code, files: [], dirs: [] }
  // The documents are the knowledge folder's: not the project's, whose hidden `.skill-kit` this build writes.
  return { code, files: outcome.watch.filter(file => file !== project.dir), dirs: [project.config.knowledge] }
}
