// The query table a project publishes beside its snapshot (`queryEncoder`
// `auto` or `static`): the same files from two cold builds of the same folder,
// made once for an unchanged folder, none with `queryEncoder` `model`.

import type { KnowledgeProject, ProjectBuild } from '../../src/knowledge/project'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { buildKnowledgeProject, disposeProjectEmbedders, openKnowledgeProject } from '../../src/knowledge/project'
import { QueryTableUnavailableError } from '../../src/knowledge/project-query-table'
import { readManifest } from '../../src/knowledge/publish'
import * as distil from '../../src/knowledge/query-table/distil'

vi.mock('../../src/knowledge/query-table/distil', async (original) => {
  const module = await original<typeof distil>()
  return { ...module, distilQueryTable: vi.fn(module.distilQueryTable) }
})

const fixture = join(import.meta.dirname, '../fixtures/knowledge-app/docs')
const work = mkdtempSync(join(tmpdir(), 'skill-kit-query-table-'))

/** A copy of the fixture project in `work/<name>` with its own model folder (so its own cache of the model's vectors), and `queryEncoder`. */
async function copy(name: string, queryEncoder?: string): Promise<KnowledgeProject> {
  const dir = join(work, name)
  cpSync(fixture, dir, { recursive: true })
  const config = JSON.parse(readFileSync(join(dir, 'skill-kit.json'), 'utf8'))
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ ...config, model: { ...config.model, cacheDir: 'models' }, ...(queryEncoder && { queryEncoder }) }))
  await buildTinyModel(join(dir, 'models'))
  const opened = openKnowledgeProject(dir)
  if (!opened.project)
    throw new Error(opened.diagnostics.map(d => d.message).join('\n'))
  return opened.project
}

/** Every file of the published table's folder, by name. */
function tableFiles(build: ProjectBuild): Map<string, Buffer> {
  const dir = build.queryTable!.dir
  return new Map(readdirSync(dir).sort().map(name => [name, readFileSync(join(dir, name))]))
}

async function built(project: KnowledgeProject): Promise<ProjectBuild> {
  const build = await buildKnowledgeProject(project, { offline: true })
  if (!('snapshotFile' in build))
    throw new Error(build.diagnostics.map(d => d.message).join('\n'))
  return build
}

let one: KnowledgeProject
let first: ProjectBuild

beforeAll(async () => {
  mkdirSync(work, { recursive: true })
  one = await copy('one')
  first = await built(one)
}, 60_000)

afterAll(async () => {
  await disposeProjectEmbedders()
  rmSync(work, { recursive: true, force: true })
})

describe('a project\'s query table', () => {
  it('is published beside the snapshot: a core and its shards in a folder named in the manifest', () => {
    const manifest = readManifest(one.config.output)!
    expect(manifest.queryTable).toMatchObject({ folder: expect.stringMatching(/^query-table-[\w-]{16}$/) })
    const files = tableFiles(first)
    expect(first.queryTable!.dir).toBe(join(one.config.output, manifest.queryTable!.folder))
    expect([...files.keys()]).toContain('query-table.json')
    expect(files.size).toBe(manifest.queryTable!.shards + 1)
    expect(JSON.parse(files.get('query-table.json')!.toString('utf8'))).toMatchObject({ model: first.model, shards: manifest.queryTable!.shards })
  })

  it('is byte-identical from two cold builds of the same documents, each with its own caches', async () => {
    const two = await built(await copy('two'))
    expect(tableFiles(two)).toEqual(tableFiles(first))
  }, 60_000)

  it('is not made again for an unchanged folder; a changed document makes a new one and removes none still named', async () => {
    const calls = vi.mocked(distil.distilQueryTable).mock.calls.length
    const again = await built(one)
    expect(vi.mocked(distil.distilQueryTable).mock.calls.length).toBe(calls)
    expect(again.queryTable!.dir).toBe(first.queryTable!.dir)
    writeFileSync(join(one.config.knowledge, 'install.md'), `${readFileSync(join(one.config.knowledge, 'install.md'), 'utf8')}\nA proxy needs its certificate.\n`)
    const changed = await built(one)
    expect(vi.mocked(distil.distilQueryTable).mock.calls.length).toBe(calls + 1)
    expect(changed.queryTable!.dir).not.toBe(first.queryTable!.dir)
    // The previous manifest's table stays for readers still following it.
    expect(existsSync(first.queryTable!.dir)).toBe(true)
  }, 60_000)

  it('is kept for changed documents with reuseQueryTable (a dev server\'s rebuilds), and made by the next build without it', async () => {
    const project = await copy('reuse')
    const before = await built(project)
    const calls = vi.mocked(distil.distilQueryTable).mock.calls.length
    writeFileSync(join(project.config.knowledge, 'install.md'), `${readFileSync(join(project.config.knowledge, 'install.md'), 'utf8')}\nA proxy needs its certificate.\n`)
    const reused = await buildKnowledgeProject(project, { offline: true, reuseQueryTable: true }) as ProjectBuild
    expect(reused.snapshotFile).not.toBe(before.snapshotFile)
    expect(reused.queryTable!.dir).toBe(before.queryTable!.dir)
    expect(vi.mocked(distil.distilQueryTable).mock.calls.length).toBe(calls)
    const full = await built(project)
    expect(full.queryTable!.dir).not.toBe(before.queryTable!.dir)
    expect(vi.mocked(distil.distilQueryTable).mock.calls.length).toBe(calls + 1)
  }, 60_000)

  it('is not kept by reuseQueryTable when it is in an earlier format, which the runtime would refuse', async () => {
    const project = await copy('old-format')
    const before = await built(project)
    const core = join(before.queryTable!.dir, 'query-table.json')
    writeFileSync(core, JSON.stringify({ ...JSON.parse(readFileSync(core, 'utf8')), format: 1 }))
    const calls = vi.mocked(distil.distilQueryTable).mock.calls.length
    writeFileSync(join(project.config.knowledge, 'install.md'), `${readFileSync(join(project.config.knowledge, 'install.md'), 'utf8')}\nA proxy needs its certificate.\n`)
    const rebuilt = await buildKnowledgeProject(project, { offline: true, reuseQueryTable: true }) as ProjectBuild
    expect(vi.mocked(distil.distilQueryTable).mock.calls.length).toBe(calls + 1)
    expect(rebuilt.queryTable!.dir).not.toBe(before.queryTable!.dir)
    expect(JSON.parse(readFileSync(join(rebuilt.queryTable!.dir, 'query-table.json'), 'utf8')).format).toBe(2)
  }, 60_000)

  it('stops distilling at its next step when the build becomes stale, and publishes nothing', async () => {
    const project = await copy('stale')
    let stale = false
    const original = vi.mocked(distil.distilQueryTable).getMockImplementation()!
    vi.mocked(distil.distilQueryTable).mockImplementationOnce((...args) => {
      // A change comes once the distillation has begun.
      stale = true
      return original(...args)
    })
    const calls = vi.mocked(distil.distilQueryTable).mock.calls.length
    const build = await buildKnowledgeProject(project, { offline: true, stale: () => stale })
    expect(build).toMatchObject({ stale: true })
    expect(vi.mocked(distil.distilQueryTable).mock.calls.length).toBe(calls + 1)
    await expect(vi.mocked(distil.distilQueryTable).mock.results.at(-1)!.value).rejects.toThrow(distil.DistilAbandoned)
    expect(readManifest(project.config.output)).toBeUndefined()
  }, 60_000)

  it('is none with a tokenizer that is not BERT\'s WordPiece: auto builds without it, static fails saying what to set', async () => {
    const auto = await copy('other-tokenizer')
    const file = join(auto.dir, 'models', TINY_MODEL_ID, 'tokenizer.json')
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), normalizer: { type: 'Lowercase' } }))
    expect((await built(auto)).queryTable).toBeUndefined()
    writeFileSync(join(auto.dir, 'skill-kit.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(auto.dir, 'skill-kit.json'), 'utf8')), queryEncoder: 'static' }))
    const failed = await buildKnowledgeProject(openKnowledgeProject(auto.dir).project!, { offline: true }).catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(QueryTableUnavailableError)
    expect((failed as Error).message).toBe(`"queryEncoder" "static" needs a table distilled from ${TINY_MODEL_ID}, but its tokenizer is not a BERT WordPiece tokenizer (or its tokenizer.json is missing from ${join(auto.dir, 'models')}): set "queryEncoder" to "model" or "auto".`)
  }, 60_000)

  it('is not made with queryEncoder "model"', async () => {
    const project = await copy('model', 'model')
    const build = await built(project)
    expect(build.queryTable).toBeUndefined()
    expect(readManifest(project.config.output)!.queryTable).toBeUndefined()
    expect(readdirSync(project.config.output).filter(f => f.startsWith('query-table'))).toEqual([])
  }, 60_000)
})
