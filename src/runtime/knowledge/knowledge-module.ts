// What generated knowledge modules import: the knowledge base, wired to the
// place it runs in. The snapshot is read from disk under Node (a `file:` URL)
// and fetched elsewhere; queries are embedded in Node by the installed
// Transformers.js, in browsers by the app's bundled copy with the model files
// the build emitted (`includeModel`), or not at all (lexical search).

import type { KnowledgeBase, KnowledgeBaseInit } from './knowledge'
import type { QueryModel, TransformersModule } from './query-embedder'
import { createKnowledgeBase } from './knowledge'
import { transformersQueryEmbedder } from './query-embedder'

/** Where and how a generated module finds its snapshot and model. */
export interface KnowledgeModuleInit extends Omit<KnowledgeBaseInit, 'loadSnapshot' | 'embedQuery'> {
  /** The snapshot's URL (`file:` in Node). */
  snapshotUrl: () => URL
  /** The model the snapshot was built with; `false`: built with no model, so the snapshot has no vectors. */
  model: Omit<QueryModel, 'localModelPath' | 'wasmPaths' | 'device'> | false
  /** Node: the folder of the build's model cache. */
  nodeModelPath?: string
  /** Browsers (`includeModel`): the bundled Transformers.js and the emitted model and WebAssembly files. */
  browserModel?: { load: () => Promise<TransformersModule>, modelUrl: () => URL, wasmUrls: () => { mjs: URL, wasm: URL } }
}

interface NodeProcess {
  versions?: { node?: string }
  getBuiltinModule?: (id: string) => unknown
}

const nodeProcess = (globalThis as { process?: NodeProcess }).process
const inNode = typeof nodeProcess?.versions?.node === 'string'

/** Kept in a variable, so that bundlers leave the import to Node at run time. */
const TRANSFORMERS = '@huggingface/transformers'

async function readAsset(url: URL): Promise<ArrayBuffer | ArrayBufferView> {
  if (url.protocol === 'file:' && nodeProcess?.getBuiltinModule) {
    const { readFile } = nodeProcess.getBuiltinModule('node:fs/promises') as { readFile: (path: URL) => Promise<Uint8Array> }
    return readFile(url)
  }
  const response = await fetch(url)
  if (!response.ok)
    throw new Error(`Cannot load the knowledge snapshot ${url.href}: HTTP ${response.status} ${response.statusText}.`)
  return response.arrayBuffer()
}

export function defineKnowledge(init: KnowledgeModuleInit): KnowledgeBase {
  const { snapshotUrl, model, nodeModelPath, browserModel, ...rest } = init
  let embedQuery: KnowledgeBaseInit['embedQuery']
  // Without a model (`false`) the snapshot has no vectors to compare a query's with: no embedder.
  if (model && inNode && nodeModelPath) {
    embedQuery = transformersQueryEmbedder(
      () => import(/* @vite-ignore */ /* webpackIgnore: true */ TRANSFORMERS) as Promise<TransformersModule>,
      { ...model, localModelPath: nodeModelPath, device: 'cpu' },
    )
  }
  else if (model && !inNode && browserModel) {
    const { mjs, wasm } = browserModel.wasmUrls()
    embedQuery = transformersQueryEmbedder(browserModel.load, {
      ...model,
      localModelPath: browserModel.modelUrl().href,
      wasmPaths: { mjs: mjs.href, wasm: wasm.href },
      device: 'wasm',
    })
  }
  return createKnowledgeBase({ ...rest, loadSnapshot: () => readAsset(snapshotUrl()), embedQuery, vectors: model !== false })
}
