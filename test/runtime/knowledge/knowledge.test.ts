// createKnowledgeBase: modes, defaults, lazy loading and errors, on a hand-made snapshot.

import type { KnowledgeBaseInit } from '../../../src/runtime'
import { describe, expect, it, vi } from 'vitest'
import { encodeSnapshot } from '../../../src/knowledge/snapshot'
import { createKnowledgeBase, decodeSnapshot, KnowledgeError, lexicalWeight, QueryModelUnavailableError } from '../../../src/runtime'

/** Unit vector along `axis` of 4 dimensions, tilted by `tilt` towards the next axis. */
function along(axis: number, tilt = 0): number[] {
  const v = [0, 0, 0, 0]
  v[axis] = Math.cos(tilt)
  v[(axis + 1) % 4] = Math.sin(tilt)
  return v
}

const snapshot = encodeSnapshot({
  model: 'test',
  encoding: 'float32',
  lexical: true,
  documents: [
    { id: 'backup', description: 'Back up files', path: 'backup.md', tokenCount: 10 },
    { id: 'network', description: 'Fix the Wi-Fi', path: 'network.md', tokenCount: 12 },
    { id: 'printer', description: 'Printer jams', path: 'printer.md', tokenCount: 8 },
  ],
  chunks: [
    { documentIndex: 0, vector: along(0), heading: ['Backups'], text: 'nightly backup of the home folder' },
    { documentIndex: 1, vector: along(1), heading: ['Wi-Fi'], text: 'router channel and wifi signal' },
    { documentIndex: 2, vector: along(2), heading: ['Printer'], text: 'paper jam in the printer tray' },
    { documentIndex: 2, vector: along(0, 0.5), heading: ['Printer', 'Scanning'], text: 'scan to a backup folder' },
  ],
})
const documents = decodeSnapshot(snapshot).documents

function knowledgeBase(overrides: Partial<KnowledgeBaseInit> = {}) {
  const loadSnapshot = vi.fn(async () => snapshot)
  const bodies = documents.map(d => vi.fn(async () => ({ default: `body of ${d.id}` })))
  const kb = createKnowledgeBase({ name: 'home', documents, loadSnapshot, bodies, ...overrides })
  return { kb, loadSnapshot, bodies }
}

describe('createKnowledgeBase', () => {
  it('searches by vector with an embedder: soft maximum of the chunks per document, defaults from the build', async () => {
    const { kb, loadSnapshot } = knowledgeBase({ embedQuery: async () => along(0), search: { topK: 2, threshold: 0.5 } })
    expect(loadSnapshot).not.toHaveBeenCalled()
    const hits = await kb.search('anything', { mode: 'vector' })
    expect(hits.map(h => [h.id, h.heading])).toEqual([['backup', ['Backups']], ['printer', ['Printer', 'Scanning']]])
    expect(hits[0]!.score).toBeCloseTo(1, 6)
    // printer: its scanning chunk at cos 0.5 rad, its printer chunk at 0 (log-mean-exp, T 0.05).
    expect(hits[1]!.score).toBeCloseTo(0.05 * Math.log((Math.exp(Math.cos(0.5) / 0.05) + 1) / 2), 6)
    expect(hits[0]).not.toHaveProperty('documentIndex')
    expect((await kb.search('anything', { mode: 'vector', threshold: 0.9 })).map(h => h.id)).toEqual(['backup'])
    expect(loadSnapshot).toHaveBeenCalledTimes(1)
  })

  it('ranks an auto search with an embedder by vector + weight · lexical score, the weight from both sides\' top scores', async () => {
    const { kb } = knowledgeBase({ embedQuery: async () => along(0) })
    const vector = new Map((await kb.search('printer jam', { mode: 'vector' })).map(h => [h.id, h.score]))
    const lexical = new Map((await kb.search('printer jam', { mode: 'lexical', threshold: 0 })).map(h => [h.id, h.score]))
    expect([...vector.keys()]).toEqual(['backup', 'printer'])
    expect([...lexical.keys()]).toEqual(['printer'])
    // Over every document: vector backup 1, printer, network 0; lexical printer, then two without the words.
    const vectorTop = (await kb.search('printer jam', { mode: 'vector', threshold: -1 })).map(h => h.score)
    const weight = lexicalWeight(vectorTop, [lexical.get('printer')!, 0, 0])
    const auto = await kb.search('printer jam')
    expect(auto.map(h => h.id)).toEqual(['printer', 'backup'])
    expect(auto[0]!.score).toBeCloseTo(vector.get('printer')! + weight * lexical.get('printer')!, 12)
    expect(auto[1]!.score).toBeCloseTo(vector.get('backup')!, 12)
    expect(auto[0]!.heading).toEqual(['Printer', 'Scanning']) // its best chunk by vector
  })

  it('searches lexically without an embedder, and refuses vector search', async () => {
    const { kb } = knowledgeBase()
    const reasons: string[] = []
    expect((await kb.search('printer jam', { onLexicalFallback: reason => reasons.push(reason) }))[0]!.id).toBe('printer')
    expect(reasons).toEqual(['"home" has no query embedder'])
    const error = await kb.search('printer', { mode: 'vector' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(KnowledgeError)
    expect((error as KnowledgeError).code).toBe('no-embedder')
    expect((error as Error).message).toBe('A vector search of "home" needs a query embedder: pass embedQuery, build with includeModel for browsers, or search with mode: \'lexical\'.')
  })

  it('falls back to lexical in auto mode when the model cannot be loaded, saying so once; vector and hybrid say what to do', async () => {
    const embedQuery = vi.fn(async (): Promise<number[]> => {
      throw new QueryModelUnavailableError('/srv/models/test lacks config.json', 'build with includeModel')
    })
    const { kb } = knowledgeBase({ embedQuery })
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      // The caller's threshold was meant for cosine similarity: the fallback uses lexical's own.
      expect((await kb.search('printer jam', { threshold: -1 })).map(h => h.id)).toEqual(['printer'])
      expect((await kb.search('wifi router')).map(h => h.id)).toEqual(['network'])
      expect(warn.mock.calls).toEqual([['[skill-kit] Knowledge base "home" searches lexically: /srv/models/test lacks config.json. For vector search, build with includeModel.']])
      // Every such search tells a caller that asks, so that a search UI says which ranking it shows.
      const reasons: string[] = []
      await kb.search('printer jam', { onLexicalFallback: reason => reasons.push(reason) })
      expect(reasons).toEqual(['/srv/models/test lacks config.json'])
    }
    finally {
      warn.mockRestore()
    }
    for (const mode of ['vector', 'hybrid'] as const) {
      const error = await kb.search('printer', { mode }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(KnowledgeError)
      expect((error as KnowledgeError).code).toBe('model-unavailable')
      expect((error as Error).message).toBe(`A ${mode} search of "home" needs its query model, but /srv/models/test lacks config.json. Build with includeModel, or search with mode: 'lexical'.`)
    }
    expect(embedQuery).toHaveBeenCalledTimes(5)
  })

  it('lets other embedder errors through', async () => {
    const { kb } = knowledgeBase({ embedQuery: async () => { throw new Error('out of memory') } })
    await expect(kb.search('printer')).rejects.toThrow('out of memory')
  })

  it('without vectors (built with no model): lexical in auto mode, even with an embedder; vector and hybrid refused', async () => {
    const lexicalOnly = encodeSnapshot({
      model: '',
      encoding: 'none',
      lexical: true,
      documents,
      chunks: [
        { documentIndex: 0, text: 'nightly backup of the home folder' },
        { documentIndex: 1, text: 'router channel and wifi signal' },
        { documentIndex: 2, text: 'paper jam in the printer tray' },
      ],
    })
    const embedQuery = vi.fn(async () => along(0))
    const { kb } = knowledgeBase({ vectors: false, embedQuery, loadSnapshot: async () => lexicalOnly })
    expect((await kb.search('Why does the printer jam?')).map(h => h.id)).toEqual(['printer'])
    expect(embedQuery).not.toHaveBeenCalled()
    for (const mode of ['vector', 'hybrid'] as const) {
      const error = await kb.search('printer', { mode }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(KnowledgeError)
      expect(error).toMatchObject({ code: 'no-vectors', message: `"home" was built without a model ("model": false), so it has no vectors for a ${mode} search: search with mode 'lexical' or 'auto', or replace "model": false with the model's settings and build again.` })
    }
  })

  it('fuses both rankings in hybrid mode, and takes a per-search embedder', async () => {
    const { kb } = knowledgeBase()
    const hits = await kb.search('backup folder', { mode: 'hybrid', embedQuery: async () => along(1), threshold: 0 })
    // Vector: network, printer (its scanning chunk), backup (at 0). Lexical: backup (its heading
    // and ID say "backup"), then printer; network has neither word. Fused by 1 / (60 + rank).
    expect(hits.map(h => h.id)).toEqual(['backup', 'printer', 'network'])
    expect(hits[0]!.score).toBeCloseTo(1 / 63 + 1 / 61, 9)
    expect(hits[1]!.score).toBeCloseTo(1 / 62 + 1 / 62, 9)
    expect(hits[2]!.score).toBeCloseTo(1 / 61, 9)
  })

  it('retrieves bodies on demand, once each, and suggests IDs for a typo', async () => {
    const { kb, bodies } = knowledgeBase()
    expect(await kb.retrieve('network')).toBe('body of network')
    expect(await kb.retrieve('network')).toBe('body of network')
    expect(bodies[1]).toHaveBeenCalledTimes(1)
    expect(bodies[0]).not.toHaveBeenCalled()
    await expect(kb.retrieve('netwrk')).rejects.toThrow('"netwrk" is not a document of "home". Did you mean "network"?')
    await expect(kb.retrieve('__proto__')).rejects.toThrow('Search first, and retrieve an ID from the results.')
  })

  it('retrieves an ID typed in another case when only one document matches it, and names every match otherwise', async () => {
    const ids = ['rules/MD045', 'rules/md046', 'Setup', 'setup']
    const documents = ids.map(id => ({ id, description: id, category: '', categories: [], tags: [], path: `${id}.md`, tokenCount: 1 }))
    const kb = createKnowledgeBase({ name: 'lint', documents, loadSnapshot: async () => snapshot, bodies: ids.map(id => async () => `body of ${id}`) })
    expect(await kb.retrieve('rules/md045')).toBe('body of rules/MD045')
    expect(await kb.retrieve('RULES/MD046')).toBe('body of rules/md046')
    // An exact ID wins over its case-folded twins.
    expect(await kb.retrieve('setup')).toBe('body of setup')
    const ambiguous = await kb.retrieve('SETUP').catch((error: unknown) => error)
    expect(ambiguous).toBeInstanceOf(KnowledgeError)
    expect(ambiguous).toMatchObject({ code: 'ambiguous-document', message: '"SETUP" matches several documents of "lint" that differ only in case: "Setup", "setup". Retrieve one of them by its exact ID.' })
    await expect(kb.retrieve('rules/md047')).rejects.toMatchObject({ code: 'unknown-document' })
  })

  it('suggests path IDs whose last segment matches', async () => {
    const paths = decodeSnapshot(encodeSnapshot({
      model: 'test',
      encoding: 'float32',
      documents: ['ops/vpn', 'ops/vpc', 'guides/backup', 'vpn-faq'].map(id => ({ id, description: id, path: `${id}.md`, tokenCount: 1 })),
      chunks: [0, 1, 2, 3].map(documentIndex => ({ documentIndex, vector: along(documentIndex), heading: [], text: 'x' })),
    })).documents
    const kb = createKnowledgeBase({ name: 'ops', documents: paths, loadSnapshot: async () => snapshot, bodies: paths.map(() => async () => '') })
    await expect(kb.retrieve('vpn')).rejects.toThrow('"vpn" is not a document of "ops". Did you mean "ops/vpn" or "ops/vpc"?')
    await expect(kb.retrieve('guides/vpn')).rejects.toThrow('"guides/vpn" is not a document of "ops". Did you mean "ops/vpn" or "ops/vpc"?')
    await expect(kb.retrieve('backups')).rejects.toThrow('"backups" is not a document of "ops". Did you mean "guides/backup"?')
    await expect(kb.retrieve('vpn-faw')).rejects.toThrow('"vpn-faw" is not a document of "ops". Did you mean "vpn-faq"?')
  })

  it('loads the snapshot again after a failed load, and rejects non-string queries', async () => {
    let calls = 0
    const { kb } = knowledgeBase({
      loadSnapshot: async () => {
        if (++calls === 1)
          throw new Error('HTTP 503')
        return snapshot
      },
    })
    await expect(kb.search('printer')).rejects.toThrow('HTTP 503')
    expect((await kb.search('printer'))[0]!.id).toBe('printer')
    await expect(kb.search(42 as unknown as string)).rejects.toThrow('Search for a string, not number.')
    expect(await kb.search('  ')).toEqual([])
  })

  it('refuses an unknown mode and a bad topK or threshold with a KnowledgeError, before loading anything', async () => {
    const { kb, loadSnapshot } = knowledgeBase()
    const refused = async (options: object, message: string) => {
      const error = await kb.search('printer', options as never).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(KnowledgeError)
      expect(error).toMatchObject({ code: 'invalid-options', message })
    }
    await refused({ mode: 'fuzzy' }, 'mode must be \'auto\', \'vector\', \'lexical\', \'hybrid\'; got "fuzzy".')
    await refused({ mode: 'x'.repeat(200) }, `mode must be 'auto', 'vector', 'lexical', 'hybrid'; got "${'x'.repeat(79)}….`)
    await refused({ topK: 0 }, 'topK must be a positive integer, got 0.')
    await refused({ topK: 2.5 }, 'topK must be a positive integer, got 2.5.')
    await refused({ threshold: Number.NaN }, 'threshold must be a number from -1 to 1, got NaN.')
    await refused({ threshold: '0.3' }, 'threshold must be a number from -1 to 1, got "0.3".')
    await refused({ threshold: 2 }, 'threshold must be a number from -1 to 1, got 2.')
    expect(loadSnapshot).not.toHaveBeenCalled()
  })
})
