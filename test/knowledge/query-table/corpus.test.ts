import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { buildKnowledgeIndex } from '../../../src/knowledge/build'
import { queryTableCorpus } from '../../../src/knowledge/query-table/corpus'
import { fakeEmbedder, fakeVector } from '../../support/fake-model'

describe('the corpus of a built index', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skill-kit-query-corpus-'))
    mkdirSync(join(dir, 'docs'))
    writeFileSync(join(dir, 'docs', 'forms.md'), '# Forms\n\nUse input validation with the form.\n\n## Dialog\n\nOpen a modal dialog and trap focus in it.\n')
    // Long enough for several windows of 16 tokens.
    writeFileSync(join(dir, 'docs', 'offline.md'), `# Offline\n\n${'A service worker can cache the site for offline use. '.repeat(6)}\n`)
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('gives the documents\' texts and every window with the snapshot\'s vector of it', async () => {
    const embedder = fakeEmbedder()
    const chunk = { maxTokens: 16, overlapTokens: 4 }
    const index = await buildKnowledgeIndex(join(dir, 'docs'), { embedder, chunk, cacheDir: join(dir, 'cache'), encoding: 'float32' })
    if (!('snapshot' in index))
      throw new Error(JSON.stringify(index.diagnostics))
    embedder.asked.length = 0
    const corpus = queryTableCorpus(index, embedder, chunk)
    expect(embedder.asked).toEqual([])
    expect(corpus.texts).toEqual(index.documents.map(d => d.body))
    expect(corpus.windows!.length).toBe(index.stats.windows)
    expect(corpus.windows!.length).toBeGreaterThan(index.chunks.length)
    for (const w of corpus.windows!) {
      expect(w.tokens.length).toBeLessThanOrEqual(14)
      expect(Array.from(w.vector)).toEqual(Array.from(fakeVector(w.tokens)))
    }

    // int8: the stored vectors, scaled back.
    const int8 = await buildKnowledgeIndex(join(dir, 'docs'), { embedder, chunk, cacheDir: join(dir, 'cache') })
    if (!('snapshot' in int8))
      throw new Error('no snapshot')
    const windows = queryTableCorpus(int8, embedder, chunk).windows!
    windows.forEach((w, i) => expect(Array.from(w.vector).reduce((s, v, d) => s + v * corpus.windows![i]!.vector[d]!, 0)).toBeGreaterThan(0.99))

    // Other chunk settings than the build's: the windows do not line up, and are left out.
    expect(queryTableCorpus(index, embedder, { maxTokens: 32, overlapTokens: 4 }).windows).toBeUndefined()
  })
})
