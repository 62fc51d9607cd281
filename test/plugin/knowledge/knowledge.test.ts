import type { Bundler, BuildResult, Settled } from '../../support/build'
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder } from '../../../src/knowledge/embedder'
import { openKnowledgeProject } from '../../../src/knowledge/project'
import { readPublishedIndex } from '../../../src/knowledge/publish'
import { decodeSnapshot, KnowledgeError, searchFused, searchVectors } from '../../../src/runtime'
import { build, BUNDLERS, settle, unwrap } from '../../support/build'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-app')
const models = join(work, 'models')
const options = {
  root: work,
  offline: true,
  knowledge: { guides: { dir: 'guides', model: { id: TINY_MODEL_ID, cacheDir: models }, chunk: { maxTokens: 48, overlapTokens: 8 } } },
}

/** Every file under `dir`, relative. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter(e => e.isFile()).map(e => join(e.parentPath, e.name).slice(dir.length + 1))
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  cpSync(join(repo, 'test/fixtures/knowledge-app'), work, { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(work, 'guides'), { recursive: true })
  await buildTinyModel(models)
}, 60_000)

describe.each(BUNDLERS)('knowledge imports with %s', (bundler: Bundler) => {
  let result: Settled<BuildResult>
  beforeAll(async () => {
    result = await settle(build(bundler, join(work, 'main.js'), options, 'knowledge'))
    // Built without includeModel, a bundle carries no model path: the app names the folder at run time.
    if (result.ok) {
      result.value.module.docs.useModel({ path: models })
      result.value.module.guides.useModel({ path: pathToFileURL(models) })
    }
  }, 120_000)

  it('gives document metadata, sorted by ID, without bodies', () => {
    const { module } = unwrap(result)
    expect(module.documents.map((d: { id: string }) => d.id)).toEqual(['install', 'setup/proxy', 'troubleshooting'])
    expect(module.docs.documents).toBe(module.documents)
    const install = module.documents[0]
    expect(install).toMatchObject({ id: 'install', description: 'Install the command-line tool with npm.', tags: ['setup', 'npm'], path: 'install.md' })
    expect(install.tokenCount).toBeGreaterThan(10)
    expect(install).not.toHaveProperty('body')
    expect(module.documents[1]).toMatchObject({ category: 'setup', categories: ['setup'] })
    expect(module.guides.name).toBe('guides')
    expect(module.guides.documents.map((d: { id: string }) => d.id)).toEqual(['backups/schedule', 'network/wifi', 'restore-backup'])
  })

  it('builds without a warning', () => {
    expect(unwrap(result).warnings).toEqual([])
  })

  it('keeps bodies and vectors out of the entry chunk', () => {
    const { code } = unwrap(result)
    expect(code).not.toContain('HTTPS_PROXY')
    expect(code).not.toContain('borg list')
    expect(code).not.toMatch(/\\x89SKV|SKV\r\n/)
  })

  it('retrieves whole bodies lazily, and suggests an ID for a typo', async () => {
    const { module } = unwrap(result)
    expect(await module.retrieve('setup/proxy')).toBe('\n# Proxy settings\n\nSet `HTTPS_PROXY` before running any command. Certificates from the proxy go into `NODE_EXTRA_CA_CERTS`.\n')
    expect(await module.guides.retrieve('restore-backup')).toContain('borg list /mnt/backup')
    const error = await module.retrieve('instal').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as KnowledgeError).code).toBe('unknown-document')
    expect((error as Error).message).toBe('"instal" is not a document of "docs". Did you mean "install"?')
  })

  it('searches by vector and by default (fused) in Node with the model useModel names, exactly as the snapshot ranks', async () => {
    const { module } = unwrap(result)
    const published = readPublishedIndex(join(work, 'docs/.skill-kit/index'))!
    const snapshot = decodeSnapshot(published.snapshot)
    const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
    try {
      for (const query of ['proxy certificates', 'permission denied with sudo', 'upgrade to the latest version']) {
        const vector = (await embedder.embed([query], 'query'))[0]!
        for (const [found, expected] of [
          [await module.search(query), searchFused(snapshot, query, vector, { topK: 3, threshold: -1 })],
          [await module.search(query, { mode: 'vector' }), searchVectors(snapshot, vector, { topK: 3, threshold: -1 })],
        ] as const) {
          expect(found.map((r: { id: string }) => r.id)).toEqual(expected.map(r => r.id))
          found.forEach((r: { score: number }, i: number) => expect(r.score).toBeCloseTo(expected[i]!.score, 5))
        }
      }
    }
    finally {
      await embedder.dispose()
    }
  })

  it('searches lexically and in hybrid', async () => {
    const { module } = unwrap(result)
    const lexical = await module.search('HTTPS_PROXY certificates', { mode: 'lexical' })
    expect(lexical[0]).toMatchObject({ id: 'setup/proxy', heading: ['Proxy settings'] })
    expect(lexical[0]).not.toHaveProperty('documentIndex')
    const hybrid = await module.search('sudo permission', { mode: 'hybrid', topK: 2 })
    expect(hybrid).toHaveLength(2)
    expect(hybrid[0].id).toBe('troubleshooting')
    expect(await module.search('   ')).toEqual([])
  })

  it('ships the snapshot the CLI publishes, byte for byte', () => {
    const { outDir } = unwrap(result)
    const published = readPublishedIndex(join(work, 'docs/.skill-kit/index'))!
    const expected = Buffer.from(published.snapshot)
    const shipped = filesOf(outDir).filter(f => f.endsWith('.skillkit')).map(f => readFileSync(join(outDir, f)))
    expect(shipped.some(bytes => bytes.equals(expected))).toBe(true)
    // The bare folder publishes under the root's .skill-kit, like the project does under its own.
    expect(existsSync(join(openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config.output, 'manifest.json'))).toBe(true)
  })
})
