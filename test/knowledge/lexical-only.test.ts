// Knowledge projects with "model": false: the lexical index with no model at
// all. Transformers.js is made unavailable here, as in an app that never
// installed it, and the embedder factory is watched: neither may be touched.

import type { KnowledgeProject, ProjectBuild } from '../../src/knowledge/project'
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { buildKnowledgeProject, indexState, openKnowledgeProject } from '../../src/knowledge/project'
import { readManifest, readPublishedIndex } from '../../src/knowledge/publish'
import { decodeSnapshot, searchLexical } from '../../src/runtime'
import { estimateTokens } from '../../src/runtime/tokens'

vi.mock('@huggingface/transformers', () => {
  throw new Error('Transformers.js is not installed')
})
vi.mock('../../src/knowledge/embedder', async original => ({
  ...await original<typeof import('../../src/knowledge/embedder')>(),
  createTransformersEmbedder: vi.fn(async () => {
    throw new Error('the embedder factory was called')
  }),
}))

const home = join(import.meta.dirname, '../fixtures/knowledge/home')
const work = mkdtempSync(join(tmpdir(), 'skill-kit-lexical-only-'))

afterAll(() => rmSync(work, { recursive: true, force: true }))

function project(dir: string, options: Parameters<typeof openKnowledgeProject>[1] = {}): KnowledgeProject {
  const opened = openKnowledgeProject(dir, options)
  if (!opened.project)
    throw new Error(opened.diagnostics.map(d => `${d.line}:${d.column} ${d.code} ${d.message}`).join('\n'))
  return opened.project
}

function folder(name: string, settings: unknown): string {
  const dir = join(work, name)
  cpSync(home, join(dir, 'knowledge'), { recursive: true })
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify(settings))
  return dir
}

describe('"model": false', () => {
  it('is the setting of skill-kit.json, or an override either way', () => {
    const dir = folder('overrides', { model: { dtype: 'fp32' } })
    expect(project(dir, { overrides: { model: false } }).config.model).toBe(false)
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ model: false }))
    expect(project(dir).config.model).toBe(false)
    // An override with settings gives the base a model again: the defaults, replaced key by key.
    expect(project(dir, { overrides: { model: { dtype: 'fp32' } } }).config.model).toMatchObject({ id: 'Xenova/all-MiniLM-L6-v2', dtype: 'fp32' })
    // A bare folder too.
    expect(project(join(dir, 'knowledge'), { root: work, overrides: { model: false } }).config.model).toBe(false)
  })

  it('builds documents, chunks, headings and the lexical index with no model, no vectors and no vector cache', async () => {
    const kp = project(folder('lexical', { model: false }))
    const built = await buildKnowledgeProject(kp) as ProjectBuild
    expect(createTransformersEmbedder).not.toHaveBeenCalled()
    expect(built.stats).toEqual({ windows: built.chunks.length, embedded: 0, cached: 0 })
    expect(existsSync(kp.config.cache)).toBe(false)
    const snapshot = decodeSnapshot(readPublishedIndex(kp.config.output)!.snapshot)
    expect(snapshot).toMatchObject({ encoding: 'none', dimensions: 0, model: '', chunkCount: built.chunks.length })
    const estimates = new Map(built.documents.map(d => [d.id, estimateTokens(d.body)]))
    expect(snapshot.documents.map(d => d.tokenCount)).toEqual(snapshot.documents.map(d => estimates.get(d.id)))
    expect(searchLexical(snapshot, 'borg archive')[0]).toMatchObject({ id: 'restore-backup', heading: ['Restore a backup', 'From the command line'] })
    expect(readManifest(kp.config.output)).toMatchObject({ model: null, documentCount: 3, chunkCount: built.chunks.length })
    expect(indexState(kp).state).toBe('fresh')
  })

  it('rebuilds when a model is set or taken away', async () => {
    const dir = folder('switch', { model: false })
    await buildKnowledgeProject(project(dir))
    expect(indexState(project(dir, { overrides: { model: {} } }))).toMatchObject({ state: 'stale', reason: 'the model or chunk settings changed' })
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({}))
    expect(indexState(project(dir)).state).toBe('stale')
    // The control: a project with a model does reach the embedder factory, which this file replaced.
    await expect(buildKnowledgeProject(project(dir))).rejects.toThrow('the embedder factory was called')
    expect(createTransformersEmbedder).toHaveBeenCalledTimes(1)
    await expect(import('@huggingface/transformers')).rejects.toThrow('There was an error when mocking a module')
  })

})
