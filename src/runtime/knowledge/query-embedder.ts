// Query embedding at run time with Transformers.js, which the caller hands in
// (Node: the installed package; browsers: the app's own bundled copy), so this
// module imports nothing. It frames and pools exactly like the build-time
// embedder, so queries land in the space of the snapshot's vectors.

import { QueryModelUnavailableError } from './errors'
import { meanPoolNormalize, sequenceFrame, wellFormed } from './vector/pooling'

/** Embeds one query into the snapshot's vector space. */
export type EmbedQuery = (query: string) => Promise<ArrayLike<number>>

/** The part of Transformers.js the query embedder uses. */
export interface TransformersModule {
  env: {
    localModelPath: string
    cacheDir?: string | null
    allowLocalModels: boolean
    allowRemoteModels: boolean
    backends?: { onnx?: { wasm?: { wasmPaths?: unknown } } }
  }
  AutoTokenizer: { from_pretrained: (id: string, options: object) => Promise<unknown> }
  AutoModel: { from_pretrained: (id: string, options: object) => Promise<unknown> }
  Tensor: new (type: 'int64', data: BigInt64Array, dims: number[]) => unknown
}

/** The model a snapshot was built with, and where its files are. */
export interface QueryModel {
  id: string
  revision: string
  dtype: string
  /** Tokens of one model input, special tokens and prefix included; longer queries are cut. */
  maxTokens: number
  queryPrefix: string
  /** Folder or base URL holding `<id>/config.json`, `<id>/tokenizer.json`, `<id>/onnx/…`. */
  localModelPath: string
  /** URLs of ONNX Runtime's WebAssembly files (browsers): its `.mjs` factory and `.wasm` binary. */
  wasmPaths?: { mjs: string, wasm: string }
  /** ONNX Runtime backend: `cpu` in Node, `wasm` in browsers. */
  device: 'cpu' | 'wasm'
}

interface Tokenizer {
  encode: (text: string, options: { add_special_tokens: boolean }) => number[]
  pad_token_id?: number
}

interface Model {
  forward: (inputs: Record<string, unknown>) => Promise<Record<string, { dims: number[], data: ArrayLike<number>, dispose?: () => void }>>
}

/**
 * Transformers.js 4 never reads local model files from an absolute http(s)
 * `localModelPath`: its existence check (tokenizer files, model files) skips
 * URLs, so `from_pretrained` finds nothing. A path or a scheme-relative URL is
 * fetched, relative to the page, so the model's URL becomes its path on the
 * page's origin, or `//host/path` on another one.
 */
function fetchablePath(path: string): string {
  if (!/^https?:\/\//i.test(path))
    return path
  const url = new URL(path)
  const here = (globalThis as { location?: { origin?: string, protocol?: string } }).location
  if (here?.origin === url.origin)
    return url.pathname
  return here?.protocol === url.protocol ? url.href.slice(url.protocol.length) : path
}

/** What a failed model load tells the user to do, unless the caller knows better. */
const LOAD_FIX = 'check that folder, or pass embedQuery'

/**
 * A query embedder that loads the model on first use, without ever reaching
 * the network: only `localModelPath` is read. A query longer than the model's
 * limit is cut to it (never an error). When Transformers.js or the model
 * cannot be loaded, it throws {@link QueryModelUnavailableError}, and tries
 * again on the next query.
 */
export function transformersQueryEmbedder(loadTransformers: () => Promise<TransformersModule>, model: QueryModel): EmbedQuery {
  let ready: Promise<(query: string) => Promise<Float32Array>> | undefined
  const load = async () => {
    let transformers: TransformersModule
    try {
      transformers = await loadTransformers()
    }
    catch (error) {
      if (error instanceof QueryModelUnavailableError)
        throw error
      throw new QueryModelUnavailableError(`Transformers.js cannot be loaded (${(error as Error).message})`, 'install @huggingface/transformers, or pass embedQuery', { cause: error })
    }
    const { env, AutoTokenizer, AutoModel, Tensor } = transformers
    env.localModelPath = model.device === 'wasm' ? fetchablePath(model.localModelPath) : model.localModelPath
    if (model.device === 'cpu')
      env.cacheDir = model.localModelPath
    env.allowLocalModels = true
    env.allowRemoteModels = false
    if (model.wasmPaths && env.backends?.onnx?.wasm)
      env.backends.onnx.wasm.wasmPaths = model.wasmPaths
    const options = { revision: model.revision, local_files_only: true }
    let tokenizer: Tokenizer
    let network: Model
    try {
      tokenizer = await AutoTokenizer.from_pretrained(model.id, options) as Tokenizer
      network = await AutoModel.from_pretrained(model.id, { ...options, dtype: model.dtype, device: model.device }) as Model
    }
    catch (error) {
      throw new QueryModelUnavailableError(`loading ${model.id} (${model.dtype}) from ${model.localModelPath} failed: ${(error as Error).message}`, LOAD_FIX, { cause: error })
    }
    const frame = sequenceFrame(tokenizer)
    if (!frame)
      throw new Error(`Cannot find the special tokens of ${model.id}'s tokenizer.`)
    const prefix = model.queryPrefix ? tokenizer.encode(model.queryPrefix, { add_special_tokens: false }) : []
    const room = Math.max(0, model.maxTokens - frame.head.length - frame.tail.length - prefix.length)
    return async (query: string) => {
      const content = tokenizer.encode(wellFormed(query), { add_special_tokens: false }).slice(0, room)
      const ids = [...frame.head, ...prefix, ...content, ...frame.tail]
      const dims = [1, ids.length]
      const outputs = await network.forward({
        input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), dims),
        attention_mask: new Tensor('int64', new BigInt64Array(ids.length).fill(1n), dims),
        token_type_ids: new Tensor('int64', new BigInt64Array(ids.length), dims),
      })
      const hidden = outputs.last_hidden_state ?? outputs.token_embeddings
      if (!hidden || hidden.dims.length !== 3)
        throw new Error(`${model.id} did not return last_hidden_state.`)
      const [vector] = meanPoolNormalize(hidden.data instanceof Float32Array ? hidden.data : Float32Array.from(hidden.data), 1, ids.length, hidden.dims[2]!, [ids.length])
      for (const tensor of Object.values(outputs))
        tensor.dispose?.()
      return vector!
    }
  }
  return async (query) => {
    ready ??= load().catch((error: unknown) => {
      ready = undefined
      throw error
    })
    return (await ready)(query)
  }
}
