import type { SnapshotDocument } from '../runtime/knowledge/snapshot-reader'

/** Everything a knowledge module is generated from. */
export interface KnowledgeModuleSource {
  name: string
  /** Import path of `runtime-knowledge.mjs`. */
  runtime: string
  /** Metadata of every document, in snapshot order (sorted by ID). */
  documents: readonly SnapshotDocument[]
  /** Module id of each document's body, in the order of `documents`. */
  bodies: readonly string[]
  search: { topK: number, threshold: number }
  /** The query model's settings; `false` for a knowledge base built with no model (no vectors). */
  model: { id: string, revision: string, dtype: string, maxTokens: number, queryPrefix: string } | false
  /** An expression for the snapshot's URL (or a string it resolves against `import.meta.url`). */
  snapshotUrl: string
  /** Statements the URL expression needs (an asset import for esbuild). */
  imports?: string
  /** The model cache folder, for query embedding in Node. */
  nodeModelPath?: string
  /** Expressions of the URLs (`URL` objects) of the emitted model folder and ONNX Runtime files (`includeModel`). */
  browserModel?: { modelUrl: string, wasmMjsUrl: string, wasmUrl: string }
}

const json = (value: unknown) => JSON.stringify(value)

/**
 * The module of a knowledge base: metadata inline; snapshot, bodies and (in
 * browsers) Transformers.js behind functions, so none of them is in the chunk
 * that imports the module.
 */
export function generateKnowledgeModule(source: KnowledgeModuleSource): string {
  const lines = [
    `import { defineKnowledge } from ${json(source.runtime)}`,
    ...(source.imports ? [source.imports] : []),
    `const knowledge = /*#__PURE__*/ defineKnowledge({`,
    `  name: ${json(source.name)},`,
    `  documents: JSON.parse(${json(json(source.documents))}),`,
    `  search: ${json(source.search)},`,
    `  model: ${json(source.model)},`,
    `  snapshotUrl: () => new URL(${source.snapshotUrl}, import.meta.url),`,
    `  bodies: [`,
    ...source.bodies.map(id => `    () => import(${json(id)}),`),
    `  ],`,
    ...(source.nodeModelPath ? [`  nodeModelPath: ${json(source.nodeModelPath)},`] : []),
    ...(source.browserModel
      ? [
          `  browserModel: {`,
          `    load: () => import('@huggingface/transformers'),`,
          `    modelUrl: () => ${source.browserModel.modelUrl},`,
          `    wasmUrls: () => ({ mjs: ${source.browserModel.wasmMjsUrl}, wasm: ${source.browserModel.wasmUrl} }),`,
          `  },`,
        ]
      : []),
    `})`,
    `export default knowledge`,
    `export const documents = knowledge.documents`,
    `export const search = knowledge.search`,
    `export const retrieve = knowledge.retrieve`,
    '',
  ]
  return lines.join('\n')
}

/** A document body as a module. */
export function generateBodyModule(body: string): string {
  return `export default ${json(body)}\n`
}
