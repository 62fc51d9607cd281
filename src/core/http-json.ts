// JSON over HTTP to OpenAI-compatible servers (chat models for routing,
// embedding servers for knowledge): HTTPS unless on loopback, a timeout per
// request, retries with exponential backoff and jitter on 429 and 5xx that
// honour Retry-After, and an API key that never reaches a message or log line.

import { isLoopbackHost } from '../runtime/knowledge/loopback'

/** Who calls: the settings key named in messages, the server as people call it, and the error to throw. */
export interface HttpJsonRole {
  /** The `skill-kit.json` object holding `baseUrl` and `timeoutMs`: `routing` or `model`. */
  settings: string
  /** The server as messages name it: `model server`, `embedding server`. */
  server: string
  /** An example `baseUrl`, for messages about a malformed one. */
  exampleUrl: string
  /** Wraps a message into the caller's error class. */
  error: (message: string) => Error
}

export interface HttpJsonOptions {
  baseUrl: string
  /** Sent as a bearer token when not empty; never put in a message, log or error. */
  apiKey: string | undefined
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

/** Posts JSON to paths under one endpoint. */
export interface HttpJsonClient {
  /** The base URL without credentials or trailing slash: safe for messages and cache keys. */
  readonly endpoint: string
  /** Posts `body` to `<endpoint><path>` and parses the answer; `subject` names what is asked about in errors; `log` replaces the client's for this call's retry lines. */
  post: (path: string, body: unknown, subject: string, log?: (line: string) => void) => Promise<unknown>
  /** `text` with the key replaced, flattened and cut to 300 characters, for messages. */
  excerpt: (text: string) => string
}

/**
 * Why `baseUrl` cannot be used, or `undefined`: it must be an `https://` URL,
 * or `http://` on loopback, since the key and the documents travel with every request.
 */
export function baseUrlProblem(baseUrl: string, role: Pick<HttpJsonRole, 'settings' | 'exampleUrl'>): string | undefined {
  const key = `"${role.settings}.baseUrl"`
  let url: URL
  try {
    url = new URL(baseUrl)
  }
  catch {
    return `${key} must be a URL, e.g. "${role.exampleUrl}".`
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    return undefined
  if (url.protocol === 'http:')
    return `${key} (${baseUrl}) uses plain HTTP, which would send the API key and the documents unencrypted. Use https://, or http:// only for a server on this machine (localhost, 127.0.0.1, ::1).`
  return `${key} must be an https:// URL, e.g. "${role.exampleUrl}".`
}

/** `baseUrl` without credentials or trailing slash. */
export function endpointOf(baseUrl: string): string {
  const url = new URL(baseUrl)
  url.username = ''
  url.password = ''
  return url.href.replace(/\/+$/, '')
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

/** A client for `options.baseUrl`; throws `role.error` when the URL is not HTTPS or loopback. */
export function createHttpJsonClient(role: HttpJsonRole, options: HttpJsonOptions): HttpJsonClient {
  const problem = baseUrlProblem(options.baseUrl, role)
  if (problem)
    throw role.error(problem)
  const endpoint = endpointOf(options.baseUrl)
  const { apiKey, timeoutMs, attempts = 4, backoffMs = 1000, maxDelayMs = 60_000 } = options
  const sleep = options.sleep ?? (ms => new Promise<void>(resolve => setTimeout(resolve, ms)))
  const doFetch = options.fetch ?? fetch
  const redact = (text: string) => (apiKey ? text.split(apiKey).join('[redacted]') : text)
  const excerpt = (text: string) => {
    const flat = redact(text).replace(/\s+/g, ' ').trim()
    return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat
  }
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (apiKey)
    headers.authorization = `Bearer ${apiKey}`
  const fail = (message: string) => role.error(message)
  const name = `The ${role.server} at ${endpoint}`

  const post = async (path: string, body: unknown, subject: string, log = options.log): Promise<unknown> => {
    const payload = JSON.stringify(body)
    for (let attempt = 1; ; attempt++) {
      let response: Response
      let text: string
      try {
        response = await doFetch(`${endpoint}${path}`, { method: 'POST', headers, body: payload, signal: AbortSignal.timeout(timeoutMs) })
        text = await response.text()
      }
      catch (error) {
        const kind = (error as Error).name
        if (kind === 'TimeoutError' || kind === 'AbortError')
          throw fail(`${name} did not answer within ${timeoutMs} ms for ${subject}. Raise "${role.settings}.timeoutMs" in skill-kit.json, or check the server.`)
        const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message
        throw fail(`Could not reach the ${role.server} at ${endpoint} for ${subject}: ${excerpt(cause)}. Check "${role.settings}.baseUrl" in skill-kit.json.`)
      }
      if (response.ok) {
        try {
          return JSON.parse(text)
        }
        catch {
          throw fail(`${name} answered ${subject} with something other than JSON: ${excerpt(text)}`)
        }
      }
      if (!RETRYABLE(response.status) || attempt >= attempts) {
        const tries = attempt > 1 ? ` after ${attempt} attempts` : ''
        throw fail(`${name} answered HTTP ${response.status}${tries} for ${subject}: ${excerpt(text) || response.statusText}`)
      }
      const backoff = backoffMs * 2 ** (attempt - 1)
      const delay = Math.min(maxDelayMs, retryAfterMs(response.headers.get('retry-after')) ?? backoff + Math.random() * backoff)
      log?.(`HTTP ${response.status} for ${subject}; retrying in ${Math.round(delay)} ms (attempt ${attempt + 1} of ${attempts}).`)
      await sleep(delay)
    }
  }

  return { endpoint, post, excerpt }
}
