// defineKnowledge and swapKnowledge: a dev-server update swaps a new index into the object the app holds.

import type { SnapshotDocumentInput } from '../../../src/knowledge/snapshot'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { encodeSnapshot } from '../../../src/knowledge/snapshot'
import { decodeSnapshot } from '../../../src/runtime'
import { defineKnowledge, swapKnowledge } from '../../../src/runtime/knowledge/knowledge-module'

const dir = mkdtempSync(join(tmpdir(), 'skill-kit-module-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A lexical-only knowledge module of `texts` (ID → text), its snapshot in a file. */
function knowledgeModule(texts: Record<string, string>, model: { id: string } | false = false, vectorsPending = false) {
  const input: SnapshotDocumentInput[] = Object.keys(texts).map(id => ({ id, description: `About ${id}`, path: `${id}.md`, tokenCount: 3 }))
  const bytes = encodeSnapshot({ model: '', encoding: 'none', lexical: true, documents: input, chunks: input.map((_, i) => ({ documentIndex: i, text: Object.values(texts)[i]! })) })
  const file = join(dir, `${Object.keys(texts).join('-')}.skillkit`)
  writeFileSync(file, bytes)
  const documents = decodeSnapshot(bytes).documents
  return defineKnowledge({
    name: 'home',
    documents,
    snapshotUrl: () => pathToFileURL(file),
    bodies: documents.map(d => async () => ({ default: `body of ${d.id}: ${texts[d.id]}` })),
    model: model && { id: model.id, revision: 'main', dtype: 'q8', maxTokens: 128, queryPrefix: '' },
    vectorsPending,
  })
}

describe('swapKnowledge', () => {
  it('makes the imported object answer from the new index, in place, and tells its onUpdate handlers', async () => {
    const knowledge = knowledgeModule({ backup: 'nightly backup of the home folder', wifi: 'router channel' })
    const { documents, search, retrieve } = knowledge
    expect((await search('router', { mode: 'lexical' })).map(r => r.id)).toEqual(['wifi'])
    const handler = vi.fn()
    const stop = knowledge.onUpdate(handler)

    swapKnowledge(knowledge, knowledgeModule({ backup: 'weekly backup', printer: 'paper jam in the tray' }))
    // The same array and functions the app took apart at import.
    expect(knowledge.documents).toBe(documents)
    expect(documents.map(d => d.id)).toEqual(['backup', 'printer'])
    expect((await search('paper jam', { mode: 'lexical' })).map(r => r.id)).toEqual(['printer'])
    expect(await search('router', { mode: 'lexical' })).toEqual([])
    expect(await retrieve('backup')).toBe('body of backup: weekly backup')
    await expect(retrieve('wifi')).rejects.toThrow('"wifi" is not a document of "home".')
    expect(handler).toHaveBeenCalledTimes(1)
    expect(handler).toHaveBeenCalledWith(knowledge)

    stop()
    swapKnowledge(knowledge, knowledgeModule({ scanner: 'scan to a folder' }))
    expect(documents.map(d => d.id)).toEqual(['scanner'])
    expect(handler).toHaveBeenCalledTimes(1)
  })

  it('keeps the model folder the app chose with useModel when the new index has another model', async () => {
    const knowledge = knowledgeModule({ backup: 'nightly backup' }, { id: 'org/first' })
    const folder = join(dir, 'models')
    knowledge.useModel({ path: folder })
    swapKnowledge(knowledge, knowledgeModule({ wifi: 'router channel' }, { id: 'org/second' }))
    // Vector search looks for the new model in the app's folder.
    await expect(knowledge.search('router', { mode: 'vector' })).rejects.toThrow(`needs its query model, but ${join(folder, 'org', 'second')} lacks config.json`)
  })
})

describe('a module served while its vectors are pending (the Vite dev server)', () => {
  it('searches by words, says why a vector search cannot yet, and takes the vectors and the app\'s useModel with the update', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const knowledge = knowledgeModule({ router: 'router channel', toner: 'toner cartridge' }, { id: 'org/model' }, true)
      expect(knowledge.vectors).toBe('pending')
      // `auto` is lexical, with no model to load and nothing to warn about.
      expect((await knowledge.search('router channel')).map(r => r.id)).toEqual(['router'])
      expect(warn).not.toHaveBeenCalled()
      const error = await knowledge.search('router', { mode: 'vector' }).catch((e: unknown) => e)
      expect(error).toMatchObject({ name: 'KnowledgeError', code: 'vectors-pending', message: `"home" is still being embedded by the Vite dev server, so it has no vectors for a vector search yet: search with mode 'lexical' or 'auto' until they arrive (onUpdate tells when; the knowledge base's vectors then reads 'complete').` })
      const folder = join(dir, 'pending-models')
      knowledge.useModel({ path: folder })

      swapKnowledge(knowledge, knowledgeModule({ router: 'router channel', toner: 'toner cartridge' }, { id: 'org/model' }))
      expect(knowledge.vectors).toBe('complete')
      // The model is looked for where the app said, before the vectors came.
      await expect(knowledge.search('router', { mode: 'vector' })).rejects.toThrow(`needs its query model, but ${join(folder, 'org', 'model')} lacks config.json`)
      expect(knowledgeModule({ scanner: 'scan to a folder' }).vectors).toBe('none')
    }
    finally {
      warn.mockRestore()
    }
  })
})

describe('a damaged snapshot file', () => {
  it('rejects every search with KnowledgeError snapshot-unavailable, naming the file, and searches once it is deployed again', async () => {
    const knowledge = knowledgeModule({ restore: 'restore a backup' })
    const file = join(dir, 'restore.skillkit')
    const good = readFileSync(file)
    writeFileSync(file, good.subarray(0, 100))
    const error = await knowledge.search('restore', { mode: 'lexical' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'KnowledgeError', code: 'snapshot-unavailable', message: `Cannot read the knowledge snapshot ${file}: Truncated knowledge snapshot: 100 of ${good.length} bytes. Rebuild it, or check that it was transferred completely.` })
    writeFileSync(file, good)
    expect((await knowledge.search('restore', { mode: 'lexical' })).map(r => r.id)).toEqual(['restore'])
  })
})
