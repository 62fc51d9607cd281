import type { SnapshotDocument } from '../../runtime/knowledge/format/snapshot-layout'

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
  /** An expression for the snapshot's URL (or a string it resolves against `base`). */
  snapshotUrl: string
  /** A sharded snapshot (the `shards` option): expressions of the URLs (`URL` objects) of its core, which replaces `snapshotUrl`, and of its shards, in the core's order. */
  sharded?: { core: string, shards: readonly string[] }
  /** The URL relative ones resolve against: `import.meta.url`, unless the output has none (CommonJS of a `file` loader's bundle: `bundlers/asset-mode.ts`). */
  base?: string
  /** Statements the URL expression needs (an asset import for a `file` loader). */
  imports?: string
  /** How queries are embedded (`queryEncoder`); `'model'` without a query table. */
  queryEncoder: 'auto' | 'static' | 'model'
  /** An expression of the URL (a `URL` object) of the query table's core, its shards beside it. */
  queryTable?: string
  /** The fingerprint of the model the snapshot was built with: the module refuses a query table distilled from another. */
  modelFingerprint?: string
  /** The Vite dev server (SSR, in place): the model cache folder. */
  devModelPath?: string
  /** `includeModel`: expressions of the URLs (`URL` objects) of the emitted model folder and, for builds that may run in browsers, of ONNX Runtime Web's files. */
  bundledModel?: { modelUrl: string, wasm?: { mjsUrl: string, wasmUrl: string } }
  /**
   * The Vite dev server: the module accepts its own updates and swaps the new
   * index into the instance the app imported (see `swapKnowledge`).
   */
  hot?: boolean
  /** The dev server's lexical preview: the snapshot has no vectors yet, and the update with them follows (see `lexical-preview.ts`). */
  vectorsPending?: boolean
}

const json = (value: unknown) => JSON.stringify(value)

/**
 * The module of a knowledge base: metadata inline; snapshot, bodies and (in
 * browsers) Transformers.js behind functions, so none of them is in the chunk
 * that imports the module.
 */
export function generateKnowledgeModule(source: KnowledgeModuleSource): string {
  const lines = [
    `import { defineKnowledge${source.hot ? ', swapKnowledge' : ''} } from ${json(source.runtime)}`,
    ...(source.imports ? [source.imports] : []),
    `const knowledge = /*#__PURE__*/ defineKnowledge({`,
    `  name: ${json(source.name)},`,
    `  documents: JSON.parse(${json(json(source.documents))}),`,
    `  search: ${json(source.search)},`,
    `  model: ${json(source.model)},`,
    ...(source.model && source.queryEncoder !== 'model' ? [`  queryEncoder: ${json(source.queryEncoder)},`] : []),
    ...(source.queryTable ? [`  queryTable: () => ${source.queryTable},`] : []),
    ...(source.queryTable && source.modelFingerprint ? [`  modelFingerprint: ${json(source.modelFingerprint)},`] : []),
    ...(source.sharded
      ? [`  snapshotUrl: () => ${source.sharded.core},`, `  shardUrls: () => [${source.sharded.shards.join(', ')}],`]
      : [`  snapshotUrl: () => new URL(${source.snapshotUrl}, ${source.base ?? 'import.meta.url'}),`]),
    `  bodies: [`,
    ...source.bodies.map(id => `    () => import(${json(id)}),`),
    `  ],`,
    ...(source.devModelPath ? [`  devModelPath: ${json(source.devModelPath)},`] : []),
    ...(source.vectorsPending ? [`  vectorsPending: true,`] : []),
    ...(source.bundledModel ? bundledModelLines(source.bundledModel) : []),
    `})`,
    `export default knowledge`,
    `export const documents = knowledge.documents`,
    `export const search = knowledge.search`,
    `export const retrieve = knowledge.retrieve`,
    `export const useModel = knowledge.useModel`,
    ...(source.hot ? HOT_LINES : []),
    '',
  ]
  return lines.join('\n')
}

/**
 * Each update runs the new module, whose callback the next update calls: the
 * instance the app imported is kept in `hot.data`, which outlives them all.
 */
const HOT_LINES = [
  `if (import.meta.hot) {`,
  `  import.meta.hot.data.knowledge ??= knowledge`,
  `  import.meta.hot.accept((next) => {`,
  `    if (next)`,
  `      swapKnowledge(import.meta.hot.data.knowledge, next.default)`,
  `  })`,
  `}`,
]

/** The `bundledModel` entry; Transformers.js is imported (so bundled) only by builds that may run in browsers: Node imports the installed package. */
function bundledModelLines(model: NonNullable<KnowledgeModuleSource['bundledModel']>): string[] {
  return [
    `  bundledModel: {`,
    `    url: () => ${model.modelUrl},`,
    ...(model.wasm
      ? [
          `    browser: {`,
          `      load: () => import('@huggingface/transformers'),`,
          `      wasmUrls: () => ({ mjs: ${model.wasm.mjsUrl}, wasm: ${model.wasm.wasmUrl} }),`,
          `    },`,
        ]
      : []),
    `  },`,
  ]
}

/** A document body as a module. */
export function generateBodyModule(body: string): string {
  return `export default ${json(body)}\n`
}
