// Knowledge bases with `model: false` in the plugin: built with no model, searched
// lexically, vector search refused with a KnowledgeError that says why. Transformers.js
// is made unavailable in this file, as in an app that never installed it.

import type { Bundler, BuildResult, Settled } from '../../support/build'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { build, settle, unwrap } from '../../support/build'
import { prepareDocsApp } from '../../support/docs-app'

vi.mock('@huggingface/transformers', () => {
  throw new Error('Transformers.js is not installed')
})

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-lexical')
const entry = join(work, 'main.js')
const lexicalOnly = { root: work, offline: true, knowledge: { docs: { dir: 'docs', model: false as const } } }

/** Every file under `dir`, relative. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter(e => e.isFile()).map(e => join(e.parentPath, e.name).slice(dir.length + 1))
}

const noVectors = (mode: string) => `"docs" was built without a model ("model": false), so it has no vectors for a ${mode} search: search with mode 'lexical' or 'auto', or replace "model": false with the model's settings and build again.`

beforeAll(async () => {
  // The fixture's skill-kit.json names the tiny test model (in ../models): the option replaces it with no model.
  await prepareDocsApp(work, entry)
}, 60_000)

describe.each(['vite', 'esbuild', 'webpack'] as Bundler[])('a knowledge base with model: false, with %s', (bundler) => {
  let result: Settled<BuildResult>
  beforeAll(async () => {
    result = await settle(build(bundler, entry, lexicalOnly, 'knowledge-lexical'))
  }, 120_000)

  it('builds without a warning, and without the model in any output file', () => {
    const { warnings, outDir } = unwrap(result)
    expect(warnings).toEqual([])
    const files = filesOf(outDir)
    expect(files.some(f => f.endsWith('.skillkit'))).toBe(true)
    expect(files.filter(f => /\.(?:onnx|wasm)$|tokenizer/.test(f))).toEqual([])
    // Neither the model's name nor its folder (the runtime's own comments may mention model folders).
    for (const file of files.filter(f => /\.m?js$/.test(f))) {
      const code = readFileSync(join(outDir, file), 'utf8')
      expect(code, file).not.toMatch(/tiny-bert/)
      expect(code, file).not.toContain(join(work, 'models').replace(/\\/g, '/'))
    }
  })

  it('searches lexically in auto mode, and answers a question', async () => {
    const { docs } = unwrap(result).module
    const found = await docs.search('How do I use the tool behind a corporate proxy?')
    expect(found[0]).toMatchObject({ id: 'setup/proxy', heading: [] })
    expect(found).toEqual(await docs.search('How do I use the tool behind a corporate proxy?', { mode: 'lexical' }))
    expect(await docs.retrieve('setup/proxy')).toContain('HTTPS_PROXY')
  })

  it('refuses vector and hybrid searches with a KnowledgeError that says why, even given an embedder', async () => {
    const { docs } = unwrap(result).module
    for (const mode of ['vector', 'hybrid']) {
      for (const options of [{ mode }, { mode, embedQuery: async () => [1, 0] }]) {
        const error = await docs.search('proxy', options).catch((e: unknown) => e)
        expect(error).toMatchObject({ name: 'KnowledgeError', code: 'no-vectors', message: noVectors(mode) })
      }
    }
    // An embedder passed to auto changes nothing: there are no vectors to compare with.
    expect(await docs.search('proxy', { embedQuery: async () => [1, 0] })).toEqual(await docs.search('proxy', { mode: 'lexical' }))
  })
})

describe('includeModel on a knowledge base with model: false', () => {
  it('the plugin-wide option skips it: nothing is emitted, nothing warned', async () => {
    const { warnings, outDir, module } = await build('vite', entry, { ...lexicalOnly, includeModel: true }, 'knowledge-lexical-include')
    expect(warnings).toEqual([])
    expect(filesOf(outDir).filter(f => /\.(?:onnx|wasm)$|tokenizer/.test(f))).toEqual([])
    expect((await module.docs.search('proxy'))[0].id).toBe('setup/proxy')
  }, 120_000)

  it('its own includeModel is a contradiction: the build fails, saying what to remove', async () => {
    const failed = await settle(build('esbuild', entry, { ...lexicalOnly, knowledge: { docs: { dir: 'docs', model: false, includeModel: true } } }, 'knowledge-lexical-include-own'))
    expect(failed.ok).toBe(false)
    expect(String((failed as { error: Error }).error.message)).toContain('Knowledge base "docs" (docs) has no model ("model": false), so includeModel has nothing to emit: remove includeModel from its options, or replace "model": false with the model\'s settings.')
  }, 120_000)

  it('(the control) a knowledge base with a model does import Transformers.js, which is unavailable here', async () => {
    const failed = await settle(build('esbuild', entry, { root: work, offline: true, knowledge: { docs: 'docs' } }, 'knowledge-lexical-control'))
    expect(failed.ok).toBe(false)
    expect(String((failed as { error: Error }).error.message)).toContain('Knowledge base "docs" (docs): embedding failed: Transformers.js (@huggingface/transformers) is installed but cannot be loaded: [vitest] There was an error when mocking a module.')
  }, 120_000)
})

describe('a folder import of a named knowledge base', () => {
  it('builds with that name\'s settings: ./docs?knowledge is lexical when docs has model: false', async () => {
    const folderEntry = join(work, 'folder-main.js')
    writeFileSync(folderEntry, 'import docs from \'./docs?knowledge\'\n\nexport { docs }\n')
    const { warnings, module } = await build('rollup', folderEntry, lexicalOnly, 'knowledge-lexical-folder')
    expect(warnings).toEqual([])
    expect((await module.docs.search('How do I use the tool behind a corporate proxy?'))[0].id).toBe('setup/proxy')
    await expect(module.docs.search('proxy', { mode: 'vector' })).rejects.toMatchObject({ code: 'no-vectors', message: noVectors('vector') })
  }, 120_000)
})
