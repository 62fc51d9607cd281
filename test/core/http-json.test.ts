// The shared HTTP client against real servers on 127.0.0.1 (and, where a
// loopback server cannot play the part, a fetch the test writes): redirects
// are never followed, retries stay within one budget per request, a faulty
// 200 answer is retried, and the key never reaches a message or a log line.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { HttpJsonOptions, HttpJsonRole } from '../../src/core/http-json'
import type { LoopbackServer } from '../support/loopback-server'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createHttpJsonClient, FaultyAnswerError } from '../../src/core/http-json'
import { listenLoopback } from '../support/loopback-server'

const KEY = 'sk-Test-7d3F9a1C5e2B4068'

class TestError extends Error {}
const ROLE: HttpJsonRole = { settings: 'model', server: 'embedding server', exampleUrl: 'https://api.openai.com/v1', error: message => new TestError(message) }

/** What a test server answers: status, reason phrase, headers, body. */
interface Answer {
  status?: number
  statusText?: string
  headers?: Record<string, string>
  body?: string
}

/** A loopback server answering as `answer` says, counting the requests it gets and echoing nothing unless told. */
async function serve(answer: (request: IncomingMessage, n: number) => Answer | Promise<Answer>): Promise<LoopbackServer & { requests: () => number }> {
  let requests = 0
  const server = await listenLoopback(async (request: IncomingMessage, response: ServerResponse) => {
    for await (const _ of request) {
      // The body is read and dropped.
    }
    const { status = 200, statusText, headers = {}, body = '{"ok":true}' } = await answer(request, ++requests)
    if (statusText === undefined)
      response.writeHead(status, { 'content-type': 'application/json', ...headers })
    else response.writeHead(status, statusText, { 'content-type': 'application/json', ...headers })
    response.end(body)
  })
  return { ...server, requests: () => requests }
}

let servers: (LoopbackServer & { requests: () => number })[] = []
/** Another origin: the port differs. It must never hear a thing. */
let elsewhere: LoopbackServer & { requests: () => number }
beforeAll(async () => {
  elsewhere = await serve(() => ({ body: '{"data":"stolen"}' }))
})
afterAll(() => elsewhere.close())
beforeEach(() => async () => {
  await Promise.all(servers.map(server => server.close()))
  servers = []
})

async function server(answer: Parameters<typeof serve>[0]) {
  const started = await serve(answer)
  servers.push(started)
  return started
}

/** A client of `baseUrl` with the key, a recorded sleep and log, and a fixed clock. */
function client(baseUrl: string, options: Partial<HttpJsonOptions> = {}) {
  const sleeps: number[] = []
  const logs: string[] = []
  const http = createHttpJsonClient(ROLE, { baseUrl, apiKey: KEY, timeoutMs: 5000, sleep: async (ms) => { sleeps.push(ms) }, log: line => logs.push(line), ...options })
  return { http, sleeps, logs }
}

/** The error `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  }
  catch (error) {
    return error as Error
  }
  throw new Error('it did not fail')
}

/** A fetch that answers every request with `response`, counting the requests. */
function answering(response: () => unknown) {
  const fetch = (async () => {
    fetch.requests++
    return response()
  }) as unknown as typeof globalThis.fetch & { requests: number }
  fetch.requests = 0
  return fetch
}

const FIX = 'the key and the documents go to "model.baseUrl" only. Set "model.baseUrl" in skill-kit.json to the URL the API answers at without a redirect.'

describe('redirects', () => {
  it.each([301, 302, 303, 307, 308])('refuses a %i to another origin, which hears nothing', async (status) => {
    const other = new URL(elsewhere.baseUrl).origin
    const origin = await server(() => ({ status, headers: { location: `${other}/v1/embeddings?token=${KEY}` } }))
    const { http, sleeps } = client(origin.baseUrl)
    const error = await rejection(http.post('/embeddings', { input: ['secret text'] }, 'a request of 1 input'))
    expect(error).toBeInstanceOf(TestError)
    expect(error.message).toBe(`The embedding server at ${origin.baseUrl} answered a request of 1 input with HTTP ${status}, a redirect to another origin, "${other}", which is never followed: ${FIX}`)
    expect(elsewhere.requests()).toBe(0)
    expect(origin.requests()).toBe(1)
    expect(sleeps).toEqual([])
  })

  it('refuses a redirect on the same server too, quoting its path bounded and redacted', async () => {
    const origin = await server((_, n) => (n === 1 ? { status: 307, headers: { location: `/v1/${KEY}/${'x'.repeat(500)}` } } : {}))
    const error = await rejection(client(origin.baseUrl).http.post('/embeddings', {}, 'a request of 1 input'))
    expect(error.message).toBe(`The embedding server at ${origin.baseUrl} answered a request of 1 input with HTTP 307, a redirect to "/v1/[redacted]/${'x'.repeat(64)}… on the same server, which is not followed: ${FIX}`)
    expect(origin.requests()).toBe(1)
  })

  it('refuses a redirect from https to plain HTTP, and quotes a key put in the host as the server wrote it', async () => {
    const fetch = answering(() => new Response(null, { status: 308, headers: { location: `http://user:pass@${KEY}.127.0.0.1.nip.example:8080/v1/embeddings` } }))
    const error = await rejection(client('https://embeddings.example.com/v1', { fetch }).http.post('/embeddings', {}, 'a request of 1 input'))
    expect(error.message).toBe(`The embedding server at https://embeddings.example.com/v1 answered a request of 1 input with HTTP 308, a redirect to plain HTTP at "http://[redacted].127.0.0.1.nip.example:8080", which is never followed: ${FIX}`)
    expect(fetch.requests).toBe(1)
  })

  it('refuses a redirect without a Location, and the opaque redirect a browser gives', async () => {
    const bare = await rejection(client('https://embeddings.example.com/v1', { fetch: answering(() => new Response(null, { status: 302 })) }).http.post('/embeddings', {}, 'x'))
    expect(bare.message).toBe(`The embedding server at https://embeddings.example.com/v1 answered x with HTTP 302, a redirect without a usable Location, which is never followed: ${FIX}`)
    const opaque = { type: 'opaqueredirect', status: 0, ok: false, statusText: '', headers: new Headers(), text: async () => '' }
    const hidden = await rejection(client('https://embeddings.example.com/v1', { fetch: answering(() => opaque) }).http.post('/embeddings', {}, 'x'))
    expect(hidden.message).toBe(`The embedding server at https://embeddings.example.com/v1 answered x with a redirect, which the browser hides and which is never followed: ${FIX}`)
  })
})

describe('the retry budget', () => {
  it('fails at once, in the server\'s words, when Retry-After asks for more than is left', async () => {
    const origin = await server(() => ({ status: 429, headers: { 'retry-after': '999999999' }, body: '{"error":"slow down"}' }))
    const { http, sleeps, logs } = client(origin.baseUrl, { retryBudgetMs: 30_000 })
    const error = await rejection(http.post('/embeddings', {}, 'a request of 4 inputs'))
    expect(error.message).toBe(`The embedding server at ${origin.baseUrl} answered HTTP 429 for a request of 4 inputs: {"error":"slow down"} It asks to be retried after "999999999" (Retry-After), which would pass "model.retryBudgetMs" (30000 ms a request, 30000 ms left). Build again later, or raise "model.retryBudgetMs" in skill-kit.json.`)
    expect(sleeps).toEqual([])
    expect(logs).toEqual([])
    expect(origin.requests()).toBe(1)
  })

  it('reads a Retry-After date on the client\'s clock, and waits for it while the budget lasts', async () => {
    const now = Date.UTC(2030, 0, 1, 12)
    const later = (ms: number) => new Date(now + ms).toUTCString()
    const origin = await server((_, n) => (n === 1 ? { status: 503, headers: { 'retry-after': later(40_000) } } : n === 2 ? { status: 429, headers: { 'retry-after': later(3_600_000) }, body: 'busy' } : {}))
    const { http, sleeps, logs } = client(origin.baseUrl, { retryBudgetMs: 60_000, now: () => now })
    const error = await rejection(http.post('/chat', {}, 'guides/a.md'))
    expect(sleeps).toEqual([40_000])
    expect(logs).toEqual(['HTTP 503 for guides/a.md; retrying in 40000 ms (attempt 2 of 4).'])
    expect(error.message).toBe(`The embedding server at ${origin.baseUrl} answered HTTP 429 after 2 attempts for guides/a.md: busy It asks to be retried after "${later(3_600_000)}" (Retry-After), which would pass "model.retryBudgetMs" (60000 ms a request, 20000 ms left). Build again later, or raise "model.retryBudgetMs" in skill-kit.json.`)
  })

  it('counts backoff waits against the budget', async () => {
    const origin = await server(() => ({ status: 503, body: '{"error":"overloaded"}' }))
    const { http, sleeps } = client(origin.baseUrl, { retryBudgetMs: 2500, backoffMs: 1000 })
    const error = await rejection(http.post('/embeddings', {}, 'a request of 2 inputs'))
    // The first wait (1 to 2 s) fits; the second (2 to 4 s) does not fit in what is left.
    expect(sleeps).toHaveLength(1)
    expect(origin.requests()).toBe(2)
    const [, next, left] = /The next retry, in (\d+) ms, would pass "model\.retryBudgetMs" \(2500 ms a request, (\d+) ms left\)/.exec(error.message)!.map(Number)
    expect(next).toBeGreaterThan(left!)
    expect(left).toBe(Math.round(2500 - sleeps[0]!))
    expect(error.message).toMatch(/^The embedding server at \S+ answered HTTP 503 after 2 attempts for a request of 2 inputs: \{"error":"overloaded"\} The next retry, in \d+ ms, would pass .* Raise "model\.retryBudgetMs" in skill-kit\.json, or check the server\.$/)
  })

  it('retries nothing with a budget of 0', async () => {
    const origin = await server(() => ({ status: 503, headers: { 'retry-after': '1' } }))
    const { http, sleeps } = client(origin.baseUrl, { retryBudgetMs: 0 })
    await expect(http.post('/embeddings', {}, 'x')).rejects.toThrow('(0 ms a request, 0 ms left)')
    expect(sleeps).toEqual([])
  })
})

describe('validate', () => {
  it('retries an answer it finds faulty like a 5xx, and keeps only the good one', async () => {
    const origin = await server((_, n) => ({ body: JSON.stringify({ n }) }))
    const { http, sleeps, logs } = client(origin.baseUrl, { backoffMs: 10 })
    const value = await http.post('/embeddings', {}, 'a request of 1 input', {
      validate: (answer) => {
        const { n } = answer as { n: number }
        if (n < 3)
          throw new FaultyAnswerError(`answer ${n} is faulty.`)
        return n * 10
      },
    })
    expect(value).toBe(30)
    expect(sleeps).toHaveLength(2)
    expect(logs.map(line => line.replace(/\d+ ms/, 'N ms'))).toEqual([
      'An unusable answer for a request of 1 input; retrying in N ms (attempt 2 of 4).',
      'An unusable answer for a request of 1 input; retrying in N ms (attempt 3 of 4).',
    ])
  })

  it('fails with the last fault once no attempt is left, and at once on any other error', async () => {
    const origin = await server(() => ({}))
    const { http } = client(origin.baseUrl, { backoffMs: 10 })
    await expect(http.post('/embeddings', {}, 'x', { validate: () => { throw new FaultyAnswerError('The answer is faulty.') } })).rejects.toThrow(new TestError('The answer is faulty. That was the last of 4 attempts.'))
    const before = origin.requests()
    await expect(http.post('/embeddings', {}, 'x', { validate: () => { throw new TestError('Wrong model.') } })).rejects.toThrow(new TestError('Wrong model.'))
    expect(origin.requests()).toBe(before + 1)
  })
})

describe('the key', () => {
  it('never reaches a message or log line, wherever the server puts it', async () => {
    const long = `${KEY} ${'y'.repeat(1000)}`
    const answers: Answer[] = [
      // Status text, with an empty body.
      { status: 400, statusText: `Bad key ${KEY}`, body: '' },
      // The body, echoing the Authorization header, retried then failed.
      { status: 500, body: '' },
      // A Retry-After date with the key in a comment (Date.parse skips it), past the budget.
      { status: 429, headers: { 'retry-after': `Wed, 01 Jan 2098 00:00:00 GMT (${KEY})` }, body: long },
      // A JSON-less answer.
      { status: 200, body: long },
      // A redirect to another origin with the key in the Location's path and query.
      { status: 307, headers: { location: `${elsewhere.baseUrl}/${KEY}?k=${KEY}` } },
    ]
    const messages: string[] = []
    const logs: string[] = []
    for (const answer of answers) {
      const origin = await server(request => (answer.status === 500 ? { ...answer, body: `{"echo":"${request.headers.authorization}"}` } : answer))
      const { http, logs: lines } = client(origin.baseUrl, { backoffMs: 1 })
      messages.push((await rejection(http.post('/embeddings', {}, 'x'))).message)
      logs.push(...lines)
    }
    // A fetch failure whose cause quotes the key.
    const fetch = async () => {
      throw new TypeError('fetch failed', { cause: new Error(`connect refused for Bearer ${KEY}`) })
    }
    messages.push((await rejection(client('http://127.0.0.1:1/v1', { fetch: fetch as typeof globalThis.fetch }).http.post('/embeddings', {}, 'x'))).message)
    expect(messages.join('\n')).not.toContain(KEY)
    expect(logs.join('\n')).not.toContain(KEY)
    expect(logs).toHaveLength(3)
    expect(messages[0]).toMatch(/answered HTTP 400 for x: Bad key \[redacted\]$/)
    expect(messages[1]).toMatch(/answered HTTP 500 after 4 attempts for x: \{"echo":"Bearer \[redacted\]"\}$/)
    expect(messages[2]).toContain(`x: [redacted] ${'y'.repeat(289)}… It asks to be retried after "Wed, 01 Jan 2098 00:00:00 GMT ([redacte…`)
    expect(messages[3]).toMatch(/with something other than JSON: \[redacted\] y+…$/)
    expect(messages[5]).toBe('Could not reach the embedding server at http://127.0.0.1:1/v1 for x: connect refused for Bearer [redacted]. Check "model.baseUrl" in skill-kit.json.')
    expect(messages.every(message => message.length < 800)).toBe(true)
  })
})
