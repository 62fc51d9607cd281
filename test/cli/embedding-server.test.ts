// `skill-kit build` on a project whose vectors come from an embedding server
// (a loopback server in this process plays it), run in a Node process where
// Transformers.js cannot be resolved: a server build needs no local model.

import type { CliRun } from '../support/cli'
import type { EmbeddingServer } from '../support/embedding-server'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultProjectConfig } from '../../src/knowledge/config'
import { readManifest } from '../../src/knowledge/publish'
import { decodeSnapshot } from '../../src/runtime'
import { startEmbeddingServer } from '../support/embedding-server'
import { bundleCli, runCli } from '../support/cli'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/cli-embedding-server')
const hideTransformers = ['--import', join(import.meta.dirname, '../support/no-transformers.mjs')]
let script: string
let server: EmbeddingServer
/** Whether the server refuses every request (HTTP 400) or answers. */
let refuse = false

/** The API key the project's `apiKeyEnv` names, for the runs that set it. */
const KEY = 'sk-served-test-0f3a9c27SECRET'
const withKey = { SKILL_KIT_TEST_UNSET_KEY: KEY }
const skillKit = (...args: string[]): Promise<CliRun> => runCli(script, work, args, hideTransformers)

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  ;[script, server] = await Promise.all([bundleCli(work), startEmbeddingServer({ reply: () => (refuse ? { status: 400, body: '{"error":"model not found"}' } : undefined) })])
  const dir = join(work, 'served')
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(dir, 'knowledge'), { recursive: true })
  const model = { provider: 'openai-compatible', id: 'test-embedder', baseUrl: server.baseUrl, apiKeyEnv: 'SKILL_KIT_TEST_UNSET_KEY', batchSize: 4 }
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig('served'), model, chunk: { maxTokens: 48, overlapTokens: 8 } }, null, 2))
}, 60_000)
afterAll(async () => {
  await server.close()
})

describe('skill-kit build with an embedding server', () => {
  it('fails with the server\'s answer and what is cached, no stack trace, and publishes nothing; then builds', async () => {
    refuse = true
    const failed = await skillKit('build', '--project', 'served')
    expect(failed.code).toBe(1)
    expect(failed.stdout).toBe('')
    const lines = failed.stderr.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^skill-kit: served: 3 documents, (\d+) windows \(0 cached, \1 to embed\)$/)
    const windows = Number(/(\d+) windows/.exec(lines[0]!)![1])
    expect(lines.slice(1)).toEqual([
      `skill-kit build: The embedding server at ${server.baseUrl} answered HTTP 400 for a request of 4 inputs: {"error":"model not found"} 0 of ${windows} windows to embed are embedded and cached, so the next build requests only the other ${windows}. The published index is unchanged.`,
    ])
    expect(readManifest(join(work, 'served/.skill-kit/index'))).toBeUndefined()

    refuse = false
    const before = server.calls.length
    const built = await skillKit('build', '--project', 'served')
    expect(built.code).toBe(0)
    expect(JSON.parse(built.stdout)).toMatchObject({ name: 'served', documents: 3, windows, embedded: windows, cached: 0 })
    expect(server.calls.slice(before).every(call => call.input.length <= 4 && call.authorization === undefined)).toBe(true)
    const manifest = readManifest(join(work, 'served/.skill-kit/index'))!
    const snapshot = decodeSnapshot(readFileSync(join(work, 'served/.skill-kit/index', manifest.snapshot)))
    expect(snapshot.dimensions).toBe(16)
    expect(snapshot.model).toMatch(/^openai-compatible:test-embedder\//)
  })

  it('exports a skill whose search.mjs embeds queries through the same server, with no package and no key in its files', async () => {
    const exported = await runCli(script, work, ['export', 'out/served', '--project', 'served'], hideTransformers, withKey)
    expect(exported.code, exported.stderr).toBe(0)
    const dir = join(work, 'out/served')
    expect(existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'package-lock.json'))).toBe(false)
    const settings = JSON.parse(readFileSync(join(dir, 'index/settings.json'), 'utf8'))
    expect(settings.model.server).toEqual({ baseUrl: server.baseUrl, apiKeyEnv: 'SKILL_KIT_TEST_UNSET_KEY' })
    expect(readFileSync(join(dir, 'SKILL.md'), 'utf8')).toContain(`ranks by meaning through the embedding server at ${server.baseUrl} (model test-embedder), which each search sends its query to; set \`SKILL_KIT_TEST_UNSET_KEY\` to its API key when it needs one.`)
    for (const file of readdirSync(dir, { recursive: true, withFileTypes: true }).filter(entry => entry.isFile()))
      expect(readFileSync(join(file.parentPath, file.name), 'utf8')).not.toContain(KEY)

    // Moved away from this repository: Node alone, the query sent to the server with the key, the ranking of skill-kit search.
    const copy = mkdtempSync(join(tmpdir(), 'skill-kit-served-'))
    cpSync(dir, copy, { recursive: true })
    const before = server.calls.length
    const searched = await runCli(join(copy, 'search.mjs'), copy, ['restore a backup', '--mode', 'vector'], [], withKey)
    const expected = await runCli(script, work, ['search', 'restore a backup', '--project', 'served', '--mode', 'vector'], hideTransformers, withKey)
    rmSync(copy, { recursive: true, force: true })
    expect(searched).toEqual({ code: 0, stderr: '', stdout: expected.stdout })
    expect(JSON.parse(searched.stdout)[0].id).toBe('restore-backup')
    expect(server.calls[before]).toMatchObject({ model: 'test-embedder', input: ['restore a backup'], authorization: `Bearer ${KEY}` })

    // With the server refusing, auto searches by words and says why on stderr.
    refuse = true
    const auto = await runCli(join(dir, 'search.mjs'), dir, ['restore a backup'])
    refuse = false
    expect(auto.code).toBe(0)
    expect(auto.stdout).toBe((await skillKit('search', 'restore a backup', '--project', 'served', '--mode', 'lexical')).stdout)
    expect(auto.stderr).toBe(`[skill-kit] Knowledge base "served" searches lexically: the embedding server at ${server.baseUrl} answered HTTP 400. For vector search, check that the embedding server at ${server.baseUrl} runs test-embedder, the model the knowledge base was built with.\n`)
  })

  it('refuses --include-model without a local copy of the model, saying what to do', async () => {
    const run = await skillKit('export', 'out/served-model', '--project', 'served', '--include-model')
    expect(run).toMatchObject({ code: 1, stdout: '' })
    expect(run.stderr).toBe(`skill-kit export: "served" is embedded by the server at ${server.baseUrl}. --include-model copies the local copy of test-embedder (the same vectors only when the server runs the same weights), but its model folder lacks config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx. Run "skill-kit model --project served" first, or export without --include-model: search.mjs then embeds queries through the server.\n`)
    expect(existsSync(join(work, 'out/served-model'))).toBe(false)
  })
})
