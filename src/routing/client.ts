// A minimal OpenAI-compatible Chat Completions client for JSON-object answers,
// on the shared HTTP client (src/core/http-json.ts): HTTPS (or loopback), a
// timeout per request, retries with backoff on 429 and 5xx that honour
// Retry-After, and an API key that never reaches a message.

import type { HttpJsonOptions, HttpJsonRole } from '../core/http-json'
import { createHttpJsonClient } from '../core/http-json'
import { quoteForMessage, redactJson } from '../runtime/redact'
import { DEFAULT_ROUTING } from '../core/routing-config'

/** A routing failure, said for people (it names the document or page it concerns). */
export class RoutingError extends Error {
  override name = 'RoutingError'
}

export interface ChatMessage {
  role: 'system' | 'user'
  content: string
}

export interface ChatClientOptions extends HttpJsonOptions {
  model: string
  /** Sent as a bearer token; never put in a message, log or error. */
  apiKey: string
}

/** Asks for one JSON object per call. */
export interface ChatClient {
  /** The endpoint for cache keys: the base URL without credentials or trailing slash. */
  readonly endpoint: string
  readonly model: string
  /** Sends `messages`; `subject` names what is asked about in errors (`guides/a.md`). */
  completeJson: (messages: ChatMessage[], subject: string) => Promise<Record<string, unknown>>
}

/** The routing side of the shared HTTP client: its settings key, server name and error class. */
const ROUTING_ROLE: HttpJsonRole = {
  settings: 'routing',
  server: 'model server',
  exampleUrl: DEFAULT_ROUTING.baseUrl,
  error: message => new RoutingError(message),
}

export function createChatClient(options: ChatClientOptions): ChatClient {
  const http = createHttpJsonClient(ROUTING_ROLE, options)
  const { endpoint, excerpt } = http
  const post = (messages: ChatMessage[], subject: string): Promise<unknown> =>
    http.post('/chat/completions', { model: options.model, messages, response_format: { type: 'json_object' } }, subject)

  return {
    endpoint,
    model: options.model,
    async completeJson(messages, subject) {
      // A model that echoes the key (in its content, a refusal, finish_reason) has it
      // replaced before anything of its answer is quoted, validated or cached.
      const { apiKey } = options
      const data = redactJson(await post(messages, subject), apiKey) as { choices?: { finish_reason?: unknown, message?: { content?: unknown, refusal?: unknown } }[] }
      const choice = data?.choices?.[0]
      if (!choice || typeof choice !== 'object')
        throw new RoutingError(`The model server at ${endpoint} answered ${subject} without a choice: is it a Chat Completions API?`)
      const refusal = choice.message?.refusal
      if (typeof refusal === 'string' && refusal.trim() !== '')
        throw new RoutingError(`The model refused to describe ${subject}: "${excerpt(refusal)}".`)
      if (choice.finish_reason !== 'stop')
        throw new RoutingError(`The model's answer for ${subject} did not finish normally (finish_reason ${quoteForMessage(choice.finish_reason ?? null, apiKey, 40)}, expected "stop"). When it is "length", lower "routing.maxInputChars" or use a model with a longer output.`)
      const content = choice.message?.content
      let value: unknown
      try {
        value = typeof content === 'string' ? JSON.parse(content) : undefined
      }
      catch {
        // Reported below.
      }
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw new RoutingError(`The model's answer for ${subject} is not a JSON object: ${excerpt(String(content ?? ''))}`)
      // The content's own escapes (`\u0073k-…`) spell the key only once parsed.
      return redactJson(value as Record<string, unknown>, apiKey)
    },
  }
}
