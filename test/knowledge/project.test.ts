// Knowledge projects: settings (skill-kit.json, bare folders, overrides), building,
// publishing (manifest last, content-addressed files, old files removed) and staleness.

import type { Embedder } from '../../src/knowledge/embedder'
import type { KnowledgeProject, ProjectBuild } from '../../src/knowledge/project'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder, ModelDownloadError } from '../../src/knowledge/embedder'
import { buildKnowledgeProject, indexState, openKnowledgeProject, projectCommand } from '../../src/knowledge/project'
import { MANIFEST_FILE, readManifest, readPublishedIndex } from '../../src/knowledge/publish'
import { decodeSnapshot, searchVectors } from '../../src/runtime'

const home = join(import.meta.dirname, '../fixtures/knowledge/home')
const work = mkdtempSync(join(tmpdir(), 'skill-kit-project-'))
const models = join(work, 'models')

function project(dir: string, options: Parameters<typeof openKnowledgeProject>[1] = {}): KnowledgeProject {
  const opened = openKnowledgeProject(dir, options)
  if (!opened.project)
    throw new Error(opened.diagnostics.map(d => `${d.line}:${d.column} ${d.code} ${d.message}`).join('\n'))
  return opened.project
}

describe('openKnowledgeProject', () => {
  it('gives a bare folder every default, with index, cache and models under <root>/.skill-kit', () => {
    const { config, configFile } = project(home, { root: work })
    expect(configFile).toBeUndefined()
    expect(config.name).toBe('home')
    expect(config.knowledge).toBe(home)
    expect(config.cache).toBe(join(work, '.skill-kit/cache'))
    expect(config.model && config.model.cacheDir).toBe(join(work, '.skill-kit/models'))
    expect(config.output.slice(join(work, '.skill-kit/index/').length)).toMatch(/^home-[\w-]{8}$/)
    expect(config.model).toMatchObject({ id: 'Xenova/all-MiniLM-L6-v2', dtype: 'q8', maxTokens: 256 })
    expect(config.chunk).toEqual({ maxTokens: 256, overlapTokens: 32 })
    expect(config.search).toEqual({ topK: 5, threshold: 0.3 })
  })

  it('replaces settings key by key, checked by the rules of skill-kit.json', () => {
    const dir = join(work, 'overrides')
    mkdirSync(join(dir, 'knowledge'), { recursive: true })
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ model: { dtype: 'fp32', queryPrefix: 'q: ' }, search: { topK: 7 } }))
    const { config } = project(dir, { overrides: { model: { id: TINY_MODEL_ID }, search: { threshold: 0.5 } } })
    expect(config.model).toMatchObject({ id: TINY_MODEL_ID, dtype: 'fp32', queryPrefix: 'q: ' })
    expect(config.search).toEqual({ topK: 7, threshold: 0.5 })
    // A byte order mark does not lose the overrides.
    writeFileSync(join(dir, 'skill-kit.json'), `\uFEFF${JSON.stringify({ search: { topK: 7 } })}`)
    expect(project(dir, { overrides: { search: { threshold: 0.5 } } }).config.search).toEqual({ topK: 7, threshold: 0.5 })
    const bad = openKnowledgeProject(dir, { overrides: { chunk: { maxTokens: 4 } } })
    expect(bad.project).toBeUndefined()
    expect(bad.diagnostics.map(d => `${d.code}: ${d.message}`)).toEqual(['config-invalid: "chunk.maxTokens" must be an integer of at least 16.'])
  })

  it('refuses a skill-kit.json over 256 KiB before reading it, in the file\'s own terms', () => {
    const dir = join(work, 'large-config')
    mkdirSync(join(dir, 'knowledge'), { recursive: true })
    writeFileSync(join(dir, 'skill-kit.json'), '')
    truncateSync(join(dir, 'skill-kit.json'), 300_000)
    const opened = openKnowledgeProject(dir)
    expect(opened.project).toBeUndefined()
    expect(opened.diagnostics.map(d => [d.code, d.file, d.line, d.column, d.message])).toEqual([['config-too-large', join(dir, 'skill-kit.json'), 1, 1, 'skill-kit.json has 300,000 bytes; at most 262,144 (256 KiB) are read. It holds settings only: remove what is not a setting, and keep documents in the knowledge folder.']])
  })

  it('says when the folder or the knowledge folder is missing', () => {
    const missing = openKnowledgeProject(join(work, 'nowhere'))
    expect(missing.diagnostics.map(d => d.code)).toEqual(['knowledge-missing'])
    expect(missing.diagnostics[0]!.message).toContain('is not a folder. Point it at a folder of Markdown documents')
    const dir = join(work, 'no-knowledge')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'skill-kit.json'), '{ "knowledge": "docs" }')
    expect(openKnowledgeProject(dir).diagnostics.map(d => d.message)).toEqual(['The knowledge folder docs does not exist. Create it and put Markdown documents in it.'])
  })

  it('points a missing knowledge folder at the "knowledge" key\'s value as the file is written, else at the object', () => {
    const dir = join(work, 'knowledge-key')
    mkdirSync(dir, { recursive: true })
    const at = (text: string) => {
      writeFileSync(join(dir, 'skill-kit.json'), text)
      return openKnowledgeProject(dir, { overrides: { search: { topK: 3 } } }).diagnostics.map(d => [d.code, d.file, d.line, d.column])
    }
    const file = join(dir, 'skill-kit.json')
    expect(at('{ "knowledge": "docs" }')).toEqual([['knowledge-missing', file, 1, 16]])
    expect(at('\uFEFF{\n  "name": "x",\n\n    "knowledge":\n      "docs"\n}\n')).toEqual([['knowledge-missing', file, 5, 7]])
    expect(at('{ "name": "x" }')).toEqual([['knowledge-missing', file, 1, 1]])
  })
})

describe('project folders through symbolic links', () => {
  it('are refused before anything is read or written where they point', () => {
    const dir = join(work, 'linked')
    const elsewhere = join(work, 'elsewhere')
    mkdirSync(join(dir, 'knowledge'), { recursive: true })
    mkdirSync(join(elsewhere, 'index'), { recursive: true })
    writeFileSync(join(dir, 'knowledge', 'a.md'), '# A\n\nText.\n')
    symlinkSync(elsewhere, join(dir, '.skill-kit'))
    writeFileSync(join(dir, 'skill-kit.json'), '{\n  "name": "linked",\n  "cache": "cache"\n}\n')
    symlinkSync(elsewhere, join(dir, 'cache'))
    const file = join(dir, 'skill-kit.json')
    const opened = openKnowledgeProject(dir)
    expect(opened.project).toBeUndefined()
    expect(opened.diagnostics.map(d => [d.code, d.file, d.line, d.column, d.message])).toEqual([
      ['config-path-symlink', file, 1, 1, '"output" goes through the symbolic link .skill-kit, so the build would read or write where it points. Replace the link with a real folder.'],
      ['config-path-symlink', file, 3, 12, '"cache" goes through the symbolic link cache, so the build would read or write where it points. Replace the link with a real folder.'],
    ])
    expect(readdirSync(join(elsewhere, 'index'))).toEqual([])
  })
})

describe('projectCommand', () => {
  it('names the project from the working directory, with --root for a bare folder elsewhere', () => {
    const cwd = process.cwd()
    const bare = join(cwd, 'test/fixtures/knowledge/home')
    expect(projectCommand(project(bare, { root: cwd }), 'model')).toBe('skill-kit model --project test/fixtures/knowledge/home')
    expect(projectCommand(project(bare, { root: join(cwd, 'test') }), 'model')).toBe('skill-kit model --project test/fixtures/knowledge/home --root test')
    const spaced = join(work, 'my docs')
    mkdirSync(spaced, { recursive: true })
    expect(projectCommand(project(spaced, { root: work }), 'build')).toBe(`skill-kit build --project '${relative(cwd, spaced)}' --root ${relative(cwd, work)}`)
  })

  it('is what a failed download of a project\'s model tells to run', async () => {
    const port = await new Promise<number>((done) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number }
        server.close(() => done(port))
      })
    })
    const bare = project(home, { root: work })
    const error = await buildKnowledgeProject(bare, { remoteHost: `http://127.0.0.1:${port}/` }).catch(e => e)
    expect(error).toBeInstanceOf(ModelDownloadError)
    expect(error.message).toContain(`: fetch failed (connect ECONNREFUSED 127.0.0.1:${port}). Other ways to get it:\n`)
    expect(error.message).toContain(`\n  - from a mirror of the Hugging Face hub: ${projectCommand(bare, 'model')} --host <mirror URL>\n`)
  })
})

describe('buildKnowledgeProject and the published index', () => {
  const dir = join(work, 'published')
  let embedder: Embedder
  let kp: KnowledgeProject
  beforeAll(async () => {
    await buildTinyModel(models)
    embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
    cpSync(home, join(dir, 'knowledge'), { recursive: true })
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ chunk: { maxTokens: 48, overlapTokens: 8 } }))
    kp = project(dir)
  })
  afterAll(async () => {
    await embedder.dispose()
    rmSync(work, { recursive: true, force: true })
  })
  const build = async () => {
    const built = await buildKnowledgeProject(kp, { embedder })
    if (!('snapshotFile' in built))
      throw new Error(built.diagnostics.map(d => d.message).join('\n'))
    return built as ProjectBuild
  }

  it('publishes the snapshot and bodies, then a manifest naming them', async () => {
    expect(indexState(kp)).toEqual({ state: 'missing' })
    const built = await build()
    const manifest = readManifest(kp.config.output)!
    expect(manifest).toMatchObject({ format: 1, name: 'published', snapshotFormat: 2, documentCount: 3, chunkCount: built.chunks.length, windowCount: built.stats.windows, model: embedder.fingerprint })
    expect(manifest.snapshot).toMatch(/^snapshot-[\w-]{16}\.skillkit$/)
    expect(join(kp.config.output, manifest.snapshot)).toBe(built.snapshotFile)
    const published = readPublishedIndex(kp.config.output)!
    expect(Buffer.from(published.snapshot).equals(Buffer.from(built.snapshot))).toBe(true)
    expect(published.documents.find(d => d.id === 'restore-backup')!.body).toContain('borg list /mnt/backup')
    expect(indexState(kp).state).toBe('fresh')
  })

  it('tells a stale index: documents or settings changed', async () => {
    await build()
    writeFileSync(join(dir, 'knowledge/new.md'), '# New\n\nA new guide.\n')
    expect(indexState(kp)).toMatchObject({ state: 'stale', reason: 'documents changed' })
    rmSync(join(dir, 'knowledge/new.md'))
    expect(indexState(kp).state).toBe('fresh')
    expect(indexState({ ...kp, config: { ...kp.config, chunk: { maxTokens: 64, overlapTokens: 8 } } })).toMatchObject({ state: 'stale', reason: 'the model or chunk settings changed' })
    // An index of snapshot format 1 (its manifest has no snapshotFormat) is rebuilt, not read.
    const manifestFile = join(kp.config.output, 'manifest.json')
    const { snapshotFormat: _, ...older } = JSON.parse(readFileSync(manifestFile, 'utf8'))
    writeFileSync(manifestFile, JSON.stringify(older))
    expect(indexState(kp)).toMatchObject({ state: 'stale', reason: 'it was built by another version of unplugin-skill-kit' })
    await build()
    expect(indexState(kp).state).toBe('fresh')
  })

  it('keeps the previous version for readers and recent files for other builds, and removes the rest', async () => {
    const first = await build()
    writeFileSync(join(dir, 'knowledge/backups/schedule.md'), '# Schedule\n\nEvery night at two.\n')
    const second = await build()
    writeFileSync(join(dir, 'knowledge/backups/schedule.md'), '# Schedule\n\nEvery night at three.\n')
    // The first version's files are old now: nothing refers to them after the third build.
    const old = new Date(Date.now() - 120_000)
    for (const file of readdirSync(kp.config.output))
      utimesSync(join(kp.config.output, file), old, old)
    const third = await build()
    const files = readdirSync(kp.config.output)
    expect(files).toContain(MANIFEST_FILE)
    expect(files).toContain(third.snapshotFile.split('/').pop())
    expect(files).toContain(second.snapshotFile.split('/').pop())
    expect(existsSync(first.snapshotFile)).toBe(false)
    expect(readManifest(kp.config.output)!.snapshot).toBe(third.snapshotFile.split('/').pop())
    expect(readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')).toMatch(/\n$/)
  })

  it('publishes an empty index for an empty folder, which finds nothing', async () => {
    const empty = join(work, 'empty')
    mkdirSync(join(empty, 'knowledge'), { recursive: true })
    writeFileSync(join(empty, 'skill-kit.json'), '{}')
    const built = await buildKnowledgeProject(project(empty), { embedder })
    if (!('snapshotFile' in built))
      throw new Error('the empty folder did not build')
    const snapshot = decodeSnapshot(readPublishedIndex(project(empty).config.output)!.snapshot)
    expect([snapshot.documents.length, snapshot.chunkCount]).toEqual([0, 0])
    expect(searchVectors(snapshot, (await embedder.embed(['anything'], 'query'))[0]!)).toEqual([])
    expect(indexState(project(empty)).state).toBe('fresh')
  })

  it('publishes nothing when stale() says the folder changed during the build, and says so', async () => {
    await build()
    const before = readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')
    const files = readdirSync(kp.config.output).sort()
    let edited = false
    let asked = 0
    // The edit lands while windows are embedded, as an editor's save during a long build does.
    const stale = await buildKnowledgeProject(kp, {
      embedder,
      force: true,
      onProgress: (event) => {
        if (event.phase === 'embed' && !edited) {
          writeFileSync(join(dir, 'knowledge/backups/schedule.md'), '# Schedule\n\nEvery night at four.\n')
          edited = true
        }
      },
      stale: () => {
        asked++
        return edited
      },
    })
    expect(edited).toBe(true)
    expect(asked).toBe(1)
    expect(stale).toMatchObject({ stale: true, diagnostics: [] })
    expect('snapshotFile' in stale).toBe(false)
    expect(readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')).toBe(before)
    expect(readdirSync(kp.config.output).sort()).toEqual(files)
    expect(indexState(kp)).toMatchObject({ state: 'stale', reason: 'documents changed' })
    // The next build, not stale, publishes the edit.
    const next = await buildKnowledgeProject(kp, { embedder, stale: () => false })
    expect('stale' in next).toBe(false)
    expect(readPublishedIndex(kp.config.output)!.documents.find(d => d.path === 'backups/schedule.md')!.body).toContain('Every night at four.')
  })

  it('writes no manifest when stale() turns true while the snapshot is written, and says so', async () => {
    await build()
    const before = readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')
    writeFileSync(join(dir, 'knowledge/backups/schedule.md'), '# Schedule\n\nEvery night at five.\n')
    let asked = 0
    // False when the index is built, true when the manifest would be written: a change the watcher noticed meanwhile.
    const stale = await buildKnowledgeProject(kp, { embedder, stale: () => ++asked > 1 })
    expect(asked).toBe(2)
    expect(stale).toMatchObject({ stale: true, diagnostics: [] })
    expect(readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')).toBe(before)
    expect(indexState(kp)).toMatchObject({ state: 'stale', reason: 'documents changed' })
  })

  it('reports invalid documents and leaves the published index alone', async () => {
    const before = readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')
    writeFileSync(join(dir, 'knowledge/broken.md'), '---\nid: [\n---\n\n# Broken\n')
    const failed = await buildKnowledgeProject(kp, { embedder })
    expect('snapshotFile' in failed).toBe(false)
    expect(failed.diagnostics.some(d => d.severity === 'error' && d.file.endsWith('broken.md'))).toBe(true)
    expect(readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')).toBe(before)
    rmSync(join(dir, 'knowledge/broken.md'))
  })
})

describe('the size limit of a document', () => {
  const dir = join(work, 'big')
  const big = join(dir, 'knowledge/big.md')
  const tooLarge = (size: string, limit: string) => `The document has ${size}; at most ${limit} are read. Split it into several documents, or raise "maxDocumentBytes" in skill-kit.json.`

  beforeAll(() => {
    cpSync(home, join(dir, 'knowledge'), { recursive: true })
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'big', model: false }))
  })

  it('fails a build on a document over the limit, naming size, limit and fix, and leaves the published index alone', async () => {
    const kp = project(dir)
    expect(kp.config.maxDocumentBytes).toBe(4 * 1024 * 1024)
    const published = await buildKnowledgeProject(kp)
    expect('snapshotFile' in published).toBe(true)
    const before = readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')
    // 50 MiB, sparse: written at once, and the build must not read it.
    writeFileSync(big, '')
    truncateSync(big, 50 * 1024 * 1024)
    const failed = await buildKnowledgeProject(kp)
    expect(failed).toEqual({
      diagnostics: [{ code: 'document-too-large', severity: 'error', file: big, line: 1, column: 1, message: tooLarge('52,428,800 bytes (50 MiB)', '4,194,304 bytes (4 MiB)') }],
      files: expect.arrayContaining([big]),
    })
    expect(readFileSync(join(kp.config.output, MANIFEST_FILE), 'utf8')).toBe(before)
    expect(indexState(kp)).toMatchObject({ state: 'stale', reason: 'documents changed' })
    rmSync(big)
  })

  it('is set by "maxDocumentBytes" in skill-kit.json', async () => {
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'big', model: false, maxDocumentBytes: 1024 }))
    writeFileSync(big, `# Big\n\n${'A line of text about backups.\n'.repeat(60)}`)
    const failed = await buildKnowledgeProject(project(dir))
    expect(failed.diagnostics.map(d => [d.code, d.file, d.message])).toEqual([['document-too-large', big, tooLarge('1,807 bytes (1.8 KiB)', '1,024 bytes (1 KiB)')]])
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'big', model: false, maxDocumentBytes: 2048 }))
    const built = await buildKnowledgeProject(project(dir))
    expect('snapshotFile' in built && built.diagnostics).toEqual([])
  })
})
