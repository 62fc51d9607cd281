import type { Options } from '../../../src/plugin/options'
import type { Bundler } from '../../support/build'
import { cpSync, existsSync, mkdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import { build } from '../../support/build'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-errors')
const models = join(work, 'models')

/** Writes `main.js` importing `specifier` into a fresh app folder; builds it and resolves with the error text (and the code frame Rollup shows under it). */
async function buildError(bundler: Bundler, name: string, specifier: string, options: Options): Promise<string> {
  const app = join(work, name)
  writeFileSync(join(app, 'main.js'), `export { default } from ${JSON.stringify(specifier)}\n`)
  try {
    await build(bundler, join(app, 'main.js'), { root: app, offline: true, ...options }, `knowledge-error-${name}`)
  }
  catch (error) {
    const { message, frame } = error as Error & { frame?: string }
    return frame === undefined ? message : `${message}\n\n${frame}`
  }
  throw new Error(`importing ${specifier} built without an error`)
}

const tiny = { id: TINY_MODEL_ID, cacheDir: models }

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  await buildTinyModel(models)
  // Four problems in three files, all to be reported at once.
  mkdirSync(join(work, 'invalid/docs/sub'), { recursive: true })
  writeFileSync(join(work, 'invalid/docs/a.md'), '---\nid: same\ntags: [one, 2]\ncategory: [x]\n---\n\n# A\n\nText.\n')
  writeFileSync(join(work, 'invalid/docs/b.md'), '---\nid: same\n---\n\n# B\n\nText.\n')
  writeFileSync(join(work, 'invalid/docs/sub/c.md'), '---\nid: same\n---\n\n# C\n\nText.\n')
  writeFileSync(join(work, 'invalid/docs/empty.md'), '---\ndescription: nothing here\n---\n\n')
  mkdirSync(join(work, 'config/docs/knowledge'), { recursive: true })
  writeFileSync(join(work, 'config/docs/knowledge/a.md'), '# A\n\nText.\n')
  writeFileSync(join(work, 'config/docs/skill-kit.json'), '{\n  "knowledge": "knowledge",\n  "chunk": {\n    "maxTokens": "many"\n  }\n}\n')
  mkdirSync(join(work, 'config-one-line/docs/knowledge'), { recursive: true })
  writeFileSync(join(work, 'config-one-line/docs/knowledge/a.md'), '# A\n\nText.\n')
  writeFileSync(join(work, 'config-one-line/docs/skill-kit.json'), '{ "knowledge": "knowledge", "chunk": { "maxTokens": "many" } }\n')
  // A document of 50 MiB (sparse: written at once), over the default limit of 4 MiB.
  mkdirSync(join(work, 'too-large/docs'), { recursive: true })
  writeFileSync(join(work, 'too-large/docs/a.md'), '# A\n\nText.\n')
  writeFileSync(join(work, 'too-large/docs/big.md'), '# Big\n\nText.\n')
  truncateSync(join(work, 'too-large/docs/big.md'), 50 * 1024 * 1024)
  mkdirSync(join(work, 'names'), { recursive: true })
  mkdirSync(join(work, 'offline/docs'), { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(work, 'offline/docs'), { recursive: true })
}, 60_000)

describe.each(['rollup', 'esbuild', 'webpack'] as const)('knowledge build errors with %s', (bundler) => {
  it('reports every invalid document at once, with file, line and fix', async () => {
    const message = await buildError(bundler, 'invalid', 'virtual:skill-kit/knowledge/docs', { knowledge: { docs: { dir: 'docs', model: tiny } } })
    expect(message).toContain('Knowledge base "docs" (docs) has 3 invalid documents. Fix them:')
    expect(message).toContain('docs/a.md:3:7 error document-field-invalid: "tags" must be a list of non-empty strings')
    expect(message).toContain('docs/a.md:4:11 error document-field-invalid: "category" must be a non-empty string.')
    expect(message).toContain('docs/empty.md:3:1 error document-empty: The document has no content. Write its guidance, or delete the file.')
    expect(message).toContain('docs/sub/c.md:1:1 error document-id-duplicate: The ID "same" is already used by b.md.')
    expect(message).toContain('> 3 | tags: [one, 2]')
    expect(message).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/)
  })

  it('reports a document over the size limit with its size, the limit and the fix', async () => {
    const message = await buildError(bundler, 'too-large', 'virtual:skill-kit/knowledge/docs', { knowledge: { docs: { dir: 'docs', model: false } } })
    expect(message).toContain('docs/big.md:1:1 error document-too-large: The document has 52,428,800 bytes (50 MiB); at most 4,194,304 bytes (4 MiB) are read. Split it into several documents, or raise "maxDocumentBytes" in skill-kit.json.')
    expect(message).toContain('> 1 | # Big')
  })

  it('reports a bad setting of skill-kit.json with its line', async () => {
    const message = await buildError(bundler, 'config', './docs?knowledge', {})
    expect(message).toContain('Knowledge folder docs cannot be built. Fix its settings:')
    expect(message).toContain('docs/skill-kit.json:4:18 error config-invalid: "chunk.maxTokens" must be an integer of at least 16.')
  })

  it('points into a one-line skill-kit.json as it is written', async () => {
    const message = await buildError(bundler, 'config-one-line', './docs?knowledge', {})
    expect(message).toContain('docs/skill-kit.json:1:53 error config-invalid: "chunk.maxTokens" must be an integer of at least 16.')
  })

  it('names the knowledge bases there are for an unknown one', async () => {
    const message = await buildError(bundler, 'names', 'virtual:skill-kit/knowledge/guide', { knowledge: { guides: 'guides', notes: 'notes' } })
    expect(message).toContain('No knowledge base is named "guide". Did you mean "guides"? Name it in the plugin options: knowledge: { "guide": \'./folder\' } (configured: guides, notes).')
  })

  it('fails at once, naming the folder, when the model is not there offline', async () => {
    const message = await buildError(bundler, 'offline', './docs?knowledge', {})
    // The command works from the working directory (the repository here), with the plugin's root.
    expect(message).toContain(`Knowledge folder docs: The embedding model Xenova/all-MiniLM-L6-v2 is not available offline: ${join(work, 'offline/.skill-kit/models/Xenova/all-MiniLM-L6-v2')} lacks config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx. `
      + 'Run "skill-kit model --project test/.tmp/knowledge-errors/offline/docs --root test/.tmp/knowledge-errors/offline" to put it there (it downloads the model; see "skill-kit model --help" for ways without network).')
  })
})

describe('esbuild without an output path', () => {
  /** Builds `main.js` of a fresh app with esbuild, writing nothing (no outdir, no outfile). */
  async function buildInMemory(name: string, code: string): Promise<import('esbuild').BuildResult> {
    const app = join(work, name)
    mkdirSync(join(app, 'skills/notes'), { recursive: true })
    writeFileSync(join(app, 'skills/notes/SKILL.md'), '---\nname: notes\ndescription: Take notes.\n---\n\n# Notes\n\nWrite them down.\n')
    writeFileSync(join(app, 'main.js'), code)
    const esbuild = await import('esbuild')
    const skillKit = (await import('../../../src/esbuild')).default
    return esbuild.build({ entryPoints: [join(app, 'main.js')], bundle: true, format: 'esm', write: false, logLevel: 'silent', plugins: [skillKit({ root: app, offline: true })] })
  }

  it('builds skills (its file loader for snapshots is only set up with an output path)', async () => {
    const result = await buildInMemory('no-outdir-skills', 'export { default } from \'./skills/notes/SKILL.md?cover\'\n')
    expect(result.errors).toEqual([])
    expect(result.outputFiles![0]!.text).toContain('Write them down.')
  })

  it('says a knowledge import needs outdir, before building anything', async () => {
    mkdirSync(join(work, 'no-outdir-knowledge/docs'), { recursive: true })
    writeFileSync(join(work, 'no-outdir-knowledge/docs/a.md'), '# A\n\nText.\n')
    const error = await buildInMemory('no-outdir-knowledge', 'export { default } from \'./docs?knowledge\'\n').catch((e: unknown) => e as { errors: { text: string }[] })
    expect((error as { errors: { text: string }[] }).errors.map(e => e.text)).toEqual([
      'docs?knowledge: esbuild copies a knowledge base\'s snapshot beside the bundle, so the build needs an output path: set outdir (or outfile).',
    ])
    expect(existsSync(join(work, 'no-outdir-knowledge/.skill-kit'))).toBe(false)
  })
})
