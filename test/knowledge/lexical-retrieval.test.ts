// Lexical search with no model, as a knowledge base with "model": false has it,
// over all the Modern Web Guidance guides and the home fixture: questions and long
// task prompts find what their keywords find, under the default threshold, with
// about the same score. bench/lexical.bench.mjs measures the same sets in full.

import type { Snapshot } from '../../src/runtime/knowledge/format/snapshot-layout'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sourcePackageDir } from '../../scripts/models/minilm.mjs'
import { buildKnowledgeIndex } from '../../src/knowledge/build'
import { DEFAULT_CHUNK } from '../../src/knowledge/config'
import { LEXICAL_THRESHOLD, searchLexical } from '../../src/runtime/knowledge/lexical/lexical'
import { decodeSnapshot } from '../../src/runtime/knowledge/format/snapshot-reader'

interface Need { corpus: string, relevant: string[], short: string, question: string, prompt: string }

const FORMS = ['short', 'question', 'prompt'] as const
const needs: Need[] = JSON.parse(readFileSync(resolve('bench/retrieval/questions.json'), 'utf8'))
const guideNeeds = needs.filter(n => n.corpus === 'guides')

const cache = mkdtempSync(join(tmpdir(), 'skill-kit-lexical-retrieval-'))
afterAll(() => rmSync(cache, { recursive: true, force: true }))

async function lexicalSnapshot(dir: string): Promise<Snapshot> {
  const index = await buildKnowledgeIndex(dir, { embedder: null, chunk: DEFAULT_CHUNK, cacheDir: cache })
  if (!('snapshot' in index))
    throw new Error(JSON.stringify(index.diagnostics))
  return decodeSnapshot(index.snapshot)
}

/** The score of the best relevant document (0 when none matches). */
function relevantScore(snapshot: Snapshot, query: string, relevant: string[]): number {
  const hits = searchLexical(snapshot, query, { topK: snapshot.documents.length, threshold: 0 })
  return Math.max(0, ...hits.filter(h => relevant.includes(h.id)).map(h => h.score))
}

describe('lexical search of questions and prompts', () => {
  let home: Snapshot
  let guides: Snapshot
  beforeAll(async () => {
    home = await lexicalSnapshot(resolve('test/fixtures/knowledge/home'))
    guides = await lexicalSnapshot(join(sourcePackageDir(), 'skills/modern-web-guidance/guides'))
  }, 60_000)

  it('finds the document about restoring deleted files for the question, as for its keywords', () => {
    for (const query of ['recover deleted files', 'How can I recover deleted files?', 'how do i recover deleted files']) {
      const [hit] = searchLexical(home, query)
      expect(hit, query).toMatchObject({ id: 'restore-backup' })
      expect(hit!.score, query).toBeGreaterThanOrEqual(LEXICAL_THRESHOLD)
    }
  })

  it.each(FORMS)('puts a relevant guide in the top 5 under the default threshold for at least 80 %% of the needs, asked in %s form', (form) => {
    expect(guideNeeds.length).toBeGreaterThanOrEqual(24)
    const misses = guideNeeds.filter(n => !searchLexical(guides, n[form]).some(h => n.relevant.includes(h.id)))
    expect(misses.length / guideNeeds.length, misses.map(m => m[form]).join(' | ')).toBeLessThanOrEqual(0.2)
  })

  it('scores a guide about the same for a 40–70 word prompt as for the keywords it wraps', () => {
    const ratios = guideNeeds.map(n => relevantScore(guides, n.prompt, n.relevant) / relevantScore(guides, n.short, n.relevant)).sort((a, b) => a - b)
    const median = ratios[ratios.length >> 1]!
    expect(median).toBeGreaterThan(0.7)
    expect(median).toBeLessThan(1.3)
    expect(guideNeeds.every(n => n.prompt.split(' ').length >= 40)).toBe(true)
  })
})
