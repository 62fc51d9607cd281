// The run-time query embedder against the build-time embedder: same model,
// same framing and pooling, so the same vectors; long and odd queries never throw.

import type { TransformersEmbedder } from '../../../src/knowledge/embedder'
import type { TransformersModule } from '../../../src/runtime'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder, DEFAULT_EMBEDDING_REVISION } from '../../../src/knowledge/embedder'
import { transformersQueryEmbedder } from '../../../src/runtime'

const work = mkdtempSync(join(tmpdir(), 'skill-kit-query-'))
const models = join(work, 'models')
const model = { id: TINY_MODEL_ID, revision: DEFAULT_EMBEDDING_REVISION, dtype: 'q8', localModelPath: models, device: 'cpu' as const }
const load = () => import('@huggingface/transformers') as unknown as Promise<TransformersModule>

describe('transformersQueryEmbedder (tiny model, Node)', () => {
  let embedder: TransformersEmbedder
  beforeAll(async () => {
    await buildTinyModel(models)
    embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true, queryPrefix: 'query: ', maxTokens: 32 })
  })
  afterAll(async () => {
    await embedder.dispose()
    rmSync(work, { recursive: true, force: true })
  })

  it('gives the build embedder\'s query vectors, prefix and truncation included', async () => {
    const embed = transformersQueryEmbedder(load, { ...model, maxTokens: 32, queryPrefix: 'query: ' })
    const long = Array.from({ length: 2000 }, (_, i) => `word${i}`).join(' ')
    for (const query of ['restore a backup', '', 'emoji 🚀 and \uD800 lone surrogate', long]) {
      const [expected] = await embedder.embed([query], 'query')
      const actual = await embed(query)
      expect(actual).toHaveLength(expected!.length)
      Array.from(actual).forEach((x, i) => expect(x).toBeCloseTo(expected![i]!, 5))
    }
  })

  it('loads once, and tries again after a failure', async () => {
    let calls = 0
    const flaky = () => {
      calls++
      return calls === 1 ? Promise.reject(new Error('offline')) : load()
    }
    const embed = transformersQueryEmbedder(flaky, { ...model, maxTokens: 32, queryPrefix: '' })
    await expect(embed('x')).rejects.toThrow('offline')
    await embed('x')
    await embed('y')
    expect(calls).toBe(2)
  })

  it('never reaches the network for a model that is not there', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch')
    try {
      const embed = transformersQueryEmbedder(load, { ...model, id: 'nobody/missing-model', maxTokens: 32, queryPrefix: '' })
      await expect(embed('x')).rejects.toThrow(/nobody\/missing-model/)
      expect(fetchSpy).not.toHaveBeenCalled()
    }
    finally {
      fetchSpy.mockRestore()
    }
  })
})
