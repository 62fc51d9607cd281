// `skill-kit build` on a project whose vectors come from an embedding server
// (a loopback server in this process plays it), run in a Node process where
// Transformers.js cannot be resolved: a server build needs no local model.

import type { CliRun } from './cli'
import type { EmbeddingServer } from '../knowledge/embedding-server'
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultProjectConfig } from '../../src/knowledge/config'
import { readManifest } from '../../src/knowledge/publish'
import { decodeSnapshot } from '../../src/runtime'
import { startEmbeddingServer } from '../knowledge/embedding-server'
import { bundleCli, runCli } from './cli'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/cli-embedding-server')
const hideTransformers = ['--import', join(import.meta.dirname, 'no-transformers.mjs')]
let script: string
let server: EmbeddingServer
/** Whether the server refuses every request (HTTP 400) or answers. */
let refuse = false

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
})
