// A knowledge base embedded by an embedding server, through the plugin's
// `model` option: a loopback server in this process plays it. Transformers.js
// is made unavailable in this file: a server build needs no local model.

import type { Bundler } from '../../support/build'
import type { EmbeddingServer } from '../../support/embedding-server'
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { serverQueryEmbedder } from '../../../src/runtime'
import { startEmbeddingServer } from '../../support/embedding-server'
import { build } from '../../support/build'

vi.mock('@huggingface/transformers', () => {
  throw new Error('Transformers.js is not installed')
})

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-server')
const entry = join(work, 'main.js')
const KEY_VARIABLE = 'SKILL_KIT_TEST_PLUGIN_EMBEDDING_KEY'
const key = `sk-plugin-${Date.now().toString(36)}`
let server: EmbeddingServer
/** Whether the server refuses every request (HTTP 400) or answers. */
let refuse = false

/** Every file under `dir`. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter(e => e.isFile()).map(e => join(e.parentPath, e.name))
}

const options = (name: string) => ({
  root: work,
  knowledge: { docs: { dir: name, model: { provider: 'openai-compatible' as const, id: 'test-embedder', baseUrl: server.baseUrl, apiKeyEnv: KEY_VARIABLE, batchSize: 4, concurrency: 2 } } },
})

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  server = await startEmbeddingServer({ reply: () => (refuse ? { status: 400, body: `{"error":"bad key ${key}"}` } : undefined) })
  writeFileSync(entry, 'import docs from \'virtual:skill-kit/knowledge/docs\'\n\nexport { docs }\n')
  process.env[KEY_VARIABLE] = key
})
afterAll(async () => {
  delete process.env[KEY_VARIABLE]
  await server.close()
})

describe.each(['vite', 'rollup'] as Bundler[])('a knowledge base embedded by a server, with %s', (bundler) => {
  it('fails the build with the server\'s answer, the key redacted, then builds a module whose vector search asks the server', async () => {
    const name = `docs-${bundler}`
    // The fixture names the tiny test model: the plugin's model option replaces it with the server.
    cpSync(join(repo, 'test/fixtures/knowledge-app/docs'), join(work, name), { recursive: true })
    refuse = true
    const error = await build(bundler, entry, options(name), `knowledge-server-${bundler}-failed`).then(() => undefined, (e: unknown) => e as Error)
    refuse = false
    expect(error).toBeInstanceOf(Error)
    expect(error!.message).toContain(`Knowledge base "docs" (${name}): The embedding server at ${server.baseUrl} answered HTTP 400 for a request of 4 inputs: {"error":"bad key [redacted]"} `)
    expect(error!.message).not.toContain(key)

    const before = server.calls.length
    const { module, outDir, warnings } = await build(bundler, entry, options(name), `knowledge-server-${bundler}`)
    expect(warnings).toEqual([])
    const calls = server.calls.slice(before)
    expect(calls.length).toBeGreaterThan(1)
    expect(calls.every(call => call.input.length <= 4 && call.authorization === `Bearer ${key}`)).toBe(true)
    for (const file of [...filesOf(outDir), ...filesOf(join(work, name))])
      expect(readFileSync(file).includes(key), file).toBe(false)

    const { docs } = module
    const embedQuery = serverQueryEmbedder({ baseUrl: server.baseUrl, model: 'test-embedder', apiKeyEnv: KEY_VARIABLE })
    const found = await docs.search('corporate proxy HTTPS_PROXY', { mode: 'vector', embedQuery })
    expect(found[0]).toMatchObject({ id: 'setup/proxy' })
    expect(server.calls.at(-1)!.input).toEqual(['corporate proxy HTTPS_PROXY'])
  })

  it('refuses includeModel without a local copy of the server\'s model, saying what to do', async () => {
    const name = `docs-${bundler}-model`
    cpSync(join(repo, 'test/fixtures/knowledge-app/docs'), join(work, name), { recursive: true })
    const settings = options(name)
    const withModel = { ...settings, knowledge: { docs: { ...settings.knowledge.docs, includeModel: true } } }
    const error = await build(bundler, entry, withModel, `knowledge-server-${bundler}-model`).then(() => undefined, (e: unknown) => e as Error)
    expect(error).toBeInstanceOf(Error)
    expect(error!.message).toContain(`${name}: includeModel ships the local copy of test-embedder, which embeds queries as the server at ${server.baseUrl} does only when that server runs the same weights, but `)
    expect(error!.message).toContain(' lacks config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx. Run "skill-kit model" first, or leave includeModel out and embed queries with serverQueryEmbedder.')
  })
})
