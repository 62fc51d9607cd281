// What a hostile or broken embedding server can answer a build, against a real
// HTTP server on loopback (embedding-server.ts) and real builds: embeddings
// under the wrong indexes, components no float holds, redirects, Retry-After
// past the budget, and the key planted wherever a server can put it. None of
// it may reach the vector cache, a message, a retry line or a published file.

import type { EmbeddedProject } from '../../src/knowledge/project'
import type { ServerEmbedderOptions } from '../../src/knowledge/server-embedder'
import type { EmbeddingCall, EmbeddingReply, EmbeddingServer } from '../support/embedding-server'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildKnowledgeProject, disposeProjectEmbedders } from '../../src/knowledge/project'
import { readManifest } from '../../src/knowledge/publish'
import { createServerEmbedder, EmbeddingServerError } from '../../src/knowledge/server-embedder'
import { openEmbeddedProject, startEmbeddingServer, wordVector } from '../support/embedding-server'

const work = mkdtempSync(join(tmpdir(), 'skill-kit-server-answers-'))
const KEY = 'sk-Test-2b7E9c4A1d6F3085'
const TOPICS = ['backup', 'network', 'printer', 'garden', 'kitchen', 'bicycle']

/** A project of 6 documents, cut into windows of at most 32 tokens. */
function writeProject(name: string, model: Record<string, unknown>): string {
  const dir = join(work, name)
  mkdirSync(join(dir, 'knowledge'), { recursive: true })
  TOPICS.forEach((topic, i) => {
    const paragraph = Array.from({ length: 6 }, (_, k) => `The ${topic} note ${k} says how the ${topic} works on day ${k + i}.`).join(' ')
    writeFileSync(join(dir, 'knowledge', `${topic}.md`), `# The ${topic}\n\n${paragraph}\n`)
  })
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name, model: { provider: 'openai-compatible', id: 'test-embedder', baseUrl: server.baseUrl, batchSize: 4, concurrency: 1, ...model }, chunk: { maxTokens: 32, overlapTokens: 4 } }))
  return dir
}

/** The project's embedder as the build makes it, with the key in its environment and the test's sleep and clock. */
function embedderOf(project: EmbeddedProject, http: ServerEmbedderOptions['http'] = {}) {
  const { model } = project.config
  return createServerEmbedder({ model: model.id, server: model.server!, maxTokens: model.maxTokens, cacheDir: model.cacheDir, revision: model.revision, env: { OPENAI_API_KEY: KEY }, http })
}

/** Builds; the error it fails with, and the retry lines it said. */
async function build(project: EmbeddedProject, http: ServerEmbedderOptions['http'] = {}): Promise<{ error?: Error, lines: string[] }> {
  const lines: string[] = []
  try {
    await buildKnowledgeProject(project, { embedder: await embedderOf(project, http), onProgress: event => event.phase === 'retry' && lines.push(event.line) })
    return { lines }
  }
  catch (error) {
    return { error: error as Error, lines }
  }
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(file => join(dir, file)).filter(file => statSync(file).isFile())
}

/** The vectors of a bad answer: every component 7, so each is 0.25 once normalised, a float pattern no word vector has. */
const BAD = Array.from({ length: 16 }, () => 7)
const BAD_BYTES = Buffer.from(new Float32Array(16).fill(0.25).buffer)
/** Whether any cache file of `dir` holds a vector of a bad answer. */
const cachesBad = (dir: string) => filesUnder(join(dir, '.skill-kit/cache')).some(file => readFileSync(file).includes(BAD_BYTES))

let server: EmbeddingServer
let elsewhere: EmbeddingServer
let reply: ((call: EmbeddingCall) => EmbeddingReply | undefined) | undefined
beforeAll(async () => {
  server = await startEmbeddingServer({ reply: call => reply?.(call) })
  elsewhere = await startEmbeddingServer()
})
afterAll(async () => {
  await disposeProjectEmbedders()
  await Promise.all([server.close(), elsewhere.close()])
  rmSync(work, { recursive: true, force: true })
})

/** An answer of `data` items, as the server writes them. */
const answer = (data: unknown[]): EmbeddingReply => ({ body: JSON.stringify({ object: 'list', data }) })

describe('embedding answers whose index fields are not 0..n-1', () => {
  const cases: [string, (input: string[]) => unknown[], string][] = [
    ['reversed, as strings', input => input.map((_, i) => ({ index: String(i), embedding: BAD })).reverse(), '["3","2","1","0"]'],
    ['one missing', input => input.map((_, i) => (i === 2 ? { embedding: BAD } : { index: i, embedding: BAD })), '[0,1,null,3]'],
    ['a duplicate', input => input.map((_, i) => ({ index: i === 2 ? 1 : i, embedding: BAD })), '[0,1,1,3]'],
    ['out of range', input => input.map((_, i) => ({ index: i + 1, embedding: BAD })), '[1,2,3,4]'],
    ['not integers', input => input.map((_, i) => ({ index: i === 0 ? 0.5 : i, embedding: BAD })), '[0.5,1,2,3]'],
  ]
  it.each(cases)('are retried as a server fault, then fail the build with nothing of them cached (%s)', async (name, data, quoted) => {
    const dir = writeProject(`index-${name.replace(/\W+/g, '-')}`, {})
    const project = openEmbeddedProject(dir)
    // The first request is answered right, so the cache has vectors; every attempt at the second is not.
    const first = server.calls.length + 1
    reply = call => (call.n > first ? answer(data(call.input)) : undefined)
    const sleeps: number[] = []
    const { error, lines } = await build(project, { sleep: async (ms) => { sleeps.push(ms) } })
    reply = undefined
    expect(error).toBeInstanceOf(EmbeddingServerError)
    const total = Number(/of (\d+) windows/.exec(error!.message)?.[1])
    expect(error!.message).toBe(`The embedding server at ${server.baseUrl} answered a request of 4 inputs with embeddings whose "index" fields are not the integers 0 to 3, each once: ${quoted}. Its vectors cannot be matched to the inputs, so none is kept. That was the last of 4 attempts. 4 of ${total} windows to embed are embedded and cached, so the next build requests only the other ${total - 4}.`)
    expect(server.calls.length - first).toBe(4)
    expect(sleeps).toHaveLength(3)
    expect(lines[0]).toMatch(/^An unusable answer for a request of 4 inputs; retrying in \d+ ms \(attempt 2 of 4\)\.$/)
    expect(readManifest(join(dir, '.skill-kit/index'))).toBeUndefined()
    expect(filesUnder(join(dir, '.skill-kit/cache')).some(file => file.includes('vectors-'))).toBe(true)
    expect(cachesBad(dir)).toBe(false)
  })

  it('takes the answer of a retry once the server answers right, and publishes what a clean build does', async () => {
    const dir = writeProject('index-retried', {})
    const first = server.calls.length + 1
    reply = call => (call.n === first + 1 ? answer(call.input.map((text, i) => ({ index: String(i), embedding: wordVector(`${text} swapped`, 16) })).reverse()) : undefined)
    const { error, lines } = await build(openEmbeddedProject(dir), { sleep: async () => {} })
    reply = undefined
    expect(error).toBeUndefined()
    expect(lines).toHaveLength(1)
    const clean = writeProject('index-clean', {})
    expect((await build(openEmbeddedProject(clean))).error).toBeUndefined()
    const snapshot = (folder: string) => readFileSync(join(folder, '.skill-kit/index', readManifest(join(folder, '.skill-kit/index'))!.snapshot))
    expect(Buffer.compare(snapshot(dir), snapshot(clean))).toBe(0)
  })
})

describe('vector components', () => {
  it.each([
    ['1e999', 'a number beyond 1.8e308 (read as Infinity)'],
    ['-1e999', 'a number beyond -1.8e308 (read as -Infinity)'],
    ['1e39', '1e+39'],
  ])('say that %s is out of the range of a 32-bit float, not "null"', async (component, said) => {
    const dir = writeProject(`range-${component}`, {})
    reply = call => ({ body: `{"data":[${call.input.map((_, i) => `{"index":${i},"embedding":[${i === 1 ? component : 1},${wordVector('x', 15).join(',')}]}`).join(',')}]}` })
    const { error } = await build(openEmbeddedProject(dir))
    reply = undefined
    expect(error!.message).toContain(`answered a request of 4 inputs with a vector holding ${said}, out of the range of a 32-bit float (at most 3.4e38 either side of zero).`)
  })
})

describe('a build', () => {
  it('never follows a redirect to another origin, which hears nothing', async () => {
    const dir = writeProject('redirect', {})
    const heard = elsewhere.calls.length
    const other = new URL(elsewhere.baseUrl).origin
    reply = () => ({ status: 307, headers: { location: `${elsewhere.baseUrl}/embeddings` } })
    const { error } = await build(openEmbeddedProject(dir))
    reply = undefined
    expect(error!.message).toMatch(new RegExp(`^The embedding server at \\S+ answered a request of 4 inputs with HTTP 307, a redirect to another origin, "${other.replace(/\./g, '\\.')}", which is never followed: the key and the documents go to "model\\.baseUrl" only\\. Set "model\\.baseUrl" in skill-kit\\.json to the URL the API answers at without a redirect\\. 0 of \\d+ windows`))
    expect(elsewhere.calls.length).toBe(heard)
  })

  it('fails at once when Retry-After asks for more than "model.retryBudgetMs" allows', async () => {
    const dir = writeProject('budget', { retryBudgetMs: 30_000 })
    const now = Date.UTC(2030, 0, 1)
    reply = () => ({ status: 429, headers: { 'retry-after': new Date(now + 3_600_000).toUTCString() }, body: '{"error":"rate limited"}' })
    const sleeps: number[] = []
    const { error } = await build(openEmbeddedProject(dir), { sleep: async (ms) => { sleeps.push(ms) }, now: () => now })
    reply = undefined
    expect(sleeps).toEqual([])
    expect(error!.message).toContain(`answered HTTP 429 for a request of 4 inputs: {"error":"rate limited"} It asks to be retried after "${new Date(now + 3_600_000).toUTCString()}" (Retry-After), which would pass "model.retryBudgetMs" (30000 ms a request, 30000 ms left). Build again later, or raise "model.retryBudgetMs" in skill-kit.json.`)
  })

  it('keeps the key out of every message, retry line and file, wherever the server puts it', async () => {
    const dir = writeProject('key', {})
    const project = openEmbeddedProject(dir)
    const long = `${KEY}${'z'.repeat(5000)}`
    const replies: ((call: EmbeddingCall) => EmbeddingReply)[] = [
      () => ({ status: 400, statusText: `Invalid key ${KEY}`, body: '' }),
      call => ({ status: 503, body: `{"error":"no quota for ${call.authorization}"}` }),
      call => ({ vectors: call.input.map((text, i) => (i === 1 ? [KEY, ...wordVector(text, 15)] : wordVector(text, 16))) }),
      call => ({ vectors: call.input.map((text, i) => (i === 1 ? [long, ...wordVector(text, 15)] : wordVector(text, 16))) }),
      call => answer(call.input.map((_, i) => ({ index: i, embedding: i === 0 ? KEY : BAD }))),
      call => answer(call.input.map((_, i) => ({ index: i === 0 ? KEY : i, embedding: BAD }))),
      () => ({ status: 308, headers: { location: `/v1/${KEY}/embeddings` } }),
      () => ({ status: 429, headers: { 'retry-after': `Wed, 01 Jan 2098 00:00:00 GMT (${KEY})` }, body: '' }),
    ]
    const messages: string[] = []
    const lines: string[] = []
    for (const answerWith of replies) {
      reply = answerWith
      const result = await build(project, { sleep: async () => {} })
      messages.push(result.error?.message ?? '')
      lines.push(...result.lines)
    }
    reply = undefined
    expect(messages[0]).toContain('answered HTTP 400 for a request of 4 inputs: Invalid key [redacted] ')
    expect(messages[1]).toContain('answered HTTP 503 after 4 attempts for a request of 4 inputs: {"error":"no quota for Bearer [redacted]"} ')
    expect(messages[2]).toContain('with a vector holding "[redacted]", which is not a finite number.')
    expect(messages[3]).toContain(`with a vector holding "[redacted]${'z'.repeat(69)}…, which is not a finite number.`)
    expect(messages[4]).toContain('with an embedding that is not a list of numbers: "[redacted]"')
    expect(messages[5]).toContain('"index" fields are not the integers 0 to 3, each once: ["[redacted]",1,2,3].')
    expect(messages[6]).toContain('with HTTP 308, a redirect to "/v1/[redacted]/embeddings" on the same server, which is not followed')
    expect(messages[7]).toContain('It asks to be retried after "Wed, 01 Jan 2098 00:00:00 GMT ([redacte… (Retry-After)')
    expect(messages.every(message => message.length < 800)).toBe(true)
    expect(lines.length).toBeGreaterThanOrEqual(6)
    expect([...messages, ...lines].filter(text => text.includes(KEY))).toEqual([])
    // Then a clean build: the cache and the index hold no key and no vector of the bad answers.
    expect((await build(project)).error).toBeUndefined()
    expect(existsSync(join(dir, '.skill-kit/index/manifest.json'))).toBe(true)
    expect(filesUnder(dir).filter(file => readFileSync(file).includes(KEY))).toEqual([])
    expect(cachesBad(dir)).toBe(false)
  })
})
