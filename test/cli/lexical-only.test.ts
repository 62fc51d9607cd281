// The knowledge commands on a project with "model": false, run in a Node process
// where Transformers.js and ONNX Runtime cannot be resolved (test/support/no-transformers.mjs):
// building, searching and status need neither.

import type { CliRun } from '../support/cli'
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { defaultProjectConfig } from '../../src/knowledge/config'
import { readManifest } from '../../src/knowledge/publish'
import { decodeSnapshot } from '../../src/runtime'
import { bundleCli, runCli } from '../support/cli'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/cli-lexical-only')
const hideTransformers = ['--import', join(import.meta.dirname, '../support/no-transformers.mjs')]
let script: string

/** Runs `skill-kit …args` from the work folder, without Transformers.js. */
const skillKit = (...args: string[]): Promise<CliRun> => runCli(script, work, args, hideTransformers)

function project(name: string, model: unknown): void {
  const dir = join(work, name)
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(dir, 'knowledge'), { recursive: true })
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig(name), model }, null, 2))
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  ;[script] = await Promise.all([bundleCli(work), buildTinyModel(join(work, 'models'))])
  project('home', false)
  project('vectors', { id: TINY_MODEL_ID, cacheDir: '../models' })
  // Two documents whose IDs differ only in case (as on a case-sensitive file system).
  project('twins', false)
  for (const name of ['Setup', 'setup'])
    writeFileSync(join(work, `twins/knowledge/${name}.md`), `---\ndescription: How to set up, ${name}.\n---\n\n# Setup\n\nInstall it.\n`)
}, 60_000)

describe('a project with "model": false', () => {
  it('builds the lexical index with no model and no vector cache', async () => {
    const run = await skillKit('build', '--project', 'home')
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const output = join(work, 'home/.skill-kit/index')
    const manifest = readManifest(output)!
    const summary = JSON.parse(run.stdout)
    expect(summary).toEqual({
      name: 'home',
      documents: 3,
      chunks: manifest.chunkCount,
      // No model: each chunk is one window.
      windows: manifest.chunkCount,
      embedded: 0,
      cached: 0,
      snapshot: relative(work, join(output, manifest.snapshot)),
      bytes: expect.any(Number),
      warnings: 0,
      ms: expect.any(Number),
    })
    expect(manifest.model).toBeNull()
    expect(decodeSnapshot(readFileSync(join(output, manifest.snapshot))).encoding).toBe('none')
    expect(existsSync(join(work, 'home/.skill-kit/cache'))).toBe(false)
    expect(existsSync(join(work, 'home/.skill-kit/models'))).toBe(false)
  })

  it('searches lexically by default, and finds the answer to a question', async () => {
    const run = await skillKit('search', 'How can I recover deleted files?', '--project', 'home')
    expect(run.stderr).toBe('')
    const results = JSON.parse(run.stdout)
    expect(results[0]).toMatchObject({ id: 'restore-backup', path: 'backups/restore.md' })
    expect(results[0].score).toBeGreaterThanOrEqual(0.25)
    expect(JSON.parse((await skillKit('search', 'borg', '--mode', 'lexical', '--project', 'home')).stdout)[0].id).toBe('restore-backup')
  })

  it('refuses a vector or hybrid search, saying why and what to do', async () => {
    for (const mode of ['vector', 'hybrid']) {
      const run = await skillKit('search', 'backup', '--mode', mode, '--project', 'home')
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr: `skill-kit search: "home" has no model ("model": false in skill-kit.json), so its index has no vectors for a ${mode} search: search with --mode lexical, or replace "model": false with the model's settings ({} for the default) and run "skill-kit build".\n`,
      })
    }
  })

  it('status shows no model, and counts as build does; model says there is nothing to fetch', async () => {
    const build = JSON.parse((await skillKit('build', '--project', 'home')).stdout)
    const status = JSON.parse((await skillKit('status', '--project', 'home')).stdout)
    expect(status).toMatchObject({
      paths: { knowledge: 'knowledge', output: '.skill-kit/index', cache: '.skill-kit/cache', models: null },
      index: { state: 'fresh', model: null, documents: build.documents, chunks: build.chunks, windows: build.windows },
      model: false,
      cache: { bytes: 0 },
    })
    expect(await skillKit('model', '--project', 'home')).toEqual({
      code: 0,
      stdout: '{\n  "model": false\n}\n',
      stderr: '"home" has no model ("model": false in skill-kit.json): it builds and searches lexically, with no model files. For vector search, replace "model": false with the model\'s settings ({} for the default) and run "skill-kit model" again.\n',
    })
  })

  it('retrieve finds an ID typed in another case, and names the documents when several differ only in case', async () => {
    expect(await skillKit('build', '--project', 'twins')).toMatchObject({ code: 0, stderr: '' })
    const found = await skillKit('retrieve', 'RESTORE-Backup', '--project', 'twins')
    expect(found).toMatchObject({ code: 0, stderr: '' })
    expect(found.stdout).toContain('borg list /mnt/backup')
    expect(await skillKit('retrieve', 'SETUP', '--project', 'twins')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'skill-kit retrieve: "SETUP" matches several documents of "twins" that differ only in case: "Setup", "setup". Retrieve one of them by its exact ID.\n',
    })
    expect((await skillKit('retrieve', 'Setup', '--project', 'twins')).code).toBe(0)
  })

  it('is stale once a model is set, and the other way round', async () => {
    const file = join(work, 'home/skill-kit.json')
    const text = readFileSync(file, 'utf8')
    writeFileSync(file, JSON.stringify({ ...JSON.parse(text), model: {} }))
    try {
      expect(JSON.parse((await skillKit('status', '--project', 'home')).stdout).index).toMatchObject({ state: 'stale', reason: 'the model or chunk settings changed' })
    }
    finally {
      writeFileSync(file, text)
    }
  })

  it('(the control) a project with a model does need Transformers.js, which is hidden here', async () => {
    const run = await skillKit('build', '--offline', '--project', 'vectors')
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('skill-kit build: Knowledge bases are embedded with Transformers.js, which is not installed.')
  })
})
