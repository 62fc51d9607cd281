// A knowledge project routed: its documents read through the knowledge loader,
// the router its settings choose, and a check that no document changed while
// the model was asked, so a build never returns pages of a mix of versions.

import type { KnowledgeBuildFailure } from '../knowledge/build'
import type { Embedder } from '../knowledge/embedder'
import type { KnowledgeProject } from '../knowledge/project'
import type { ChatClientOptions } from './client'
import type { RoutedSkill } from './layout'
import type { LlmRouterOptions } from './llm'
import type { RoutingMemo, RoutingStats } from './memo'
import type { DocumentVectors } from './vector-topics'
import { readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { loadKnowledgeFolder } from '../knowledge/load-folder'
import { buildKnowledgeProject } from '../knowledge/project'
import { readManifest } from '../knowledge/publish'
import { SNAPSHOT_VERSION } from '../runtime/knowledge/format/snapshot-layout'
import { decodeSnapshot } from '../runtime/knowledge/format/snapshot-reader'
import { RoutingCache } from './cache'
import { createChatClient, RoutingError } from './client'
import { baseUrlProblem } from '../core/routing-config'
import { routeDocuments } from './route'
import { documentVectors } from './vector-topics'

/** The environment variable naming the routing model when `routing.model` is empty. */
export const MODEL_ENV = 'SKILL_KIT_LLM_MODEL'

export interface RouteProjectOptions {
  /** Where the model and API key are read from (default `process.env`). */
  env?: Record<string, string | undefined>
  /** Ask the model again for every card and summary. */
  force?: boolean
  /** Build from cached answers only; a miss fails, naming the document. */
  offline?: boolean
  /**
   * Never ask the model (the dev server, watch builds): cached answers only,
   * and the offline router describes what has none (listed in `stats`). No key needed.
   */
  cacheOnly?: boolean
  /** Documents and cards of earlier routings of this project, reused while unchanged. */
  memo?: RoutingMemo
  /** Filled with what this routing did (see {@link RoutingStats}). */
  stats?: RoutingStats
  /** One line per retry. */
  log?: (line: string) => void
  /** Client internals for tests: fetch, backoff, sleep, clock. */
  client?: Pick<ChatClientOptions, 'fetch' | 'backoffMs' | 'sleep' | 'now' | 'attempts'>
  /** Another embedder than the project's model, for the index `routing.topics: "vectors"` builds (tests). */
  embedder?: Embedder
}

/** The routing model a project uses: `routing.model`, else `SKILL_KIT_LLM_MODEL`; `undefined`: the offline router. */
export function routingModel(project: KnowledgeProject, env: Record<string, string | undefined> = process.env): string | undefined {
  return project.config.routing.model || env[MODEL_ENV]?.trim() || undefined
}

/** Where a project caches model answers: `<output>/routing-cache`. */
export function routingCacheDir(project: KnowledgeProject): string {
  return join(project.config.output, 'routing-cache')
}

/**
 * The vectors of the last snapshot read in each output folder: a snapshot's
 * file is named by its content and never rewritten, so the dev server's
 * routings of one index read and sum it once.
 */
const lastPublished = new Map<string, { snapshot: string, vectors: DocumentVectors }>()

/**
 * The vectors of the index published in the project's output, when it was
 * built with a model from these very documents (`digest`, the folder's);
 * `undefined` when there is none, it is of other documents or another
 * format, or unreadable.
 */
export function publishedVectors(project: KnowledgeProject, digest: string): DocumentVectors | undefined {
  const { output } = project.config
  const manifest = readManifest(output)
  if (!manifest || manifest.digest !== digest || manifest.model === null || (manifest.snapshotFormat ?? 1) !== SNAPSHOT_VERSION)
    return undefined
  const known = lastPublished.get(output)
  if (known?.snapshot === manifest.snapshot)
    return known.vectors
  try {
    const vectors = documentVectors(decodeSnapshot(readFileSync(join(output, manifest.snapshot))))
    lastPublished.set(output, { snapshot: manifest.snapshot, vectors })
    return vectors
  }
  catch {
    // Replaced or removed since the manifest was read, or damaged: a rebuild publishes another.
    return undefined
  }
}

/**
 * The vectors `routing.topics: "vectors"` groups by: those of the published
 * index of these documents, else of the index built and published now (as
 * `skill-kit build` does, reusing cached vectors), so that the same files
 * always give the same pages, whatever was built before.
 */
async function topicVectors(project: KnowledgeProject, digest: string, options: RouteProjectOptions): Promise<DocumentVectors | KnowledgeBuildFailure> {
  if (project.config.model === false)
    throw new RoutingError('"routing.topics" is "vectors", but the project has "model": false, so its index has no vectors. Set a "model" in skill-kit.json, or "routing.topics": "words".')
  const published = publishedVectors(project, digest)
  if (published)
    return published
  let build
  try {
    build = await buildKnowledgeProject(project, { offline: options.offline, embedder: options.embedder })
  }
  catch (error) {
    // A model that is missing, or a server that fails: each message names what to do.
    throw new RoutingError(`"routing.topics" is "vectors", so the index is built first, and it failed: ${(error as Error).message}`)
  }
  if (!('snapshot' in build) && !('stale' in build))
    return build
  const built = publishedVectors(project, digest)
  if (!built)
    throw new RoutingError('Documents changed while the index pages were built, so none were published. Build again once the edits are done.')
  return built
}

/**
 * Routes a project's documents. The offline router unless a routing model is
 * configured; it groups documents that name no topic by their words, or by
 * the vectors of the project's index with `routing.topics: "vectors"` (see
 * {@link topicVectors}). Document problems come back as diagnostics; model failures and
 * documents that changed during the build throw a {@link RoutingError}.
 */
export async function routeKnowledgeProject(project: KnowledgeProject, options: RouteProjectOptions = {}): Promise<RoutedSkill | KnowledgeBuildFailure> {
  const { config } = project
  const env = options.env ?? process.env
  const { memo, stats } = options
  const load = (onParse?: (file: string) => void) => memo ? memo.loadFolder(config.knowledge, config.maxDocumentBytes, onParse) : loadKnowledgeFolder(config.knowledge, { maxDocumentBytes: config.maxDocumentBytes })
  const folder = load(file => stats?.parsed.push(relative(config.knowledge, file).split(sep).join('/')))
  if (folder.diagnostics.some(d => d.severity === 'error'))
    return { diagnostics: folder.diagnostics, files: folder.files }

  let vectors: DocumentVectors | undefined
  if (config.routing.topics === 'vectors') {
    const found = await topicVectors(project, folder.digest, options)
    if ('diagnostics' in found)
      return found
    vectors = found
  }

  const model = routingModel(project, env)
  let llm: LlmRouterOptions | undefined
  if (model) {
    const { baseUrl, apiKeyEnv } = config.routing
    const problem = baseUrlProblem(baseUrl)
    if (problem)
      throw new RoutingError(problem)
    const apiKey = env[apiKeyEnv]
    const cacheOnly = options.offline || options.cacheOnly
    if (!cacheOnly && !apiKey)
      throw new RoutingError(`The routing model "${model}" needs an API key in the environment variable ${apiKeyEnv} ("routing.apiKeyEnv"): export ${apiKeyEnv}=… before building. For a local server that ignores it, any placeholder will do.`)
    const client = cacheOnly
      ? undefined
      : createChatClient({ baseUrl, model, apiKey: apiKey!, timeoutMs: config.routing.timeoutMs, retryBudgetMs: config.routing.retryBudgetMs, log: options.log, ...options.client })
    llm = {
      client,
      model,
      endpoint: client?.endpoint ?? baseUrl.replace(/\/+$/, ''),
      cache: new RoutingCache(routingCacheDir(project)),
      language: config.routing.language,
      maxInputChars: config.routing.maxInputChars,
      concurrency: config.routing.concurrency,
      force: options.force,
      offline: options.offline,
      cacheOnly: options.cacheOnly && !options.offline,
      log: options.log,
    }
  }
  const routes = await routeDocuments(folder.documents, {
    name: config.name,
    description: config.description,
    pageSize: config.routing.pageSize,
    maxEntryTokens: config.routing.maxEntryTokens,
    llm,
    memo,
    stats,
    vectors,
  })
  if (load().digest !== folder.digest)
    throw new RoutingError('Documents changed while the index pages were built, so none were published. Build again once the edits are done.')
  return routes
}
