// What generated knowledge modules import: the knowledge base, wired to the
// place it runs in. The snapshot is read from disk under Node (a `file:` URL,
// relative to the bundle) and fetched elsewhere, and so are the query table's
// core and the shards a query needs; queries are embedded by the table or the
// model, as `query-model.ts` chooses, or not at all (lexical search).

import type { KnowledgeBase, KnowledgeBaseInit, KnowledgeDocumentInfo } from './knowledge'
import type { NodeFsPromises, NodeUrl } from './node-host'
import type { EmbedQuery } from './query-embedder'
import type { BundledModel, KnowledgeModelOptions, QueryModelSource, QueryModelSpec, UrlLike } from './query-model'
import { createKnowledgeBase, KnowledgeError } from './knowledge'
import { nodeBuiltin, nodeProcess } from './node-host'
import { staticQueryEmbedder } from './vector/encoder/static-embedder'
import { queryTableShardName } from './vector/encoder/read'
import { queryModelSource } from './query-model'

/** Where and how a generated module finds its snapshot and model. */
export interface KnowledgeModuleInit extends Omit<KnowledgeBaseInit, 'loadSnapshot' | 'embedQuery'> {
  /** The snapshot's URL (`file:` in Node); of a sharded snapshot, its core's. */
  snapshotUrl: () => UrlLike
  /** A sharded snapshot (the `shards` option): its shards' URLs, in the core's order. */
  shardUrls?: () => UrlLike[]
  /** The model the snapshot was built with; `false`: built with no model, so the snapshot has no vectors. */
  model: QueryModelSpec | false
  /** How queries are embedded (`queryEncoder`; default `model`): `auto` and `static` need `queryTable`. */
  queryEncoder?: 'auto' | 'static' | 'model'
  /** The URL of the query table's core (`query-table.json`), its shards beside it. */
  queryTable?: () => UrlLike
  /** The fingerprint of the model the snapshot was built with: a query table distilled from another model is refused, never searched. */
  modelFingerprint?: string
  /** The model files the build emitted (`includeModel`). */
  bundledModel?: BundledModel
  /** The Vite dev server, which runs in place: the folder of the build's model cache. */
  devModelPath?: string
  /**
   * The Vite dev server serves the lexical index at once and embeds the
   * documents meanwhile: this snapshot has no vectors yet, and an update
   * brings them (see {@link KnowledgeModule.vectors}).
   */
  vectorsPending?: boolean
}

/**
 * Which ranking a knowledge base offers: `complete`, every chunk has its
 * vector (`auto` ranks by meaning and words); `pending`, the Vite dev server
 * serves the lexical index while it embeds, so searches are lexical until
 * the update that makes it `complete`; `none`, built with no model.
 */
export type KnowledgeVectors = 'complete' | 'pending' | 'none'

/** A knowledge base as a `?knowledge` or `virtual:skill-kit/knowledge/<name>` import gives it. */
export interface KnowledgeModule extends KnowledgeBase {
  /** Which ranking the current index offers; a dev-server update may change it (`pending` to `complete`). */
  readonly vectors: KnowledgeVectors
  /**
   * Embeds queries with the model files in `options.path` from now on: for a
   * bundle built without `includeModel`, or to load the model from another
   * folder. The files are read on the next search.
   */
  useModel: (options: KnowledgeModelOptions) => void
  /**
   * Calls `handler` each time the Vite dev server swaps a rebuilt index into
   * this knowledge base (a document added, edited or removed): `documents`,
   * `search` and `retrieve` already answer from the new one. Never called in a
   * build. Returns a function that stops the calls.
   */
  onUpdate: (handler: (knowledge: KnowledgeModule) => void) => () => void
}

/** Where an asset is, as messages name it: its path in Node, else its URL. */
function assetName({ href }: UrlLike): string {
  return href.startsWith('file:') && nodeProcess?.getBuiltinModule ? nodeBuiltin<NodeUrl>('node:url').fileURLToPath(href) : href
}

/** The static query encoder of the table at `core` (its shards beside it): it reads the core once and a query's shards only, and refuses a table of another model than `model`. */
function tableEmbedder(core: () => UrlLike, model: string | undefined): EmbedQuery {
  const shard = (index: number): UrlLike => new URL(queryTableShardName(index), core().href)
  return staticQueryEmbedder({
    core: () => readAsset(core(), 'query table'),
    shard: index => readAsset(shard(index), 'query table shard'),
    name: index => assetName(shard(index)),
    get coreName() {
      return assetName(core())
    },
    model,
  })
}

/** The bytes of the snapshot (`what`: `knowledge snapshot`) or of one of its shards. */
async function readAsset(url: UrlLike, what = 'knowledge snapshot'): Promise<ArrayBuffer | ArrayBufferView> {
  const { href } = url
  if (href.startsWith('file:') && nodeProcess?.getBuiltinModule) {
    const path = assetName(url)
    return nodeBuiltin<NodeFsPromises>('node:fs/promises').readFile(path).catch((error: unknown) => {
      const code = (error as { code?: string }).code
      throw new KnowledgeError('snapshot-unavailable', `Cannot read the ${what} ${path}${code ? ` (${code})` : ''}: it belongs beside the bundle; deploy the bundle's whole output folder.`)
    })
  }
  const response = await fetch(href)
  if (!response.ok)
    throw new KnowledgeError('snapshot-unavailable', `Cannot load the ${what} ${href}: HTTP ${response.status} ${response.statusText}. It belongs beside the bundle: deploy the bundle's whole output folder, or serve it at that URL.`)
  return response.arrayBuffer()
}

/** One index of a knowledge module: a dev-server update replaces it whole. */
interface KnowledgeIndexState {
  base: KnowledgeBase
  /** The query model; kept across updates that keep the model, so it loads once. */
  source: QueryModelSource | undefined
  /** The model settings `source` was made from. */
  modelKey: string
  vectors: KnowledgeVectors
}

/** What a live knowledge module holds: the index it answers from, and what the page asked of it. */
interface LiveState {
  current: KnowledgeIndexState
  documents: KnowledgeDocumentInfo[]
  /** The app's `useModel` options, applied again to each new index. */
  chosen: KnowledgeModelOptions | undefined
  handlers: Set<(knowledge: KnowledgeModule) => void>
}

const live = new WeakMap<KnowledgeModule, LiveState>()

function indexState(init: KnowledgeModuleInit): KnowledgeIndexState {
  const { snapshotUrl, shardUrls, model, bundledModel, devModelPath, queryEncoder = 'model', queryTable, modelFingerprint, vectorsPending = false, ...rest } = init
  const table = queryTable && queryEncoder !== 'model' ? { encoder: queryEncoder, embed: tableEmbedder(queryTable, modelFingerprint) } : undefined
  const vectors: KnowledgeVectors = model === false ? 'none' : vectorsPending ? 'pending' : 'complete'
  const models: Pick<KnowledgeIndexState, 'source' | 'modelKey' | 'vectors'> = {
    // Without vectors (no model, or not embedded yet) there is nothing to compare a query's with: no query model.
    source: model && !vectorsPending ? queryModelSource({ model, bundled: bundledModel, devModelPath, table, name: rest.name }) : undefined,
    // A new table (the corpus changed) is a new source: the table is the snapshot's, as the vectors are.
    modelKey: JSON.stringify([model, devModelPath, bundledModel !== undefined, queryEncoder, queryTable?.().href, vectorsPending]),
    vectors,
  }
  // The shards' URLs, made once: the generated list builds a URL per shard (hundreds), and a search loads dozens of shards.
  const shards = shardUrls?.()
  const base = createKnowledgeBase({
    ...rest,
    vectors: vectors === 'complete',
    vectorsPending,
    loadSnapshot: () => readAsset(snapshotUrl()),
    snapshotName: () => assetName(snapshotUrl()),
    ...(shards && {
      shards: {
        load: index => readAsset(shards[index]!, 'knowledge snapshot shard'),
        name: index => assetName(shards[index]!),
        count: shards.length,
      },
    }),
    // A getter: the knowledge base reads it at each search, so `useModel` (and an update that keeps the model) applies to the next one.
    get embedQuery(): EmbedQuery | undefined {
      return models.source?.current()
    },
    // Every embedder a module has is its own (the table, the model): an empty query loads its table's core or its model, and fetches no shard.
    prepareQuery: async () => models.source?.current()?.(''),
  })
  return Object.assign(models, { base })
}

export function defineKnowledge(init: KnowledgeModuleInit): KnowledgeModule {
  const state: LiveState = { current: indexState(init), documents: [...init.documents], chosen: undefined, handlers: new Set() }
  // Every method asks the current index: a dev-server update swaps it under the app's references.
  const knowledge: KnowledgeModule = {
    get name() {
      return state.current.base.name
    },
    get vectors() {
      return state.current.vectors
    },
    documents: state.documents,
    search: (query, options) => state.current.base.search(query, options),
    retrieve: id => state.current.base.retrieve(id),
    snapshot: () => state.current.base.snapshot(),
    preload: options => state.current.base.preload(options),
    useModel: (options) => {
      const { source, vectors } = state.current
      // Applied to the index with vectors when its update arrives (see swapKnowledge).
      if (vectors === 'pending') {
        state.chosen = options
        return
      }
      if (!source)
        throw new KnowledgeError('no-vectors', `"${state.current.base.name}" was built without a model ("model": false), so it has no vectors for a query model to search: replace "model": false with the model's settings and build again.`)
      source.use(options)
      state.chosen = options
    },
    onUpdate: (handler) => {
      state.handlers.add(handler)
      return () => {
        state.handlers.delete(handler)
      }
    },
  }
  live.set(knowledge, state)
  return knowledge
}

/**
 * Vite HMR: makes `knowledge` (the module instance the app imported) answer
 * from the index of `next` (the updated module's), keeping its identity, its
 * `documents` array and the app's `useModel` choice, then tells its
 * `onUpdate` handlers. Generated modules call it; apps never need to.
 */
export function swapKnowledge(knowledge: KnowledgeModule, next: KnowledgeModule): void {
  const state = live.get(knowledge)
  const incoming = live.get(next)
  if (!state || !incoming || state === incoming)
    return
  const index = incoming.current
  if (index.modelKey === state.current.modelKey)
    index.source = state.current.source
  else if (state.chosen && index.source)
    index.source.use(state.chosen)
  state.current = index
  state.documents.splice(0, state.documents.length, ...incoming.documents)
  for (const handler of state.handlers)
    handler(knowledge)
}
