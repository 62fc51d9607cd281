// What generated knowledge modules import: the knowledge base, wired to the
// place it runs in. The snapshot is read from disk under Node (a `file:` URL,
// relative to the bundle) and fetched elsewhere; queries are embedded by the
// query model of `query-model.ts`, or not at all (lexical search).

import type { KnowledgeBase, KnowledgeBaseInit } from './knowledge'
import type { NodeFsPromises, NodeUrl } from './node-host'
import type { EmbedQuery } from './query-embedder'
import type { BundledModel, KnowledgeModelOptions, QueryModelSpec, UrlLike } from './query-model'
import { createKnowledgeBase, KnowledgeError } from './knowledge'
import { nodeBuiltin, nodeProcess } from './node-host'
import { queryModelSource } from './query-model'

/** Where and how a generated module finds its snapshot and model. */
export interface KnowledgeModuleInit extends Omit<KnowledgeBaseInit, 'loadSnapshot' | 'embedQuery'> {
  /** The snapshot's URL (`file:` in Node). */
  snapshotUrl: () => UrlLike
  /** The model the snapshot was built with; `false`: built with no model, so the snapshot has no vectors. */
  model: QueryModelSpec | false
  /** The model files the build emitted (`includeModel`). */
  bundledModel?: BundledModel
  /** The Vite dev server, which runs in place: the folder of the build's model cache. */
  devModelPath?: string
}

/** A knowledge base as a `?knowledge` or `virtual:skill-kit/knowledge/<name>` import gives it. */
export interface KnowledgeModule extends KnowledgeBase {
  /**
   * Embeds queries with the model files in `options.path` from now on: for a
   * bundle built without `includeModel`, or to load the model from another
   * folder. The files are read on the next search.
   */
  useModel: (options: KnowledgeModelOptions) => void
}

async function readAsset({ href }: UrlLike): Promise<ArrayBuffer | ArrayBufferView> {
  if (href.startsWith('file:') && nodeProcess?.getBuiltinModule) {
    const path = nodeBuiltin<NodeUrl>('node:url').fileURLToPath(href)
    return nodeBuiltin<NodeFsPromises>('node:fs/promises').readFile(path).catch((error: unknown) => {
      const code = (error as { code?: string }).code
      throw new Error(`Cannot read the knowledge snapshot ${path}${code ? ` (${code})` : ''}: it belongs beside the bundle; deploy the bundle's whole output folder.`, { cause: error })
    })
  }
  const response = await fetch(href)
  if (!response.ok)
    throw new Error(`Cannot load the knowledge snapshot ${href}: HTTP ${response.status} ${response.statusText}.`)
  return response.arrayBuffer()
}

export function defineKnowledge(init: KnowledgeModuleInit): KnowledgeModule {
  const { snapshotUrl, model, bundledModel, devModelPath, ...rest } = init
  // Without a model (`false`) the snapshot has no vectors to compare a query's with: no query model.
  const source = model ? queryModelSource({ model, bundled: bundledModel, devModelPath }) : undefined
  const base = createKnowledgeBase({
    ...rest,
    vectors: model !== false,
    loadSnapshot: () => readAsset(snapshotUrl()),
    // A getter: the knowledge base reads it at each search, so `useModel` applies to the next one.
    get embedQuery(): EmbedQuery | undefined {
      return source?.current()
    },
  })
  const useModel = source?.use ?? (() => {
    throw new KnowledgeError('no-vectors', `"${init.name}" was built without a model ("model": false), so it has no vectors for a query model to search: replace "model": false with the model's settings and build again.`)
  })
  return { ...base, useModel }
}
