// JSON over HTTP to OpenAI-compatible servers (chat models for routing,
// embedding servers for knowledge): HTTPS unless on loopback, no redirect
// followed, a timeout per attempt, retries with exponential backoff and jitter
// on 429, 5xx and answers the caller finds faulty, honouring Retry-After
// within one retry budget per request, and an API key that never reaches a
// message or log line, whatever the server echoes.

import { isLoopbackHost } from '../runtime/knowledge/loopback'
import { readRedirect, redirectClause } from '../runtime/knowledge/redirect'
import { excerptForMessage, quoteForMessage } from '../runtime/redact'

/** Who calls: the settings key named in messages, the server as people call it, and the error to throw. */
export interface HttpJsonRole {
  /** The `skill-kit.json` object holding `baseUrl`, `timeoutMs` and `retryBudgetMs`: `routing` or `model`. */
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
  /** How long one attempt may take, in milliseconds. */
  timeoutMs: number
  /**
   * How long one request may wait in all before its retries, Retry-After and
   * backoff alike (default {@link DEFAULT_RETRY_BUDGET_MS}): a retry whose wait
   * would pass it fails the request at once, in the server's words.
   */
  retryBudgetMs?: number
  /** Attempts per request, retries on 429, 5xx and faulty answers included (default 4). */
  attempts?: number
  /** The first backoff in milliseconds, doubled each retry, plus up to as much jitter (default 1,000). */
  backoffMs?: number
  /** Waits between attempts (tests pass one that records the delay). */
  sleep?: (ms: number) => Promise<void>
  /** The clock a Retry-After date is read against (default `Date.now`). */
  now?: () => number
  fetch?: typeof fetch
  /** One line per retry. */
  log?: (line: string) => void
}

/** The retry budget of a request when none is given: two minutes of waiting. */
export const DEFAULT_RETRY_BUDGET_MS = 120_000
/** The largest retry budget `skill-kit.json` accepts: an hour. */
export const MAX_RETRY_BUDGET_MS = 3_600_000

/**
 * Thrown by a `validate` callback of {@link HttpJsonClient.post} when a 200
 * answer is unusable in a way only the server explains (embeddings under the
 * wrong indexes, say): the request is retried as after a 5xx, and this message
 * ends it when no retry is left. Any server text in it must be quoted already.
 */
export class FaultyAnswerError extends Error {
  override name = 'FaultyAnswerError'
}

/** What one {@link HttpJsonClient.post} call adds to the client's options. */
export interface PostOptions<T> {
  /** Replaces the client's `log` for this call's retry lines. */
  log?: (line: string) => void
  /**
   * Checks the parsed answer and returns what the caller keeps. Throwing a
   * {@link FaultyAnswerError} retries the request; any other error fails it at once.
   */
  validate?: (answer: unknown) => T
}

/** Posts JSON to paths under one endpoint. */
export interface HttpJsonClient {
  /** The base URL without credentials or trailing slash: safe for messages and cache keys. */
  readonly endpoint: string
  /** Posts `body` to `<endpoint><path>` and parses the answer; `subject` names what is asked about in errors. */
  post: <T = unknown>(path: string, body: unknown, subject: string, options?: PostOptions<T>) => Promise<T>
  /** `text` with the key replaced, flattened and cut to 300 characters, for messages. */
  excerpt: (text: string) => string
  /** A value a server sent, as bounded JSON with the key replaced, for messages. */
  quote: (value: unknown) => string
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

/** Seconds or an HTTP date, as milliseconds from `now`; `undefined` when absent or unreadable. */
function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null)
    return undefined
  if (/^\s*\d+(?:\.\d+)?\s*$/.test(header))
    return Number(header) * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Why an attempt is retried: what the final message says, and what the retry line says. */
interface Fault {
  /** The message, saying how many attempts were made when more than one. */
  told: (attempts: number) => string
  /** The retry line's start: `HTTP 429`. */
  logged: string
  retryAfter: string | null
}

/** A client for `options.baseUrl`; throws `role.error` when the URL is not HTTPS or loopback. */
export function createHttpJsonClient(role: HttpJsonRole, options: HttpJsonOptions): HttpJsonClient {
  const problem = baseUrlProblem(options.baseUrl, role)
  if (problem)
    throw role.error(problem)
  const endpoint = endpointOf(options.baseUrl)
  const { apiKey, timeoutMs, attempts = 4, backoffMs = 1000, retryBudgetMs = DEFAULT_RETRY_BUDGET_MS } = options
  const sleep = options.sleep ?? (ms => new Promise<void>(resolve => setTimeout(resolve, ms)))
  const now = options.now ?? Date.now
  const doFetch = options.fetch ?? fetch
  const excerpt = (text: string) => excerptForMessage(text.trimStart(), apiKey).trimEnd()
  const quote = (value: unknown) => quoteForMessage(value, apiKey)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (apiKey)
    headers.authorization = `Bearer ${apiKey}`
  const fail = (message: string) => role.error(message)
  const name = `The ${role.server} at ${endpoint}`
  const setting = (key: string) => `"${role.settings}.${key}"`

  /** One attempt: the answer and its text, or the error a timeout or a network failure makes. */
  const attempt = async (url: string, payload: string, subject: string): Promise<{ response: Response, text: string }> => {
    try {
      // Never followed: fetch would send the key and the documents again to wherever Location points.
      const response = await doFetch(url, { method: 'POST', headers, body: payload, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
      return { response, text: await response.text() }
    }
    catch (error) {
      const kind = (error as Error).name
      if (kind === 'TimeoutError' || kind === 'AbortError')
        throw fail(`${name} did not answer within ${timeoutMs} ms for ${subject}. Raise ${setting('timeoutMs')} in skill-kit.json, or check the server.`)
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message
      throw fail(`Could not reach the ${role.server} at ${endpoint} for ${subject}: ${excerpt(String(cause))}. Check ${setting('baseUrl')} in skill-kit.json.`)
    }
  }

  /** The answer as the caller keeps it, or why this attempt may be retried; throws what cannot be. */
  const judge = <T>(response: Response, text: string, url: string, subject: string, validate: PostOptions<T>['validate']): { value: T } | Fault => {
    const redirect = readRedirect(response, url)
    if (redirect)
      throw fail(`${name} answered ${subject} with ${redirectClause(redirect, quote)}: the key and the documents go to ${setting('baseUrl')} only. Set ${setting('baseUrl')} in skill-kit.json to the URL the API answers at without a redirect.`)
    if (!response.ok) {
      const words = excerpt(text) || excerpt(response.statusText)
      const told = (n: number) => `${name} answered HTTP ${response.status}${n > 1 ? ` after ${n} attempts` : ''} for ${subject}: ${words}`
      if (!RETRYABLE(response.status))
        throw fail(told(1))
      return { told, logged: `HTTP ${response.status}`, retryAfter: response.headers.get('retry-after') }
    }
    let answer: unknown
    try {
      answer = JSON.parse(text)
    }
    catch {
      throw fail(`${name} answered ${subject} with something other than JSON: ${excerpt(text)}`)
    }
    try {
      return { value: validate ? validate(answer) : answer as T }
    }
    catch (error) {
      if (!(error instanceof FaultyAnswerError))
        throw error
      return { told: n => `${error.message}${n > 1 ? ` That was the last of ${n} attempts.` : ''}`, logged: 'An unusable answer', retryAfter: null }
    }
  }

  const post = async <T = unknown>(path: string, body: unknown, subject: string, { log = options.log, validate }: PostOptions<T> = {}): Promise<T> => {
    const url = `${endpoint}${path}`
    const payload = JSON.stringify(body)
    let waited = 0
    for (let n = 1; ; n++) {
      const { response, text } = await attempt(url, payload, subject)
      const verdict = judge(response, text, url, subject, validate)
      if ('value' in verdict)
        return verdict.value
      if (n >= attempts)
        throw fail(verdict.told(n))
      const backoff = backoffMs * 2 ** (n - 1)
      const asked = retryAfterMs(verdict.retryAfter, now())
      const delay = asked ?? backoff + Math.random() * backoff
      const left = retryBudgetMs - waited
      if (delay > left) {
        const budget = `${setting('retryBudgetMs')} (${retryBudgetMs} ms a request, ${Math.round(left)} ms left)`
        throw fail(asked === undefined
          ? `${verdict.told(n)} The next retry, in ${Math.round(delay)} ms, would pass ${budget}. Raise ${setting('retryBudgetMs')} in skill-kit.json, or check the server.`
          : `${verdict.told(n)} It asks to be retried after ${quoteForMessage(verdict.retryAfter, apiKey, 40)} (Retry-After), which would pass ${budget}. Build again later, or raise ${setting('retryBudgetMs')} in skill-kit.json.`)
      }
      log?.(`${verdict.logged} for ${subject}; retrying in ${Math.round(delay)} ms (attempt ${n + 1} of ${attempts}).`)
      waited += delay
      await sleep(delay)
    }
  }

  return { endpoint, post, excerpt, quote }
}
