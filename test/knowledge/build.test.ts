import type { KnowledgeIndex } from '../../src/knowledge/build'
import type { Embedder } from '../../src/knowledge/embedder'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { buildKnowledgeIndex } from '../../src/knowledge/build'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { decodeSnapshot, searchVectors } from '../../src/runtime'

const home = join(import.meta.dirname, '../fixtures/knowledge/home')
const chunk = { maxTokens: 48, overlapTokens: 8 }

describe('buildKnowledgeIndex (tiny model)', () => {
  const work = mkdtempSync(join(tmpdir(), 'skill-kit-build-'))
  const folder = join(work, 'knowledge')
  const cacheDir = join(work, 'cache')
  let embedder: Embedder
  beforeAll(async () => {
    cpSync(home, folder, { recursive: true })
    await buildTinyModel(join(work, 'models'))
    embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: join(work, 'models'), offline: true })
  })
  afterAll(async () => {
    await embedder.dispose()
    rmSync(work, { recursive: true, force: true })
  })
  const build = async (options: { chunk?: typeof chunk, cache?: string } = {}) => {
    const result = await buildKnowledgeIndex(folder, { embedder, chunk: options.chunk ?? chunk, cacheDir: options.cache ?? cacheDir })
    if (!('snapshot' in result))
      throw new Error(result.diagnostics.map(d => d.message).join('\n'))
    return result as KnowledgeIndex
  }

  it('embeds every window once, then reuses the cache, with identical bytes', async () => {
    const first = await build()
    expect(first.stats.embedded).toBe(first.stats.windows)
    expect(first.stats.windows).toBeGreaterThan(first.chunks.length)
    const second = await build()
    expect(second.stats).toEqual({ windows: first.stats.windows, embedded: 0, cached: first.stats.windows })
    expect(Buffer.compare(Buffer.from(first.snapshot), Buffer.from(second.snapshot))).toBe(0)
    const snapshot = decodeSnapshot(first.snapshot)
    expect(snapshot.documents.map(d => d.id)).toEqual(['backups/schedule', 'network/wifi', 'restore-backup'])
    expect(searchVectors(snapshot, (await embedder.embed(['restore'], 'query'))[0]!, { threshold: -1 })).toHaveLength(3)
  })

  it('re-embeds only the edited document\'s windows', async () => {
    const before = await build()
    writeFileSync(join(folder, 'backups/schedule.md'), '# Schedule backups\n\nRun a nightly backup at 03:00 instead.\n')
    const after = await build()
    const scheduleWindows = after.chunks.filter(c => after.documents[c.document]!.id === 'backups/schedule').length
    expect(after.stats.embedded).toBeGreaterThan(0)
    expect(after.stats.embedded).toBeLessThanOrEqual(scheduleWindows + 1)
    expect(after.stats.cached).toBe(after.stats.windows - after.stats.embedded)
    expect(Buffer.compare(Buffer.from(before.snapshot), Buffer.from(after.snapshot))).not.toBe(0)
  })

  it('invalidates everything when chunking changes, and a deleted cache costs only time', async () => {
    const other = await build({ chunk: { maxTokens: 40, overlapTokens: 4 } })
    expect(other.stats.cached).toBe(0)
    const warm = await build()
    const cold = await build({ cache: join(work, 'fresh-cache') })
    expect(cold.stats.cached).toBe(0)
    expect(Buffer.compare(Buffer.from(warm.snapshot), Buffer.from(cold.snapshot))).toBe(0)
  })

  it('stops on an invalid folder with its diagnostics', async () => {
    writeFileSync(join(folder, 'empty.md'), '\n')
    const result = await buildKnowledgeIndex(folder, { embedder, chunk, cacheDir })
    expect('snapshot' in result).toBe(false)
    expect(result.diagnostics.map(d => d.code)).toEqual(['document-empty'])
    rmSync(join(folder, 'empty.md'))
  })
})
