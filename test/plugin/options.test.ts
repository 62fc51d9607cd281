/**
 * Plugin options of the wrong shape: creating the plugin throws one error that
 * names every problem (the option's path, what it expects, what it got, a
 * did-you-mean for a misspelt key), and a real build rejects with it (caught
 * by a `try` around the build; never an unhandled rejection).
 */
import type { Options } from '../../src/plugin/options'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unplugin } from '../../src/plugin/index'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/plugin-options')

/** The issue's example: a lexical-only base guessed as `knowledge: { model: false }`. */
const ISSUE_EXAMPLE = { knowledge: { model: false } } as unknown as Options
const ISSUE_MESSAGE = `Invalid unplugin-skill-kit options (1 problem):
- knowledge.model: expected a folder (a string) or a knowledge base's options ({ dir, model, … }), got false. "model" is an option of one knowledge base: knowledge: { docs: { dir: './docs', model: false } }.`

/** The message creating the plugin throws with `options`. */
function problems(options: unknown): string {
  try {
    unplugin.vite(options as Options)
  }
  catch (error) {
    return (error as Error).message
  }
  throw new Error('the plugin was created without an error')
}

describe('plugin options of the wrong shape', () => {
  it('names an option of the wrong type with what it expects and what it got', () => {
    expect(problems({ strict: 'yes' })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- strict: expected true or false, got "yes".`)
    expect(problems({ onInvalid: 'warn' })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- onInvalid: expected "error" or "fallback", got "warn".`)
    expect(problems({ include: ['**/SKILL.md', 3] })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- include[1]: expected a glob or a RegExp, got 3.`)
    expect(problems({ skills: { dirs: 'skills' } })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- skills.dirs: expected a list of folders (non-empty strings), got "skills".`)
    expect(problems('skills')).toBe(`Invalid unplugin-skill-kit options (1 problem):
- options: expected an object, got "skills".`)
  })

  it('suggests the option a misspelt key means, at any depth', () => {
    expect(problems({ includ: '**/*.md' })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- includ: unknown option. Did you mean "include"? The options here are include, exclude, strict, onInvalid, root, skills, knowledge, offline, includeModel, agentSkills.`)
    expect(problems({ knowledge: { docs: { dir: 'docs', modle: false } } })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.modle: unknown option. Did you mean "model"? The options here are dir, model, chunk, search, shards, preloadHtml, queryEncoder, includeModel, export, url, description.`)
    expect(problems({ knowledge: { docs: { dir: 'docs', model: { dtyp: 'fp32' } } } })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.model.dtyp: unknown option. Did you mean "dtype"? The options here are id, revision, dtype, cacheDir, maxTokens, queryPrefix, documentPrefix, provider, baseUrl, dimensions, apiKeyEnv, batchSize, maxBatchTokens, concurrency, timeoutMs, retryBudgetMs.`)
    // Renaming to an option already given would repeat it: the hint says so instead.
    expect(problems({ strict: true, strikt: false })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- strikt: unknown option. It looks like "strict", which is set already: keep one of them. The options here are include, exclude, strict, onInvalid, root, skills, knowledge, offline, includeModel, agentSkills.`)
  })

  it('names a knowledge entry that is neither a folder nor an object, and one without dir', () => {
    expect(problems({ knowledge: { docs: 42, 'my docs': null } })).toBe(`Invalid unplugin-skill-kit options (2 problems):
- knowledge.docs: expected a folder (a string) or a knowledge base's options ({ dir, model, … }), got 42.
- knowledge["my docs"]: expected a folder (a string) or a knowledge base's options ({ dir, model, … }), got null.`)
    expect(problems({ knowledge: { docs: { model: false } } })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.dir: expected the knowledge base's folder (a string), got nothing. Write knowledge.docs: { dir: './docs', … }.`)
  })

  it('takes "auto", "static" or "model" for a knowledge base\'s queryEncoder, and names a near miss', () => {
    expect(problems({ knowledge: { docs: { dir: 'docs', queryEncoder: 'table' } } })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.queryEncoder: expected "auto", "static" or "model", got "table".`)
    expect(problems({ knowledge: { docs: { dir: 'docs', queryEncoder: true } } })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.queryEncoder: expected "auto", "static" or "model", got true.`)
    expect(problems({ knowledge: { docs: { dir: 'docs', queryEncodr: 'static' } } })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.queryEncodr: unknown option. Did you mean "queryEncoder"? The options here are dir, model, chunk, search, shards, preloadHtml, queryEncoder, includeModel, export, url, description.`)
    for (const queryEncoder of ['auto', 'static', 'model'])
      expect(() => unplugin.vite({ knowledge: { docs: { dir: 'docs', queryEncoder } } } as Options)).not.toThrow()
  })

  it('takes a preset, a pattern or a function for a knowledge base\'s url', () => {
    expect(problems({ knowledge: { docs: { dir: 'docs', url: 'vuepress' } } })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- knowledge.docs.url: expected 'vitepress', 'vitepress-html', 'astro', a pattern with {path} or {id} ('/docs/{path}'), or a function of the document returning its page's URL, got "vuepress".`)
    for (const url of ['vitepress', 'vitepress-html', 'astro', '/docs/{path}.html', (d: { id: string }) => `/${d.id}`])
      expect(() => unplugin.vite({ knowledge: { docs: { dir: 'docs', url } } } as Options)).not.toThrow()
  })

  it('says where the issue\'s example belongs', () => {
    expect(problems(ISSUE_EXAMPLE)).toBe(ISSUE_MESSAGE)
  })

  it('lists every problem at once', () => {
    expect(problems({ strict: 1, skills: { dir: ['skills'] }, knowledge: { docs: { dir: '', export: { mode: 'semantics' } } } })).toBe(`Invalid unplugin-skill-kit options (4 problems):
- strict: expected true or false, got 1.
- skills.dir: unknown option. Did you mean "dirs"? The options here are dirs.
- knowledge.docs.dir: expected the knowledge base's folder (a non-empty string), got "".
- knowledge.docs.export.mode: expected "semantic" or "routed", got "semantics".`)
  })

  it('accepts every option of the right shape', () => {
    expect(() => unplugin.vite({
      include: ['**/SKILL.md', /\.skill\.md$/],
      exclude: '**/drafts/**',
      strict: true,
      onInvalid: 'fallback',
      root: '.',
      skills: { dirs: ['skills'] },
      knowledge: { notes: './notes', docs: { dir: 'docs', model: false, chunk: { maxTokens: 128 }, search: { topK: 3 }, shards: { lexicalBytes: 1024 }, export: { mode: 'routed', outDir: 'skills/docs' } } },
      offline: true,
      includeModel: false,
      agentSkills: { llmsTxt: true, title: 'Docs', summary: '' },
    })).not.toThrow()
    expect(() => unplugin.vite({ agentSkills: true })).not.toThrow()
  })

  it('names an agentSkills option of the wrong shape', () => {
    expect(problems({ agentSkills: 'yes' })).toBe(`Invalid unplugin-skill-kit options (1 problem):
- agentSkills: expected true, false or { llmsTxt, title, summary }, got "yes".`)
    expect(problems({ agentSkills: { llmstxt: false, title: '' } })).toBe(`Invalid unplugin-skill-kit options (2 problems):
- agentSkills.llmstxt: unknown option. Did you mean "llmsTxt"? The options here are llmsTxt, title, summary.
- agentSkills.title: expected a title (a non-empty string), got "".`)
  })
})

describe('a build with the issue\'s example', () => {
  beforeAll(() => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(work, { recursive: true })
    // A lexical-only base as the issue's user meant it: before the check, loading it rejected outside the build ("The paths[1] argument must be of type string").
    mkdirSync(join(work, 'docs'))
    writeFileSync(join(work, 'docs/intro.md'), '# Intro\n\nHello.\n')
    writeFileSync(join(work, 'main.js'), 'import docs from \'./docs?knowledge\'\nexport const answer = docs\n')
    // As a user writes it: the plugin created in the config file that `vite build` loads.
    writeFileSync(join(work, 'vite.config.mjs'), `import skillKit from ${JSON.stringify(pathToFileURL(join(repo, 'dist/vite.mjs')).href)}\nexport default { logLevel: 'silent', plugins: [skillKit({ knowledge: { model: false } })], build: { lib: { entry: 'main.js', formats: ['es'] } } }\n`)
  })
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it('rejects `vite build` with the message', async () => {
    const { build } = await import('vite')
    let message = ''
    try {
      await build({ root: work, configFile: join(work, 'vite.config.mjs') })
    }
    catch (error) {
      message = (error as Error).message
    }
    expect(message).toBe(ISSUE_MESSAGE)
  })

  it('fails the webpack build with the message', async () => {
    const webpack = (await import('webpack')).default
    const skillKit = (await import(pathToFileURL(join(repo, 'dist/webpack.mjs')).href)).default
    const error = await new Promise<Error | null>((done) => {
      webpack({ mode: 'production', context: work, entry: './main.js', output: { path: join(work, 'out-webpack') }, plugins: [skillKit(ISSUE_EXAMPLE)] }, error => done(error))
    })
    expect(error?.message).toBe(ISSUE_MESSAGE)
  })
})
