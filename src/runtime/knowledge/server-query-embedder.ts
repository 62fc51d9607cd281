// Query embedding at run time through an embedding server speaking the
// OpenAI-compatible POST /v1/embeddings API: the same server (and model) a
// knowledge base was built with (`model.provider: "openai-compatible"`), so
// queries land in the space of its vectors. Needs only `fetch`. Like the
// build's client, it never follows a redirect, and quotes nothing a server
// says without bounding it and replacing the key.

import type { EmbedQuery } from './query-embedder'
import type { RedirectResponse } from './redirect'
import { quoteForMessage } from '../redact'
import { KnowledgeError, QueryModelUnavailableError } from './errors'
import { isLoopbackHost } from './loopback'
import { nodeProcess } from './node-host'
import { unitVector } from './vector/pooling'
import { readRedirect, redirectClause } from './redirect'

/**
 * The part of `fetch` this module uses, so that apps compiled without the DOM's
 * or Node's types can pass one. `redirect: 'manual'` is always asked: a
 * redirect answer (`type` and `headers` are read when there) is refused.
 */
export type FetchLike = (url: string, init: { method: 'POST', headers: Record<string, string>, body: string, redirect: 'manual', signal: unknown }) => Promise<RedirectResponse & { ok: boolean, json: () => Promise<unknown> }>

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
  // No cause is kept: what the server sent may quote the key.
  const unusable = (reason: string, remedy = fix) => new QueryModelUnavailableError(`the embedding server at ${endpoint} ${reason}`, remedy)
  const target = `${endpoint}/embeddings`

  return async (query) => {
    let response: Awaited<ReturnType<FetchLike>>
    try {
      // Never followed: fetch would send the key and the query again to wherever Location points.
      response = await doFetch(target, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model, input: [queryPrefix + query], encoding_format: 'float', ...(dimensions ? { dimensions } : {}) }),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      })
    }
    catch (error) {
      const name = (error as Error).name
      if (name === 'TimeoutError' || name === 'AbortError')
        throw unusable(`did not answer within ${timeoutMs} ms`)
      // Said, redacted and bounded, rather than kept as the cause: a failed connection's message may quote what the server sent.
      const cause = (error as { cause?: { message?: unknown } }).cause?.message ?? (error as Error).message
      throw unusable(`cannot be reached (${quoteForMessage(String(cause), apiKey, 200)})`)
    }
    const redirect = readRedirect(response, target)
    if (redirect)
      throw unusable(`answered ${redirectClause(redirect, text => quoteForMessage(text, apiKey))}`, 'set baseUrl to the URL the API answers at without a redirect')
    if (!response.ok)
      throw unusable(`answered HTTP ${response.status}`)
    let answer: unknown
    try {
      answer = await response.json()
    }
    catch {
      // Not the parser's message: it quotes the answer, which may echo the key.
      throw unusable('answered something other than JSON')
    }
    const embedding = (answer as { data?: { embedding?: unknown }[] } | null)?.data?.[0]?.embedding
    if (!Array.isArray(embedding) || embedding.length === 0 || (dimensions !== undefined && embedding.length !== dimensions))
      throw unusable(`answered without ${dimensions ? `a ${dimensions}-dimensional embedding` : 'an embedding'}`)
    const vector = unitVector(embedding)
    if (!(vector instanceof Float32Array)) {
      throw unusable(vector.problem === 'zero'
        ? 'answered an all-zero vector'
        : vector.problem === 'out-of-range' ? 'answered a vector holding a number out of the range of a 32-bit float' : 'answered a vector holding something other than numbers')
    }
    return vector
  }
}
