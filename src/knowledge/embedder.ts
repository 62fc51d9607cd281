// The embedding model behind knowledge search, as a small interface the pipeline uses
// (so a remote service can replace it), and its local implementation on Transformers.js.
//
// Token IDs are the currency: the pipeline tokenizes once, cuts oversized text into
// overlapping windows of token IDs (never decode-and-retokenize), and embeds the windows
// as they are. The embedder adds the special tokens and the prefix around each input.

import type { PreTrainedModel, PreTrainedTokenizer } from '@huggingface/transformers'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { makeGeneratedFolder } from '../core/folders'
import { sha256 } from '../core/hash'
import { inspectFile, locateModelFiles, ModelNotAvailableError, onnxFileOf } from './embedder-files'
import { DEFAULT_MODEL_HOST, ModelDownloadError, watchedFetch } from './model-download'
import { sequenceFrame, wellFormed } from '../runtime/knowledge/vector/pooling'
import { meanPoolNormalize, planBatches } from './embedder-pooling'
import { assertTransformersInstalled, loadTransformers, pinWasmPaths, withEnvLock } from './transformers'

export { ModelNotAvailableError } from './embedder-files'
export { ModelDownloadError } from './model-download'
export { meanPoolNormalize, planBatches } from './embedder-pooling'

/** Documents are indexed, queries are searched for; models such as E5 prefix them differently. */
export type EmbedKind = 'document' | 'query'

export interface Embedder {
  /**
   * What the vectors depend on (model, revision, weights, dtype, pooling, prefixes, token
   * limit, embedder version). Equal fingerprints: the same input gives the same vector.
   */
  readonly fingerprint: string
  /**
   * Length of every vector; 0 until the first answer for an embedder that
   * learns it then (an embedding server without `model.dimensions`).
   */
  readonly dimensions: number
  /** Tokens of one model input, special tokens and prefix included. */
  readonly maxTokens: number
  /**
   * Tokens the embedder adds around every input of a kind: the special tokens ([CLS] and
   * [SEP] for BERT) plus that kind's prefix. A window of content IDs may hold
   * `maxTokens - reservedTokens[kind]` tokens.
   */
  readonly reservedTokens: Readonly<Record<EmbedKind, number>>
  /** The model's own token IDs for `text`, without special tokens or prefix. Never throws on odd text. */
  tokenize: (text: string) => number[]
  /**
   * Embeds texts (with the kind's prefix; tokens beyond the budget are cut off):
   * unit vectors, in input order. Empty strings, emoji, control characters are fine.
   */
  embed: (texts: readonly string[], kind?: EmbedKind) => Promise<Float32Array[]>
  /**
   * Embeds windows of token IDs (from `tokenize`, at most `maxTokens - reservedTokens[kind]`
   * each) as they are: input_ids = [CLS] prefix window [SEP]. Unit vectors, in input order.
   */
  embedTokens: (windows: readonly (readonly number[])[], kind?: EmbedKind, options?: EmbedCallOptions) => Promise<Float32Array[]>
  /**
   * What `tokenize` counts: 1 when it returns the model's token IDs; N when it
   * returns code points (no tokenizer for the model), N of which make one token
   * of the window sizes in `skill-kit.json`. `maxTokens` and `reservedTokens`
   * are in these units. Default 1.
   */
  readonly unitsPerToken?: number
  /**
   * How an embedder that works in requests (a server) is fed: windows per
   * request, estimated tokens per request, and requests in flight at once.
   * Absent: the build hands over 64 windows at a time, one call after another.
   */
  readonly requests?: EmbedderRequests
  /** Releases the model. */
  dispose: () => Promise<void>
}

/** What a caller of `embedTokens` hears while it waits. */
export interface EmbedCallOptions {
  /** A line for people each time a request is retried (an embedding server's 429 or 5xx). */
  log?: (line: string) => void
}

/** See {@link Embedder.requests}. */
export interface EmbedderRequests {
  /** Most windows in one call of `embedTokens`. */
  inputs: number
  /** Most estimated tokens (content, prefix and special tokens) in one call. */
  tokens: number
  /** Calls of `embedTokens` in flight at once. */
  concurrency: number
}

/** Bump when embedding semantics change (pooling, special tokens, truncation): it changes every fingerprint. */
export const EMBEDDER_VERSION = 1

export const DEFAULT_EMBEDDING_MODEL = 'Xenova/all-MiniLM-L6-v2'
export const DEFAULT_EMBEDDING_REVISION = '751bff37182d3f1213fa05d7196b954e230abad9'

/**
 * Inputs per ONNX run, for models that batch without changing vectors (fp32, fp16). Inputs
 * are sorted by length first, so a batch pads little (batches in input order pad to their
 * longest input: 2x slower than one input per run on the guides' chunks). Batching pays for
 * short inputs only: short texts run faster in sorted batches of 8, the guides' long chunks
 * a little faster one per run (bench/embed.bench.mjs; figures: bench/RESULTS.md, "Figures behind the defaults").
 */
export const DEFAULT_BATCH_SIZE = 8

/**
 * Padded tokens per ONNX run (batch size × its longest input): 8 inputs of 64 tokens, 4 of
 * 128, 2 of 256, 1 of 512.
 */
export const MAX_BATCH_TOKENS = 512

export interface TransformersEmbedderOptions {
  /** A Transformers.js feature-extraction model with mean pooling (default `Xenova/all-MiniLM-L6-v2`). */
  model?: string
  /** An immutable revision (default: the pinned all-MiniLM-L6-v2 commit). */
  revision?: string
  /** ONNX weights: `q8` (default, onnx/model_quantized.onnx), `fp32` (onnx/model.onnx), `fp16`, `int8`, `uint8`, `q4`, `q4f16`, `bnb4`. */
  dtype?: string
  /**
   * Folder of model files, used as Transformers.js' `localModelPath` (a prepared or converted
   * model: `<cacheDir>/<model>/`) and `cacheDir` (downloads: `<cacheDir>/<model>/<revision>/`).
   * Default `.skill-kit/models` under the working directory.
   */
  cacheDir?: string
  /** Never touch the network; fail at once, naming the folder, when files are missing. */
  offline?: boolean
  /** Where missing files are downloaded from: the Hugging Face hub or a mirror of it (default `https://huggingface.co/`). */
  remoteHost?: string
  /** The command that prepares this model, named in errors about missing files (default `skill-kit model`). */
  fixCommand?: string
  queryPrefix?: string
  documentPrefix?: string
  /** Tokens of one model input, special tokens and prefix included (default and upper bound: the model's limit). */
  maxTokens?: number
  /**
   * Inputs per ONNX run (default {@link DEFAULT_BATCH_SIZE}). Models whose activations are
   * quantized per tensor (DynamicQuantizeLinear, e.g. Xenova's q8 files) always run one
   * input at a time, since batching would change their vectors.
   */
  batchSize?: number
}

export interface TransformersEmbedder extends Embedder {
  /** Inputs per ONNX run: the `batchSize` option, or 1 for a model with per-tensor dynamic quantization. */
  readonly batchSize: number
}

/** A model's tokenizer, loaded alone from local files. */
export interface LocalTokenizer {
  tokenize: (text: string, options?: { specialTokens?: boolean }) => number[]
  decode: (ids: readonly number[]) => string
  /** SHA-256 of tokenizer.json and tokenizer_config.json: what its token IDs depend on. */
  hash: string
}

/**
 * The tokenizer of `modelId` when Transformers.js is installed and its files
 * (`tokenizer.json`, `tokenizer_config.json`) are in `cacheDir` (as the model's
 * other files would be); `undefined` otherwise. Never touches the network.
 */
export async function loadLocalTokenizer(cacheDir: string, modelId: string, revision: string): Promise<LocalTokenizer | undefined> {
  const files = locateModelFiles(resolve(cacheDir), modelId, revision, 'q8').found
  const paths = ['tokenizer.json', 'tokenizer_config.json'].map(file => files[file])
  if (paths.includes(undefined))
    return undefined
  try {
    assertTransformersInstalled()
  }
  catch {
    return undefined
  }
  const { env, AutoTokenizer } = await loadTransformers()
  const tokenizer = await withEnvLock(async () => {
    env.localModelPath = resolve(cacheDir)
    env.cacheDir = resolve(cacheDir)
    env.allowLocalModels = true
    env.allowRemoteModels = false
    return AutoTokenizer.from_pretrained(modelId, { revision, cache_dir: resolve(cacheDir), local_files_only: true })
  })
  return {
    tokenize: (text, { specialTokens = false } = {}) => tokenizer.encode(wellFormed(text), { add_special_tokens: specialTokens }),
    decode: ids => tokenizer.decode([...ids], { skip_special_tokens: true }),
    hash: sha256(...paths.map(path => readFileSync(path!))),
  }
}

/**
 * The local embedder: Transformers.js loads the tokenizer and the ONNX model (from
 * `cacheDir`, or downloading into it unless `offline`); this code builds input_ids itself
 * and does mean pooling and L2 normalization.
 */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions = {}): Promise<TransformersEmbedder> {
  const {
    model: modelId = DEFAULT_EMBEDDING_MODEL,
    revision = DEFAULT_EMBEDDING_REVISION,
    dtype = 'q8',
    offline = false,
    queryPrefix = '',
    documentPrefix = '',
    batchSize = DEFAULT_BATCH_SIZE,
  } = options
  const cacheDir = resolve(options.cacheDir ?? join('.skill-kit', 'models'))
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`)
  if (options.maxTokens !== undefined && (!Number.isInteger(options.maxTokens) || options.maxTokens < 3))
    throw new RangeError(`maxTokens must be an integer of at least 3, got ${options.maxTokens}`)

  // Fail fast, before the (slow) import of Transformers.js and ONNX Runtime.
  assertTransformersInstalled()
  const before = locateModelFiles(cacheDir, modelId, revision, dtype)
  if (offline && before.missing.length > 0)
    throw new ModelNotAvailableError(modelId, before.localDir, before.missing, options.fixCommand)
  const remoteHost = options.remoteHost ?? DEFAULT_MODEL_HOST
  // Transformers.js downloads into the model folder: made here first, so that it is kept out of git.
  if (before.missing.length > 0)
    makeGeneratedFolder(cacheDir, { cache: true })

  const transformers = await loadTransformers()
  const { env, AutoTokenizer, AutoModel, Tensor } = transformers
  const { tokenizer, model } = await withEnvLock(async () => {
    env.localModelPath = cacheDir
    env.cacheDir = cacheDir
    env.allowLocalModels = true
    env.allowRemoteModels = !offline
    env.remoteHost = remoteHost
    pinWasmPaths(env.backends?.onnx?.wasm as { wasmPaths?: unknown } | undefined)
    const load = { revision, cache_dir: cacheDir, local_files_only: offline }
    const fetch = env.fetch
    const watched = watchedFetch(fetch as typeof globalThis.fetch)
    env.fetch = watched.fetch
    try {
      const tokenizer: PreTrainedTokenizer = await AutoTokenizer.from_pretrained(modelId, load)
      const model: PreTrainedModel = await AutoModel.from_pretrained(modelId, { ...load, dtype: dtype as 'q8', device: 'cpu' })
      return { tokenizer, model }
    }
    catch (error) {
      // Files still missing after a failed request: the download failed, whatever Transformers.js made of it.
      const reason = watched.failure()
      if (reason !== undefined && locateModelFiles(cacheDir, modelId, revision, dtype).missing.length > 0)
        throw new ModelDownloadError(modelId, dtype, remoteHost, before.downloadDir, reason, options.fixCommand)
      throw error
    }
    finally {
      env.fetch = fetch
    }
  })

  try {
    const files = locateModelFiles(cacheDir, modelId, revision, dtype)
    const onnxPath = files.found[onnxFileOf(dtype)]
    const config = (model as unknown as { config: Record<string, unknown> }).config
    const dimensions = Number(config.hidden_size ?? config.d_model ?? config.dim)
    if (!Number.isInteger(dimensions) || dimensions <= 0)
      throw new Error(`Cannot tell the embedding size of ${modelId}: its config.json has no hidden_size.`)

    const frame = sequenceFrame(tokenizer)
    if (!frame)
      throw new Error(`Cannot find the special tokens of ${modelId}'s tokenizer.`)
    const { head, tail } = frame
    const padId = tokenizer.pad_token_id ?? 0

    const tokenize = (text: string): number[] => tokenizer.encode(wellFormed(text), { add_special_tokens: false })
    const prefixIds: Record<EmbedKind, number[]> = { document: tokenize(documentPrefix), query: tokenize(queryPrefix) }
    const reservedTokens = Object.freeze({
      document: head.length + tail.length + prefixIds.document.length,
      query: head.length + tail.length + prefixIds.query.length,
    })

    const positions = Number(config.max_position_embeddings ?? Infinity)
    const tokenizerLimit = Number(tokenizer.model_max_length ?? Infinity)
    let modelLimit = Math.min(positions, tokenizerLimit > 1e6 ? Infinity : tokenizerLimit)
    if (!Number.isFinite(modelLimit))
      modelLimit = 512
    const maxTokens = Math.min(options.maxTokens ?? modelLimit, modelLimit)
    if (maxTokens <= Math.max(reservedTokens.document, reservedTokens.query))
      throw new RangeError(`maxTokens ${maxTokens} leaves no room for text after the special tokens and prefixes (${Math.max(reservedTokens.document, reservedTokens.query)} tokens).`)

    // Dynamic quantization with one scale per tensor (DynamicQuantizeLinear, as in Xenova's
    // q8 files) mixes the sequences of a batch: each sequence then runs alone, so that a
    // text's vector never depends on its neighbours (content-addressed caches rely on it).
    const onnx = onnxPath ? await inspectFile(onnxPath, ['DynamicQuantizeLinear']) : { sha256: 'unknown', contains: new Set(['DynamicQuantizeLinear']) }
    const effectiveBatchSize = onnx.contains.has('DynamicQuantizeLinear') ? 1 : batchSize
    const weightsHash = onnx.sha256
    const tokenizerHash = sha256(...['tokenizer.json', 'tokenizer_config.json'].map(f => files.found[f] ? readFileSync(files.found[f]!) : f))
    const identity = {
      embedder: 'transformers.js',
      version: EMBEDDER_VERSION,
      model: modelId,
      revision,
      dtype,
      weights: weightsHash,
      tokenizer: tokenizerHash,
      pooling: 'mean',
      normalize: 'l2',
      maxTokens,
      queryPrefix,
      documentPrefix,
    }
    const fingerprint = `${modelId}@${revision.slice(0, 12)}/${dtype}/${sha256(JSON.stringify(identity)).slice(0, 24)}`

    const vocabSize = Number(config.vocab_size ?? Infinity)
    let queue: Promise<unknown> = Promise.resolve()
    let disposed = false

    /** Runs framed sequences through the model, length-sorted batches, one run at a time. */
    const run = (sequences: number[][]): Promise<Float32Array[]> => {
      const job = queue.then(async () => {
        if (disposed)
          throw new Error('This embedder has been disposed.')
        const out: Float32Array[] = Array.from({ length: sequences.length })
        for (const batch of planBatches(sequences.map(s => s.length), effectiveBatchSize, MAX_BATCH_TOKENS)) {
          const lengths = batch.map(i => sequences[i]!.length)
          const width = Math.max(...lengths)
          const ids = new BigInt64Array(batch.length * width).fill(BigInt(padId))
          const mask = new BigInt64Array(batch.length * width)
          batch.forEach((index, row) => {
            const seq = sequences[index]!
            for (let k = 0; k < seq.length; k++) {
              ids[row * width + k] = BigInt(seq[k]!)
              mask[row * width + k] = 1n
            }
          })
          const dims = [batch.length, width]
          const outputs = await model.forward({
            input_ids: new Tensor('int64', ids, dims),
            attention_mask: new Tensor('int64', mask, dims),
            token_type_ids: new Tensor('int64', new BigInt64Array(ids.length), dims),
          })
          const hidden = outputs.last_hidden_state ?? outputs.token_embeddings
          if (!hidden || hidden.dims.length !== 3 || hidden.dims[2] !== dimensions)
            throw new Error(`${modelId} did not return last_hidden_state [batch, sequence, ${dimensions}].`)
          const vectors = meanPoolNormalize(hidden.data as Float32Array, batch.length, width, dimensions, lengths)
          batch.forEach((index, row) => {
            out[index] = vectors[row]!
          })
          for (const tensor of Object.values(outputs) as { dispose?: () => void }[])
            tensor.dispose?.()
        }
        return out
      })
      queue = job.catch(() => {})
      return job
    }

    const framed = (content: readonly number[], kind: EmbedKind) => [...head, ...prefixIds[kind], ...content, ...tail]

    return {
      fingerprint,
      dimensions,
      maxTokens,
      reservedTokens,
      batchSize: effectiveBatchSize,
      tokenize,
      async embed(texts, kind = 'document') {
        const room = maxTokens - reservedTokens[kind]
        return run(texts.map(text => framed(tokenize(text).slice(0, room), kind)))
      },
      async embedTokens(windows, kind = 'document') {
        const room = maxTokens - reservedTokens[kind]
        return run(windows.map((window, i) => {
          if (window.length > room)
            throw new RangeError(`Token window ${i} has ${window.length} tokens; a ${kind} window holds at most ${room} (maxTokens ${maxTokens} − ${reservedTokens[kind]} reserved).`)
          for (const id of window) {
            if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
              throw new RangeError(`Token window ${i} holds ${id}, which is not a token ID of ${modelId}.`)
          }
          return framed(window, kind)
        }))
      },
      async dispose() {
        if (disposed)
          return
        await queue
        disposed = true
        await model.dispose()
      },
    }
  }
  catch (error) {
    await model.dispose()
    throw error
  }
}
