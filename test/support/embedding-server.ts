// A real HTTP server on 127.0.0.1 that plays an OpenAI-compatible embedding
// server (POST /v1/embeddings) for the knowledge tests: it records every
// request, counts the requests in flight, and answers as the test says, by
// default with a bag-of-words vector of each input (so that search works).

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { EmbeddedProject } from '../../src/knowledge/project'
import { createHash } from 'node:crypto'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { listenLoopback } from './loopback-server'

/** A request the server received. */
export interface EmbeddingCall {
  /** 1 for the first request. */
  n: number
  model: string
  input: string[]
  dimensions: number | undefined
  authorization: string | undefined
}

export interface EmbeddingReply {
  status?: number
  /** The status line's reason phrase (default Node's for the status). */
  statusText?: string
  headers?: Record<string, string>
  /** The whole response body; by default the embeddings of `vectors`, else of the inputs. */
  body?: string
  /** The vectors to answer with (values may be anything JSON holds). */
  vectors?: unknown[][]
  /** Never answer (a timeout). */
  hold?: boolean
}

export interface EmbeddingServerHooks {
  /** The answer; `undefined`: the default one. May wait (the requests then stay in flight). */
  reply?: (call: EmbeddingCall) => EmbeddingReply | undefined | Promise<EmbeddingReply | undefined>
  /** Length of the default vectors (default 16; a request's `dimensions` wins). */
  dimensions?: number
}

/** A deterministic, unnormalized bag-of-words vector: each lower-cased word adds 1 to a bucket picked by its hash. */
export function wordVector(text: string, dimensions: number): number[] {
  const vector = Array.from<number>({ length: dimensions }).fill(0)
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    vector[createHash('sha256').update(word).digest().readUInt32BE(0) % dimensions]! += 1
  // Never all zero: an input without words still has a direction.
  vector[0]! += 0.5
  return vector
}

export interface EmbeddingServer {
  /** Its `/v1`. */
  baseUrl: string
  calls: EmbeddingCall[]
  /** Most requests in flight at once so far. */
  peakInFlight: () => number
  close: () => Promise<void>
}

/** Starts the server. */
export async function startEmbeddingServer(hooks: EmbeddingServerHooks = {}): Promise<EmbeddingServer> {
  const calls: EmbeddingCall[] = []
  let inFlight = 0
  let peak = 0
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    let raw = ''
    for await (const chunk of request)
      raw += chunk
    const body = JSON.parse(raw) as { model: string, input: string[], dimensions?: number }
    const call: EmbeddingCall = { n: calls.length + 1, model: body.model, input: body.input, dimensions: body.dimensions, authorization: request.headers.authorization }
    calls.push(call)
    peak = Math.max(peak, ++inFlight)
    try {
      const answer = (await hooks.reply?.(call)) ?? {}
      if (answer.hold)
        return
      const dims = body.dimensions ?? hooks.dimensions ?? 16
      const vectors = answer.vectors ?? body.input.map(text => wordVector(text, dims))
      const headers = { 'content-type': 'application/json', ...answer.headers }
      if (answer.statusText === undefined)
        response.writeHead(answer.status ?? 200, headers)
      else response.writeHead(answer.status ?? 200, answer.statusText, headers)
      response.end(answer.body ?? JSON.stringify({
        object: 'list',
        model: body.model,
        // Shuffled order, as the API allows: the client must go by `index`.
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse(),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      }))
    }
    finally {
      inFlight--
    }
  }
  return { ...await listenLoopback(handle), calls, peakInFlight: () => peak }
}

/** The project in `dir`, whose skill-kit.json names an embedding server; its diagnostics thrown when it cannot be opened. */
export function openEmbeddedProject(dir: string): EmbeddedProject {
  const opened = openKnowledgeProject(dir)
  if (!opened.project)
    throw new Error(opened.diagnostics.map(d => d.message).join('\n'))
  return opened.project as EmbeddedProject
}
