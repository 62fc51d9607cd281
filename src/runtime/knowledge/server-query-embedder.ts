// Query embedding at run time through an embedding server speaking the
// OpenAI-compatible POST /v1/embeddings API: the same server (and model) a
// knowledge base was built with (`model.provider: "openai-compatible"`), so
// queries land in the space of its vectors. Needs only `fetch`.

import type { EmbedQuery } from './query-embedder'
import { KnowledgeError } from './errors'
import { QueryModelUnavailableError } from './knowledge'
import { isLoopbackHost } from './loopback'
import { nodeProcess } from './node-host'
import { unitVector } from './pooling'

/** The part of `fetch` this module uses, so that apps compiled without the DOM's or Node's types can pass one. */
export type FetchLike = (url: string, init: { method: 'POST', headers: Record<string, string>, body: string, signal: unknown }) => Promise<{ ok: boolean, status: number, json: () => Promise<unknown> }>

/** Where and how to embed queries (the `model` settings the knowledge base was built with). */
export interface ServerQueryEmbedderOptions {
  /** The API's base URL (`model.baseUrl`), e.g. `http://127.0.0.1:8080/v1`; HTTPS unless on loopback. */
  baseUrl: string
  /** The model's name on the server (`model.id`). */
  model: string
  /** The API key. Default: the environment variable `apiKeyEnv` in Node; none in browsers (never ship a key to one). */
  apiKey?: string
  /** The environment variable holding the key in Node (default `OPENAI_API_KEY`); unset: requests carry no key. */
  apiKeyEnv?: string
  /** Sent as the API's `dimensions` (`model.dimensions`), and the length every answer must have. */
  dimensions?: number
  /** Put before the query (`model.queryPrefix`). */
  queryPrefix?: string
  /** How long a query may take, in milliseconds (default 10,000). */
  timeoutMs?: number
  /** Default: the global `fetch`. */
  fetch?: FetchLike
}

/**
 * An `embedQuery` that asks the embedding server for each query's vector (unit
 * length). When the server cannot be reached or answers something unusable it
 * throws {@link QueryModelUnavailableError}: an `auto` search then falls back
 * to lexical. The key never appears in an error.
 */
export function serverQueryEmbedder(options: ServerQueryEmbedderOptions): EmbedQuery {
  const url = new URL(options.baseUrl)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    throw new KnowledgeError('invalid-options', `serverQueryEmbedder: baseUrl (${url.origin}) must be an https:// URL, or http:// for a server on this machine (localhost, 127.0.0.1, ::1), since the key and the queries travel with every request.`)
  url.username = ''
  url.password = ''
  const endpoint = url.href.replace(/\/+$/, '')
  const apiKey = options.apiKey ?? nodeProcess?.env?.[options.apiKeyEnv ?? 'OPENAI_API_KEY']
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (apiKey)
    headers.authorization = `Bearer ${apiKey}`
  const { model, dimensions, queryPrefix = '', timeoutMs = 10_000 } = options
  const doFetch = options.fetch ?? (fetch as unknown as FetchLike)
  const fix = `check that the embedding server at ${endpoint} runs ${model}, the model the knowledge base was built with`
  const unusable = (reason: string, cause?: unknown) => new QueryModelUnavailableError(`the embedding server at ${endpoint} ${reason}`, fix, { cause })

  return async (query) => {
    let response: Awaited<ReturnType<FetchLike>>
    let answer: unknown
    try {
      response = await doFetch(`${endpoint}/embeddings`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model, input: [queryPrefix + query], encoding_format: 'float', ...(dimensions ? { dimensions } : {}) }),
        signal: AbortSignal.timeout(timeoutMs),
      })
      answer = response.ok ? await response.json() : undefined
    }
    catch (error) {
      const name = (error as Error).name
      throw unusable(name === 'TimeoutError' || name === 'AbortError' ? `did not answer within ${timeoutMs} ms` : 'cannot be reached', error)
    }
    if (!response.ok)
      throw unusable(`answered HTTP ${response.status}`)
    const embedding = (answer as { data?: { embedding?: unknown }[] } | null)?.data?.[0]?.embedding
    if (!Array.isArray(embedding) || embedding.length === 0 || (dimensions !== undefined && embedding.length !== dimensions))
      throw unusable(`answered without ${dimensions ? `a ${dimensions}-dimensional embedding` : 'an embedding'}`)
    const vector = unitVector(embedding)
    if (!(vector instanceof Float32Array))
      throw unusable(vector.problem === 'zero' ? 'answered an all-zero vector' : 'answered a vector holding something other than finite numbers')
    return vector
  }
}
