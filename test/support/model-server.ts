// A real HTTP server on 127.0.0.1 that plays an OpenAI-compatible Chat
// Completions model for the routing tests: it records every request and
// answers as the test says, by default with a valid card or page summary.

import type { IncomingMessage, ServerResponse } from 'node:http'
import { hash } from '../../src/core/hash'
import { listenLoopback } from './loopback-server'

/** A request the server received. */
export interface Call {
  kind: 'card' | 'page'
  /** The document's path (cards) or the page's title (summaries). */
  subject: string
  system: string
  user: string
  body: { model: string, response_format: unknown, messages: { role: string, content: string }[] }
  authorization: string | undefined
}

export interface Reply {
  status?: number
  headers?: Record<string, string>
  /** The whole response body; by default a completion whose content is `content`. */
  body?: string
  content?: string
  finishReason?: string
  refusal?: string
  /** Never answer (a timeout). */
  hold?: boolean
}

/** What the test decides, asked at each request. */
export interface ModelServerHooks {
  /** Each request, as it arrives. */
  onCall: (call: Call) => void
  /** The answer; `undefined`: the default one. */
  reply?: (call: Call) => Reply | undefined | Promise<Reply | undefined>
  /** The topic the model proposes for a document (default "General"). */
  topicOf?: (path: string) => string
  /** Requests in flight, each time the count rises. */
  onInFlight?: (count: number) => void
}

/** The model's default answer: a card naming the document, or a page summary naming the page. */
function defaultContent(call: Call, topicOf: (path: string) => string): string {
  if (call.kind === 'page')
    return JSON.stringify({ summary: `About ${call.subject} (${hash(call.user).slice(0, 8)}).` })
  const part = /^Part (\d+) of \d+/m.exec(call.user)?.[1] ?? '1'
  return JSON.stringify({
    title: `Title of ${call.subject}`,
    // Depends on what was sent (summaries of pages too), so that an edit changes the pages listing the document.
    summary: `Summary of ${call.subject} (${hash(call.user).slice(0, 8)}).`,
    tasks: [`Task ${part} of ${call.subject}`],
    ...(call.system.includes('"topic"') ? { topic: topicOf(call.subject) } : {}),
  })
}

/** Starts the server; `baseUrl` is its `/v1`. */
export async function startModelServer(hooks: ModelServerHooks): Promise<{ baseUrl: string, close: () => Promise<void> }> {
  let inFlight = 0
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    let raw = ''
    for await (const chunk of request)
      raw += chunk
    const body = JSON.parse(raw) as Call['body']
    const system = body.messages.find(m => m.role === 'system')!.content
    const user = body.messages.find(m => m.role === 'user')!.content
    const kind = system.includes('summary of an index page') ? 'page' : 'card'
    const subject = kind === 'page' ? /^Page: (.*)$/m.exec(user)![1]! : /^Path: (.*)$/m.exec(user)![1]!
    const call: Call = { kind, subject, system, user, body, authorization: request.headers.authorization }
    hooks.onCall(call)
    hooks.onInFlight?.(++inFlight)
    try {
      const answer = (await hooks.reply?.(call)) ?? {}
      if (answer.hold)
        return
      response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
      response.end(answer.body ?? JSON.stringify({
        id: 'chatcmpl-test',
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, finish_reason: answer.finishReason ?? 'stop', message: { role: 'assistant', content: answer.refusal ? null : answer.content ?? defaultContent(call, hooks.topicOf ?? (() => 'General')), refusal: answer.refusal ?? null } }],
      }))
    }
    finally {
      inFlight--
    }
  }
  return listenLoopback(handle)
}
