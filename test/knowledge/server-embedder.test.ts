// Knowledge bases embedded by an embedding server: a real HTTP server on
// loopback plays it (embedding-server.ts), and real builds go through
// buildKnowledgeProject, the vector cache and the publisher.

import type { KnowledgeProgress } from '../../src/knowledge/progress'
import type { EmbeddedProject, ProjectBuild } from '../../src/knowledge/project'
import type { ServerEmbedderOptions } from '../../src/knowledge/server-embedder'
import type { EmbeddingCall, EmbeddingReply, EmbeddingServer } from '../support/embedding-server'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { DiagnosticBag } from '../../src/core/diagnostics'
import { parseProjectConfig } from '../../src/knowledge/config'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { buildKnowledgeProject, disposeProjectEmbedders } from '../../src/knowledge/project'
import { readManifest } from '../../src/knowledge/publish'
import { CHARS_PER_TOKEN, createServerEmbedder, EmbeddingServerError, planRequests } from '../../src/knowledge/server-embedder'
import { createKnowledgeBase, decodeSnapshot, KnowledgeError, searchVectors, serverQueryEmbedder } from '../../src/runtime'
import { openEmbeddedProject, startEmbeddingServer, wordVector } from '../support/embedding-server'

const work = mkdtempSync(join(tmpdir(), 'skill-kit-server-embedder-'))
const models = join(work, 'models')
const TOPICS = ['backup', 'network', 'printer', 'garden', 'kitchen', 'bicycle', 'camera', 'library', 'weather', 'music', 'planet', 'harbor']

/** A project of 12 documents of two sections each, every section long enough for several windows. */
function writeProject(name: string, model: Record<string, unknown>): string {
  const dir = join(work, name)
  mkdirSync(join(dir, 'knowledge'), { recursive: true })
  TOPICS.forEach((topic, i) => {
    const paragraph = (n: number) => Array.from({ length: 6 }, (_, k) => `The ${topic} note ${n}.${k} says how the ${topic} works on day ${k + i}.`).join(' ')
    writeFileSync(join(dir, 'knowledge', `${topic}.md`), `# The ${topic}\n\n${paragraph(1)}\n\n## More about the ${topic}\n\n${paragraph(2)}\n`)
  })
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name, model: { provider: 'openai-compatible', id: 'test-embedder', ...model }, chunk: { maxTokens: 32, overlapTokens: 4 } }, null, 2))
  return dir
}

/** The project's server embedder, with an empty environment unless given, and the test's clock. */
function embedderOf(project: EmbeddedProject, extra: Partial<ServerEmbedderOptions> = {}) {
  const { model } = project.config
  return createServerEmbedder({
    model: model.id,
    server: model.server!,
    maxTokens: model.maxTokens,
    queryPrefix: model.queryPrefix,
    documentPrefix: model.documentPrefix,
    cacheDir: model.cacheDir,
    revision: model.revision,
    env: {},
    ...extra,
  })
}

/** Builds and expects a published index. */
async function published(project: EmbeddedProject, options: Parameters<typeof buildKnowledgeProject>[1]): Promise<ProjectBuild> {
  const result = await buildKnowledgeProject(project, options)
  if (!('snapshotFile' in result))
    throw new Error('not published')
  return result
}

/** The error a build fails with. */
async function failure(project: EmbeddedProject, options: Parameters<typeof buildKnowledgeProject>[1]): Promise<Error> {
  try {
    await buildKnowledgeProject(project, options)
  }
  catch (error) {
    return error as Error
  }
  throw new Error('the build did not fail')
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(file => join(dir, file)).filter(file => statSync(file).isFile())
}

const inputs = (calls: readonly EmbeddingCall[]) => calls.reduce((sum, call) => sum + call.input.length, 0)

let server: EmbeddingServer
/** What the server answers now: tests set it, `undefined` is the default answer. */
let reply: ((call: EmbeddingCall) => EmbeddingReply | undefined | Promise<EmbeddingReply | undefined>) | undefined
beforeAll(async () => {
  server = await startEmbeddingServer({ reply: call => reply?.(call) })
  await buildTinyModel(models)
})
afterAll(async () => {
  await disposeProjectEmbedders()
  await server.close()
  rmSync(work, { recursive: true, force: true })
})
const served = () => server.calls.length

describe('an embedding server', () => {
  it('gets the windows in requests of at most batchSize, concurrency of them in flight, and its vectors are published normalised', async () => {
    const project = openEmbeddedProject(writeProject('pool', { baseUrl: server.baseUrl, batchSize: 4, concurrency: 3 }))
    const embedder = await embedderOf(project)
    expect(embedder.windowing).toBe('characters')
    expect(embedder.maxTokens).toBe(256 * CHARS_PER_TOKEN)
    // Each request waits until three are in flight (or no more can come): a pool of three reaches three, never four.
    let expected = Infinity
    const held: (() => void)[] = []
    const before = served()
    reply = () => new Promise<undefined>((resolve) => {
      held.push(() => resolve(undefined))
      if (held.length === 3 || served() - before === expected)
        held.splice(0).forEach(release => release())
    })
    const events: KnowledgeProgress[] = []
    let requestedBeforeRead = 0
    const build = await published(project, {
      embedder,
      onProgress: (event) => {
        events.push(event)
        if (event.phase === 'read') {
          expected = Math.ceil((event.windows - event.cached) / 4)
          requestedBeforeRead = served() - before
        }
      },
    })
    reply = undefined
    const calls = server.calls.slice(before)
    expect(build.stats.embedded).toBe(build.stats.windows)
    expect(build.stats.windows).toBeGreaterThan(60)
    expect(calls).toHaveLength(Math.ceil(build.stats.windows / 4))
    expect(inputs(calls)).toBe(build.stats.windows)
    expect(calls.every(call => call.input.length <= 4 && call.model === 'test-embedder' && call.dimensions === undefined && call.authorization === undefined)).toBe(true)
    expect(server.peakInFlight()).toBe(3)
    // The build streams: requests went out while the folder was still being cut into windows.
    expect(requestedBeforeRead).toBeGreaterThanOrEqual(3)
    // Windows of code points: chunk.maxTokens 32 × 3 characters at most.
    expect(Math.max(...calls.flatMap(call => call.input.map(text => [...text].length)))).toBe(32 * CHARS_PER_TOKEN)
    const embeds = events.filter(event => event.phase === 'embed')
    expect(embeds).toHaveLength(calls.length)
    expect(embeds.at(-1)).toMatchObject({ done: build.stats.windows, total: build.stats.windows })
    expect(embeds.every(event => event.inFlight! >= 1 && event.inFlight! <= 3)).toBe(true)

    const snapshot = decodeSnapshot(readFileSync(build.snapshotFile))
    expect(snapshot.dimensions).toBe(16)
    expect(snapshot.model).toBe(embedder.fingerprint)
    expect(embedder.fingerprint).toMatch(/^openai-compatible:test-embedder\/[0-9a-f]{24}$/)
    const [query] = await embedder.embed(['printer printer printer'], 'query')
    expect(Math.hypot(...query!)).toBeCloseTo(1, 6)
    const hits = searchVectors(snapshot, query!, { threshold: -1 })
    expect(snapshot.documents[hits[0]!.documentIndex]!.id).toBe('printer')

    // A rebuild finds every vector in the cache: the server hears nothing.
    const heard = served()
    const again = await published(project, { embedder: await embedderOf(project) })
    expect(again.stats).toEqual({ windows: build.stats.windows, embedded: 0, cached: build.stats.windows })
    expect(served()).toBe(heard)
    expect(Buffer.compare(readFileSync(again.snapshotFile), readFileSync(build.snapshotFile))).toBe(0)
  })

  it('keeps the estimated tokens of a request within maxBatchTokens', async () => {
    const project = openEmbeddedProject(writeProject('tokens', { baseUrl: server.baseUrl, maxTokens: 64, maxBatchTokens: 70, concurrency: 1 }))
    const before = served()
    const build = await published(project, { embedder: await embedderOf(project) })
    const calls = server.calls.slice(before)
    const estimate = (text: string) => Math.ceil([...text].length / CHARS_PER_TOKEN)
    expect(inputs(calls)).toBe(build.stats.windows)
    expect(calls.every(call => call.input.reduce((sum, text) => sum + estimate(text), 0) <= 70)).toBe(true)
    expect(calls.some(call => call.input.length >= 2)).toBe(true)
    expect(planRequests([30, 30, 30, 90, 5], { inputs: 32, tokens: 70 })).toEqual([[0, 1], [2], [3], [4]])
  })

  it('waits as a 429 answer\'s Retry-After says, and backs off with jitter after a 500, then carries on', async () => {
    const project = openEmbeddedProject(writeProject('retry', { baseUrl: server.baseUrl, batchSize: 8, concurrency: 1 }))
    const sleeps: number[] = []
    const embedder = await embedderOf(project, { http: { sleep: async (ms) => { sleeps.push(ms) } } })
    const before = served()
    reply = (call) => {
      if (call.n === before + 1)
        return { status: 429, headers: { 'retry-after': '7' }, body: '{"error":"slow down"}' }
      if (call.n === before + 3)
        return { status: 500, body: '{"error":"overloaded"}' }
      return undefined
    }
    const lines: string[] = []
    const build = await published(project, { embedder, onProgress: event => event.phase === 'retry' && lines.push(event.line) })
    reply = undefined
    expect(build.stats.embedded).toBe(build.stats.windows)
    expect(served() - before).toBe(Math.ceil(build.stats.windows / 8) + 2)
    expect(sleeps[0]).toBe(7000)
    expect(sleeps[1]).toBeGreaterThanOrEqual(1000)
    expect(sleeps[1]).toBeLessThan(2000)
    expect(lines).toEqual([
      'HTTP 429 for a request of 8 inputs; retrying in 7000 ms (attempt 2 of 4).',
      `HTTP 500 for a request of 8 inputs; retrying in ${Math.round(sleeps[1]!)} ms (attempt 2 of 4).`,
    ])
  })

  it('fails a request that takes longer than timeoutMs, publishing nothing', async () => {
    const dir = writeProject('timeout', { baseUrl: server.baseUrl, batchSize: 4, concurrency: 1, timeoutMs: 100 })
    const project = openEmbeddedProject(dir)
    reply = () => ({ hold: true })
    const error = await failure(project, { embedder: await embedderOf(project) })
    reply = undefined
    expect(error).toBeInstanceOf(EmbeddingServerError)
    const total = Number(/of (\d+) windows/.exec(error.message)?.[1])
    expect(error.message).toBe(`The embedding server at ${server.baseUrl} did not answer within 100 ms for a request of 4 inputs. Raise "model.timeoutMs" in skill-kit.json, or check the server. 0 of ${total} windows to embed are embedded and cached, so the next build requests only the other ${total}.`)
    expect(readManifest(join(dir, '.skill-kit/index'))).toBeUndefined()
  })

  it('refuses vectors of the wrong length, with NaN (null in JSON), all zero, or too few', async () => {
    const cases: [Record<string, unknown>, (call: EmbeddingCall) => EmbeddingReply, string][] = [
      [{ dimensions: 8 }, call => ({ vectors: call.input.map(text => wordVector(text, 16)) }), 'with 16-dimensional vectors where 8 dimensions were expected. Check "model.id" and "model.dimensions".'],
      [{}, call => ({ vectors: call.input.map((text, i) => i === 2 ? [0.5, null, ...wordVector(text, 14)] : wordVector(text, 16)) }), 'with a vector holding null, which is not a finite number.'],
      [{}, call => ({ vectors: call.input.map(() => Array.from({ length: 16 }, () => 0)) }), 'with an all-zero vector, which has no direction to search by.'],
      [{}, call => ({ vectors: call.input.slice(1).map(text => wordVector(text, 16)) }), 'with 3 embeddings for 4 inputs.'],
    ]
    for (const [i, [settings, answer, message]] of cases.entries()) {
      const dir = writeProject(`vectors-${i}`, { baseUrl: server.baseUrl, batchSize: 4, concurrency: 1, ...settings })
      const project = openEmbeddedProject(dir)
      reply = answer
      const error = await failure(project, { embedder: await embedderOf(project) })
      reply = undefined
      expect(error).toBeInstanceOf(EmbeddingServerError)
      expect(error.message).toMatch(new RegExp(`^The embedding server at ${server.baseUrl.replace(/\./g, '\\.')} answered a request of 4 inputs `))
      expect(error.message).toContain(message)
      expect(readManifest(join(dir, '.skill-kit/index'))).toBeUndefined()
    }
    expect(server.calls.at(-4)!.dimensions).toBe(8)
  })

  it('learns the length of the vectors from the server, and refuses a server that changes it under the same settings', async () => {
    const dir = writeProject('changed', { baseUrl: server.baseUrl, batchSize: 4, concurrency: 1 })
    const project = openEmbeddedProject(dir)
    const embedder = await embedderOf(project)
    expect(embedder.dimensions).toBe(0)
    const first = await published(project, { embedder })
    expect(embedder.dimensions).toBe(16)
    expect(decodeSnapshot(readFileSync(first.snapshotFile)).dimensions).toBe(16)
    writeFileSync(join(dir, 'knowledge/camera.md'), '# The camera\n\nA new lens for the camera.\n')
    reply = call => ({ vectors: call.input.map(text => wordVector(text, 8)) })
    const error = await failure(project, { embedder: await embedderOf(project) })
    reply = undefined
    expect(error.message).toBe('The embedding model answered 8-dimensional vectors, but the vectors cached for it have 16. If the server now runs another model, change "model.id" or set "model.dimensions", so that its vectors are cached apart. 0 of 1 window to embed is embedded and cached, so the next build requests only the other 1.')
    expect(readManifest(join(dir, '.skill-kit/index'))!.snapshot).toBe(first.snapshotFile.split(/[\\/]/).pop())
  })

  it('keeps what a failed build received, and the next build requests only the rest', async () => {
    const dir = writeProject('resume', { baseUrl: server.baseUrl, batchSize: 4, concurrency: 1 })
    const project = openEmbeddedProject(dir)
    const before = served()
    reply = call => (call.n === before + 3 ? { status: 400, body: '{"error":{"message":"input too long"}}' } : undefined)
    const error = await failure(project, { embedder: await embedderOf(project) })
    reply = undefined
    const total = Number(/of (\d+) windows/.exec(error.message)?.[1])
    expect(error.message).toBe(`The embedding server at ${server.baseUrl} answered HTTP 400 for a request of 4 inputs: {"error":{"message":"input too long"}} 8 of ${total} windows to embed are embedded and cached, so the next build requests only the other ${total - 8}.`)
    expect(readManifest(join(dir, '.skill-kit/index'))).toBeUndefined()

    const resumedFrom = served()
    const build = await published(project, { embedder: await embedderOf(project) })
    expect(build.stats).toEqual({ windows: total, embedded: total - 8, cached: 8 })
    expect(inputs(server.calls.slice(resumedFrom))).toBe(total - 8)
    // The same bytes as a build that never failed.
    const clean = await published(openEmbeddedProject(writeProject('clean', { baseUrl: server.baseUrl, batchSize: 4, concurrency: 1 })), { embedder: await embedderOf(project) })
    expect(Buffer.compare(readFileSync(build.snapshotFile), readFileSync(clean.snapshotFile))).toBe(0)
  })

  it('sends the key of apiKeyEnv as a bearer token, and it appears in no output, cache or message', async () => {
    const key = `sk-test-${Math.random().toString(36).slice(2)}${Date.now()}`
    process.env.SKILL_KIT_TEST_EMBEDDING_KEY = key
    try {
      const dir = writeProject('key', { baseUrl: server.baseUrl, apiKeyEnv: 'SKILL_KIT_TEST_EMBEDDING_KEY', concurrency: 2 })
      const project = openEmbeddedProject(dir)
      const before = served()
      reply = call => (call.n === before + 1 ? { status: 401, body: `{"error":"invalid key ${key}"}` } : undefined)
      // The project's own embedder, as the CLI and the plugin get it: the key comes from the environment.
      const error = await failure(project, {})
      reply = undefined
      expect(error.message).toContain('answered HTTP 401 for a request of 32 inputs: {"error":"invalid key [redacted]"}')
      const build = await published(project, {})
      expect(build.stats.embedded).toBeGreaterThan(0)
      expect(server.calls.slice(before).every(call => call.authorization === `Bearer ${key}`)).toBe(true)
      const files = filesUnder(dir)
      expect(files.some(file => file.includes('vectors-'))).toBe(true)
      expect(files.filter(file => readFileSync(file).includes(key))).toEqual([])
      expect(JSON.stringify(project.config)).not.toContain(key)
    }
    finally {
      delete process.env.SKILL_KIT_TEST_EMBEDDING_KEY
    }
  })

  it('refuses plain HTTP to a host other than this machine, in skill-kit.json and in the client', async () => {
    const bag = new DiagnosticBag('/p/skill-kit.json')
    parseProjectConfig('/p', '{\n  "model": {\n    "provider": "openai-compatible",\n    "id": "bge-small",\n    "baseUrl": "http://embeddings.example.com/v1"\n  }\n}', bag)
    const message = '"model.baseUrl" (http://embeddings.example.com/v1) uses plain HTTP, which would send the API key and the documents unencrypted. Use https://, or http:// only for a server on this machine (localhost, 127.0.0.1, ::1).'
    expect(bag.sorted().map(d => [d.code, d.line, d.column, d.message])).toEqual([['config-invalid', 5, 16, message]])
    const project = openEmbeddedProject(writeProject('plain', { baseUrl: server.baseUrl }))
    await expect(embedderOf(project, { server: { ...project.config.model.server!, baseUrl: 'http://embeddings.example.com/v1' } })).rejects.toThrow(new EmbeddingServerError(message))
  })

  it('cuts windows on the model\'s tokens when its tokenizer is on disk, and caches them apart from the local model\'s', async () => {
    const dir = writeProject('tokenizer', { baseUrl: server.baseUrl, id: TINY_MODEL_ID, cacheDir: '../models', maxTokens: 128, concurrency: 2 })
    const project = openEmbeddedProject(dir)
    const embedder = await embedderOf(project)
    expect(embedder.windowing).toBe('tokenizer')
    expect(embedder.maxTokens).toBe(128)
    const local = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true, maxTokens: 128 })
    try {
      const before = served()
      const build = await published(project, { embedder })
      const calls = server.calls.slice(before)
      expect(inputs(calls)).toBe(build.stats.windows)
      // Decoded token windows: lower-cased, within chunk.maxTokens with the model's own special tokens.
      const sent = calls.flatMap(call => call.input)
      expect(sent.every(text => text === text.toLowerCase() && local.tokenize(text).length <= 32 - 2)).toBe(true)
      expect(sent.some(text => text.includes('printer'))).toBe(true)
      const mixed = await published(project, { embedder: local })
      expect(mixed.model).not.toBe(build.model)
      expect(mixed.stats.cached).toBe(0)
      expect(readdirSync(join(dir, '.skill-kit/cache')).filter(file => file.startsWith('vectors-'))).toHaveLength(2)
    }
    finally {
      await local.dispose()
    }
    expect(existsSync(join(dir, '.skill-kit/index'))).toBe(true)
  })
})

describe('serverQueryEmbedder', () => {
  it('embeds queries at run time through the server the knowledge base was built with', async () => {
    const project = openEmbeddedProject(writeProject('runtime', { baseUrl: server.baseUrl, queryPrefix: 'query: ' }))
    const embedder = await embedderOf(project)
    const build = await published(project, { embedder })
    process.env.SKILL_KIT_TEST_QUERY_KEY = 'sk-query-secret'
    try {
      const embedQuery = serverQueryEmbedder({ baseUrl: server.baseUrl, model: 'test-embedder', apiKeyEnv: 'SKILL_KIT_TEST_QUERY_KEY', queryPrefix: 'query: ' })
      const vector = await embedQuery('Which camera?')
      expect(Array.from(vector)).toEqual([...(await embedder.embed(['Which camera?'], 'query'))[0]!])
      expect(server.calls.at(-2)).toMatchObject({ input: ['query: Which camera?'], model: 'test-embedder', authorization: 'Bearer sk-query-secret' })
      const knowledge = createKnowledgeBase({
        name: 'runtime',
        documents: decodeSnapshot(build.snapshot).documents,
        loadSnapshot: async () => readFileSync(build.snapshotFile),
        bodies: build.documents.map(d => async () => d.body),
        embedQuery,
      })
      expect((await knowledge.search('camera camera', { mode: 'vector', threshold: -1 }))[0]!.id).toBe('camera')

      // A server that fails: `auto` searches lexically, `vector` says what is wrong, and neither names the key.
      reply = () => ({ status: 503, body: 'down sk-query-secret' })
      expect((await knowledge.search('camera', { mode: 'auto' }))[0]!.id).toBe('camera')
      const error = await knowledge.search('camera', { mode: 'vector' }).catch((e: unknown) => e as KnowledgeError)
      reply = undefined
      expect(error).toBeInstanceOf(KnowledgeError)
      expect((error as Error).message).toBe(`A vector search of "runtime" needs its query model, but the embedding server at ${server.baseUrl} answered HTTP 503. Check that the embedding server at ${server.baseUrl} runs test-embedder, the model the knowledge base was built with, or search with mode: 'lexical'.`)
    }
    finally {
      delete process.env.SKILL_KIT_TEST_QUERY_KEY
    }
    expect(() => serverQueryEmbedder({ baseUrl: 'http://embeddings.example.com/v1', model: 'm' })).toThrow(expect.objectContaining({ name: 'KnowledgeError', code: 'invalid-options', message: 'serverQueryEmbedder: baseUrl (http://embeddings.example.com) must be an https:// URL, or http:// for a server on this machine (localhost, 127.0.0.1, ::1), since the key and the queries travel with every request.' }))
  })
})
