// A minimal OpenAI-compatible Chat Completions client for JSON-object answers:
// HTTPS (or loopback), a timeout per request, retries with backoff on 429 and
// 5xx that honour Retry-After, and an API key that never reaches a message.

import { baseUrlProblem } from './config'

/** A routing failure, said for people (it names the document or page it concerns). */
export class RoutingError extends Error {
  override name = 'RoutingError'
}

export interface ChatMessage {
  role: 'system' | 'user'
  content: string
}

export interface ChatClientOptions {
  baseUrl: string
  model: string
  /** Sent as a bearer token; never put in a message, log or error. */
  apiKey: string
  timeoutMs: number
  /** Attempts per request, retries on 429 and 5xx included (default 4). */
  attempts?: number
  /** The first backoff in milliseconds, doubled each retry, plus up to as much jitter (default 1,000). */
  backoffMs?: number
  /** The longest wait before a retry, Retry-After included (default 60,000 ms). */
  maxDelayMs?: number
  /** Waits between attempts (tests pass one that records the delay). */
  sleep?: (ms: number) => Promise<void>
  fetch?: typeof fetch
  /** One line per retry. */
  log?: (line: string) => void
}

/** Asks for one JSON object per call. */
export interface ChatClient {
  /** The endpoint for cache keys: the base URL without credentials or trailing slash. */
  readonly endpoint: string
  readonly model: string
  /** Sends `messages`; `subject` names what is asked about in errors (`guides/a.md`). */
  completeJson: (messages: ChatMessage[], subject: string) => Promise<Record<string, unknown>>
}

const RETRYABLE = (status: number) => status === 429 || status >= 500

/** Seconds or an HTTP date, as milliseconds from now; `undefined` when absent or unreadable. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null)
    return undefined
  if (/^\s*\d+(?:\.\d+)?\s*$/.test(header))
    return Number(header) * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

export function createChatClient(options: ChatClientOptions): ChatClient {
  const problem = baseUrlProblem(options.baseUrl)
  if (problem)
    throw new RoutingError(problem)
  const url = new URL(options.baseUrl)
  url.username = ''
  url.password = ''
  const endpoint = url.href.replace(/\/+$/, '')
  const { apiKey, timeoutMs, attempts = 4, backoffMs = 1000, maxDelayMs = 60_000 } = options
  const sleep = options.sleep ?? (ms => new Promise<void>(resolve => setTimeout(resolve, ms)))
  const doFetch = options.fetch ?? fetch
  const redact = (text: string) => (apiKey ? text.split(apiKey).join('[redacted]') : text)
  const excerpt = (text: string) => {
    const flat = redact(text).replace(/\s+/g, ' ').trim()
    return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat
  }

  const post = async (messages: ChatMessage[], subject: string): Promise<unknown> => {
    for (let attempt = 1; ; attempt++) {
      let response: Response
      let text: string
      try {
        response = await doFetch(`${endpoint}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'authorization': `Bearer ${apiKey}` },
          body: JSON.stringify({ model: options.model, messages, response_format: { type: 'json_object' } }),
          signal: AbortSignal.timeout(timeoutMs),
        })
        text = await response.text()
      }
      catch (error) {
        const name = (error as Error).name
        if (name === 'TimeoutError' || name === 'AbortError')
          throw new RoutingError(`The model server at ${endpoint} did not answer within ${timeoutMs} ms for ${subject}. Raise "routing.timeoutMs" in skill-kit.json, or check the server.`)
        const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message
        throw new RoutingError(`Could not reach the model server at ${endpoint} for ${subject}: ${excerpt(cause)}. Check "routing.baseUrl" in skill-kit.json.`)
      }
      if (response.ok) {
        try {
          return JSON.parse(text)
        }
        catch {
          throw new RoutingError(`The model server at ${endpoint} answered ${subject} with something other than JSON: ${excerpt(text)}`)
        }
      }
      if (!RETRYABLE(response.status) || attempt >= attempts) {
        const tries = attempt > 1 ? ` after ${attempt} attempts` : ''
        throw new RoutingError(`The model server at ${endpoint} answered HTTP ${response.status}${tries} for ${subject}: ${excerpt(text) || response.statusText}`)
      }
      const backoff = backoffMs * 2 ** (attempt - 1)
      const delay = Math.min(maxDelayMs, retryAfterMs(response.headers.get('retry-after')) ?? backoff + Math.random() * backoff)
      options.log?.(`HTTP ${response.status} for ${subject}; retrying in ${Math.round(delay)} ms (attempt ${attempt + 1} of ${attempts}).`)
      await sleep(delay)
    }
  }

  return {
    endpoint,
    model: options.model,
    async completeJson(messages, subject) {
      const data = await post(messages, subject) as { choices?: { finish_reason?: unknown, message?: { content?: unknown, refusal?: unknown } }[] }
      const choice = data?.choices?.[0]
      if (!choice || typeof choice !== 'object')
        throw new RoutingError(`The model server at ${endpoint} answered ${subject} without a choice: is it a Chat Completions API?`)
      const refusal = choice.message?.refusal
      if (typeof refusal === 'string' && refusal.trim() !== '')
        throw new RoutingError(`The model refused to describe ${subject}: "${excerpt(refusal)}".`)
      if (choice.finish_reason !== 'stop')
        throw new RoutingError(`The model's answer for ${subject} did not finish normally (finish_reason ${JSON.stringify(choice.finish_reason ?? null)}, expected "stop"). When it is "length", lower "routing.maxInputChars" or use a model with a longer output.`)
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
      return value as Record<string, unknown>
    },
  }
}
