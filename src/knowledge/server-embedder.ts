// The embedder of a model served by an embedding server speaking the
// OpenAI-compatible POST /v1/embeddings API (Text Embeddings Inference, vLLM,
// Ollama, hosted providers). The pipeline stays the same: windows are cut on
// the model's token IDs when its tokenizer is on disk (and sent as decoded
// text), else on code points, CHARS_PER_TOKEN of them counted as one token.

import type { EmbeddingServerConfig } from './config'
import type { Embedder, EmbedderRequests, EmbedKind, LocalTokenizer } from './embedder'
import type { HttpJsonClient, HttpJsonOptions } from '../core/http-json'
import { createHash } from 'node:crypto'
import { createHttpJsonClient, FaultyAnswerError } from '../core/http-json'
import { sequenceFrame, unitVector } from '../runtime/knowledge/vector/pooling'
import { loadLocalTokenizer } from './embedder'

/**
 * Code points counted as one token when the model's tokenizer is not on disk:
 * windows then hold `chunk.maxTokens × 3` characters. English prose averages
 * about 4 characters a WordPiece or BPE token, code and other scripts fewer,
 * so 3 keeps most windows within the model's limit.
 */
export const CHARS_PER_TOKEN = 3

/** The code points of `text`, lone surrogates as U+FFFD (a plain loop: Array.from's iterator took 0.9 s of a 120,000-window build). */
function codePoints(text: string): number[] {
  const out: number[] = []
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xD800 && unit <= 0xDFFF) {
      const next = text.charCodeAt(i + 1)
      if (unit <= 0xDBFF && next >= 0xDC00 && next <= 0xDFFF) {
        out.push((unit - 0xD800) * 0x400 + next - 0xDC00 + 0x10000)
        i++
      }
      else {
        out.push(0xFFFD)
      }
    }
    else {
      out.push(unit)
    }
  }
  return out
}

/** Bump when what is sent for a window changes: it changes every server fingerprint. */
export const SERVER_EMBEDDER_VERSION = 1

/** An embedding server failed or answered something unusable; said for people, with the setting that fixes it. */
export class EmbeddingServerError extends Error {
  override name = 'EmbeddingServerError'
}

const SERVER_ROLE = {
  settings: 'model',
  server: 'embedding server',
  exampleUrl: 'https://api.openai.com/v1',
  error: (message: string) => new EmbeddingServerError(message),
}

export interface ServerEmbedderOptions {
  /** The model's name on the server (`model.id`). */
  model: string
  server: EmbeddingServerConfig
  /** Tokens of one model input, special tokens and prefix included (`model.maxTokens`). */
  maxTokens: number
  queryPrefix?: string
  documentPrefix?: string
  /** Where the model's tokenizer may be (`model.cacheDir`: `<cacheDir>/<model>/tokenizer.json`). */
  cacheDir: string
  /** Its revision, for a tokenizer Transformers.js downloaded (`<cacheDir>/<model>/<revision>/`). */
  revision: string
  /** Where the API key is read (default `process.env`). */
  env?: Record<string, string | undefined>
  /** Tests: the HTTP client's sleep, clock, fetch and retry log. */
  http?: Pick<HttpJsonOptions, 'sleep' | 'now' | 'fetch' | 'log' | 'backoffMs' | 'attempts'>
}

export interface ServerEmbedder extends Embedder {
  /** The base URL without credentials. */
  readonly endpoint: string
  /** `tokenizer` when windows are cut on the model's tokens, `characters` when on code points. */
  readonly windowing: 'tokenizer' | 'characters'
  readonly requests: EmbedderRequests
}

/** A vector component a 32-bit float cannot hold, as the server wrote it (JSON parsing reads 1e999 as Infinity). */
function outOfRange(value: number): string {
  return Number.isFinite(value) ? String(value) : `a number beyond ${value < 0 ? '-' : ''}1.8e308 (read as ${value})`
}

/**
 * What one request's answer must hold: one finite, non-zero vector per input,
 * all of one length, under the indexes 0..count−1 each once. Indexes that are
 * not are a server fault ({@link FaultyAnswerError}: retried), since the
 * vectors cannot be matched to their windows; the rest fail at once.
 */
function checkedVectors(answer: unknown, count: number, expected: number | undefined, http: HttpJsonClient, subject: string): Float32Array[] {
  const name = `The embedding server at ${http.endpoint}`
  const data = (answer as { data?: unknown } | null)?.data
  if (!Array.isArray(data))
    throw new EmbeddingServerError(`${name} answered ${subject} without a "data" list of embeddings: is "model.baseUrl" an OpenAI-compatible API (ending in /v1)?`)
  if (data.length !== count)
    throw new EmbeddingServerError(`${name} answered ${subject} with ${data.length} embeddings for ${count} inputs.`)
  const items = data as ({ index?: unknown, embedding?: unknown } | null)[]
  const ordered: typeof items = Array.from({ length: count })
  for (const item of items) {
    const index = item?.index
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || ordered[index] !== undefined) {
      const expectedIndexes = count === 1 ? 'the integer 0' : `the integers 0 to ${count - 1}, each once`
      throw new FaultyAnswerError(`${name} answered ${subject} with embeddings whose "index" fields are not ${expectedIndexes}: ${http.quote(items.map(one => one?.index ?? null))}. Its vectors cannot be matched to the inputs, so none is kept.`)
    }
    ordered[index] = item
  }
  let length = expected
  return ordered.map((item) => {
    const embedding = item?.embedding
    if (!Array.isArray(embedding))
      throw new EmbeddingServerError(`${name} answered ${subject} with an embedding that is not a list of numbers: ${http.quote(embedding ?? null)}`)
    length ??= embedding.length
    if (embedding.length !== length)
      throw new EmbeddingServerError(`${name} answered ${subject} with ${embedding.length}-dimensional vectors where ${length} dimensions were expected. Check "model.id" and "model.dimensions".`)
    const vector = unitVector(embedding)
    if (vector instanceof Float32Array)
      return vector
    if (vector.problem === 'zero')
      throw new EmbeddingServerError(`${name} answered ${subject} with an all-zero vector, which has no direction to search by.`)
    throw new EmbeddingServerError(vector.problem === 'out-of-range'
      ? `${name} answered ${subject} with a vector holding ${outOfRange(vector.value)}, out of the range of a 32-bit float (at most 3.4e38 either side of zero).`
      : `${name} answered ${subject} with a vector holding ${http.quote(vector.value)}, which is not a finite number.`)
  })
}

/**
 * Whether a request of `inputs` windows and `tokens` estimated tokens must go
 * before a window of `next` tokens joins it (a window over the token bound goes alone).
 */
export function requestIsFull(inputs: number, tokens: number, next: number, limits: Pick<EmbedderRequests, 'inputs' | 'tokens'>): boolean {
  return inputs > 0 && (inputs >= limits.inputs || tokens + next > limits.tokens)
}

/**
 * Splits windows into requests in input order: at most `inputs` windows and
 * `tokens` estimated tokens each (a window over the token bound goes alone).
 */
export function planRequests(tokens: readonly number[], limits: Pick<EmbedderRequests, 'inputs' | 'tokens'>): number[][] {
  const requests: number[][] = []
  let current: number[] = []
  let sum = 0
  tokens.forEach((n, i) => {
    if (requestIsFull(current.length, sum, n, limits)) {
      requests.push(current)
      current = []
      sum = 0
    }
    current.push(i)
    sum += n
  })
  if (current.length > 0)
    requests.push(current)
  return requests
}

/**
 * An embedder on an embedding server. Nothing is sent until something is
 * embedded, so a build whose vectors are all cached never reaches the server.
 * The API key is read from `server.apiKeyEnv`; when that variable is unset,
 * requests carry no Authorization header (local servers need none).
 */
export async function createServerEmbedder(options: ServerEmbedderOptions): Promise<ServerEmbedder> {
  const { model, server, maxTokens, queryPrefix = '', documentPrefix = '' } = options
  const apiKey = (options.env ?? process.env)[server.apiKeyEnv] || undefined
  const http = createHttpJsonClient(SERVER_ROLE, { baseUrl: server.baseUrl, apiKey, timeoutMs: server.timeoutMs, retryBudgetMs: server.retryBudgetMs, ...options.http })
  const tokenizer: LocalTokenizer | undefined = await loadLocalTokenizer(options.cacheDir, model, options.revision)

  const units = tokenizer ? 1 : CHARS_PER_TOKEN
  const tokenize = tokenizer ? (text: string) => tokenizer.tokenize(text) : codePoints
  const decode = tokenizer ? tokenizer.decode : (ids: readonly number[]) => String.fromCodePoint(...ids)
  // The server adds the model's special tokens; with the tokenizer on disk they are counted exactly.
  const frame = tokenizer && sequenceFrame({ encode: (text, o) => tokenizer.tokenize(text, { specialTokens: o.add_special_tokens }) })
  const special = frame ? frame.head.length + frame.tail.length : 0
  const prefixes: Record<EmbedKind, string> = { document: documentPrefix, query: queryPrefix }
  const reservedTokens = Object.freeze({
    document: special + tokenize(documentPrefix).length,
    query: special + tokenize(queryPrefix).length,
  })
  const maxUnits = maxTokens * units
  if (maxUnits <= Math.max(reservedTokens.document, reservedTokens.query))
    throw new EmbeddingServerError(`"model.maxTokens" (${maxTokens}) leaves no room for text after the prefixes.`)

  const identity = {
    embedder: 'openai-compatible',
    version: SERVER_EMBEDDER_VERSION,
    endpoint: http.endpoint,
    model,
    dimensions: server.dimensions ?? 'server',
    windows: tokenizer ? `tokenizer:${tokenizer.hash}` : `characters:${CHARS_PER_TOKEN}`,
    normalize: 'l2',
    maxTokens,
    queryPrefix,
    documentPrefix,
  }
  // The endpoint is hashed, never spelled out: the fingerprint is published with the index.
  const fingerprint = `openai-compatible:${model}/${createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 24)}`
  const requests: EmbedderRequests = { inputs: server.batchSize, tokens: server.maxBatchTokens, concurrency: server.concurrency }
  let dimensions = server.dimensions

  const send = async (texts: string[], log?: (line: string) => void): Promise<Float32Array[]> => {
    const subject = `a request of ${texts.length} input${texts.length === 1 ? '' : 's'}`
    const body = { model, input: texts, encoding_format: 'float', ...(server.dimensions ? { dimensions: server.dimensions } : {}) }
    // Checked inside the request, so that an answer under the wrong indexes is retried and nothing of it is kept.
    const vectors = await http.post('/embeddings', body, subject, { log, validate: answer => checkedVectors(answer, texts.length, dimensions, http, subject) })
    dimensions ??= vectors[0]?.length
    return vectors
  }
  const embedTexts = async (texts: string[], estimates: number[], log?: (line: string) => void): Promise<Float32Array[]> => {
    const out: Float32Array[] = []
    for (const request of planRequests(estimates, requests)) {
      const vectors = await send(request.map(i => texts[i]!), log)
      request.forEach((index, k) => {
        out[index] = vectors[k]!
      })
    }
    return out
  }
  const estimate = (window: readonly number[], kind: EmbedKind) => Math.ceil((window.length + reservedTokens[kind]) / units)

  return {
    fingerprint,
    get dimensions() {
      return dimensions ?? 0
    },
    maxTokens: maxUnits,
    reservedTokens,
    unitsPerToken: units,
    requests,
    endpoint: http.endpoint,
    windowing: tokenizer ? 'tokenizer' : 'characters',
    tokenize,
    async embed(texts, kind = 'document') {
      const room = maxUnits - reservedTokens[kind]
      const windows = texts.map(text => tokenize(text).slice(0, room))
      return embedTexts(windows.map(w => prefixes[kind] + decode(w)), windows.map(w => estimate(w, kind)))
    },
    async embedTokens(windows, kind = 'document', { log } = {}) {
      const room = maxUnits - reservedTokens[kind]
      windows.forEach((window, i) => {
        if (window.length > room)
          throw new RangeError(`Window ${i} has ${window.length} ${tokenizer ? 'tokens' : 'characters'}; a ${kind} window holds at most ${room}.`)
      })
      return embedTexts(windows.map(w => prefixes[kind] + decode(w)), windows.map(w => estimate(w, kind)), log)
    },
    async dispose() {},
  }
}
