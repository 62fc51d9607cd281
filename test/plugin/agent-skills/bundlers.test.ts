// `agentSkills` in every bundler: the same index, artefacts and llms.txt,
// byte for byte, whichever bundler builds the app; and the skills a build
// cannot publish fail it with a message that names them and the fix.

import type { Bundler } from '../../support/build'
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseTarGzip } from 'nanotar'
import { beforeAll, describe, expect, it } from 'vitest'
import { defaultProjectConfig } from '../../../src/knowledge/config'
import { build, BUNDLERS } from '../../support/build'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/plugin-agent-skills-bundlers')
const app = join(repo, 'test/fixtures/app')

/** The files `agentSkills` writes into `dir`, relative, sorted. */
function published(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile())
    .map(e => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter(file => file.startsWith('.well-known/') || file === 'llms.txt')
    .sort()
}

/** Writes `files` (path → text) under `root`. */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
}

/** The message a Rollup build of `root` fails with, with these options. */
async function rollupFailure(root: string, options: object): Promise<{ code: string, message: string }> {
  const error = await build('rollup', join(root, 'main.js'), { root, ...options }, `agent-skills-${root.split(sep).at(-1)}`).then(() => undefined, (error: { pluginCode?: string, code?: string, message: string }) => error)
  if (!error)
    throw new Error('the build succeeded')
  return { code: error.pluginCode ?? error.code ?? '', message: error.message }
}

/**
 * The app's registry, published. Its folder is given absolute rather than with
 * `root: app`: esbuild cannot resolve the plugin's runtime when `root` is set. The
 * title and summary too: the root (and its package.json) is Vite's root in Vite, the
 * working folder elsewhere.
 */
const APP_OPTIONS = { skills: { dirs: [join(app, 'skills')] }, agentSkills: { title: 'app', summary: 'The fixture app.' } }

beforeAll(() => rmSync(work, { recursive: true, force: true }))

describe('agentSkills in every bundler', () => {
  let reference: string

  beforeAll(async () => {
    reference = (await build('rollup', join(app, 'main.js'), APP_OPTIONS, 'agent-skills-reference')).outDir
  }, 60_000)

  it('writes the registry of the app\'s fixture: two skill files and a folder', () => {
    expect(published(reference)).toEqual([
      '.well-known/agent-skills/index.json',
      '.well-known/agent-skills/notes/SKILL.md',
      '.well-known/agent-skills/quick/SKILL.md',
      '.well-known/agent-skills/xlsx.tar.gz',
      'llms.txt',
    ])
    expect(readFileSync(join(reference, 'llms.txt'), 'utf8').split('\n')[0]).toBe('# app')
  })

  it.each(BUNDLERS.filter(b => b !== 'rollup') as Bundler[])('%s writes the same files, byte for byte', async (bundler) => {
    const { outDir } = await build(bundler, join(app, 'main.js'), APP_OPTIONS, 'agent-skills')
    expect(published(outDir)).toEqual(published(reference))
    for (const file of published(reference))
      expect(readFileSync(join(outDir, file)).equals(readFileSync(join(reference, file))), file).toBe(true)
  }, 60_000)
})

describe('an exported knowledge base in llms.txt', () => {
  it('links a semantic export by its SKILL.md (a routed one by its llms.txt: vite.test.ts)', async () => {
    const root = join(work, 'semantic')
    writeTree(root, { 'main.js': 'export const n = 1\n', 'home/skill-kit.json': JSON.stringify(defaultProjectConfig('home')) })
    cpSync(join(repo, 'test/fixtures/knowledge/home'), join(root, 'home/knowledge'), { recursive: true })
    const { outDir } = await build('rollup', join(root, 'main.js'), { root, agentSkills: { title: 'Home' }, knowledge: { home: { dir: 'home', model: false, export: {} } } }, 'agent-skills-semantic')
    expect(readFileSync(join(outDir, 'llms.txt'), 'utf8')).toContain('## Knowledge bases\n\n- [home](skills/home/SKILL.md): ')
    expect(readFileSync(join(outDir, 'skills/home/SKILL.md'), 'utf8')).toContain('node search.mjs')
  }, 60_000)
})

describe('skills a build cannot publish', () => {
  const SKILL = (name: string, description = 'Does a thing. Use when asked.') => `---\nname: ${name}\ndescription: ${description}\n---\n\nBody.\n`

  it('refuses a registry skill and an exported knowledge base of one name', async () => {
    const root = join(work, 'clash')
    writeTree(root, { 'main.js': 'export const n = 1\n', 'skills/home/SKILL.md': SKILL('home'), 'home/skill-kit.json': JSON.stringify(defaultProjectConfig('home')) })
    cpSync(join(repo, 'test/fixtures/knowledge/home'), join(root, 'home/knowledge'), { recursive: true })
    expect(await rollupFailure(root, { agentSkills: true, knowledge: { home: { dir: 'home', model: false, export: { mode: 'routed' } } } })).toEqual({
      code: 'skill-unpublishable',
      message: expect.stringContaining('Two published skills are named "home": skill skills/home/SKILL.md and knowledge base "home". Names in the well-known index must be unique: rename one (a knowledge base\'s skill takes the "name" of its skill-kit.json).'),
    })
  })

  it('fails on an invalid registry skill, even one the app does not import, with its diagnostics', async () => {
    const root = join(work, 'invalid')
    writeTree(root, { 'main.js': 'export const n = 1\n', 'skills/broken/SKILL.md': '---\nname: broken\n---\n\nNo description.\n' })
    const failure = await rollupFailure(root, { agentSkills: true })
    expect(failure.code).toBe('build-failed')
    expect(failure.message).toContain('Invalid skill skills/broken/SKILL.md, which agentSkills publishes. Fix it, or set onInvalid: \'fallback\' to load it whole:')
    expect(failure.message).toContain('skills/broken/SKILL.md:')
    expect(failure.message).not.toMatch(/\n\s+at /)
  })

  it('fails on a resource outside the skill\'s folder, and packs none when the skill loads whole', async () => {
    const root = join(work, 'outside')
    const skill = '---\nname: pdf\ndescription: Fill PDF forms.\nresources: [../secret.txt, scripts/fill.py]\n---\n\nRun scripts/fill.py.\n'
    writeTree(root, { 'main.js': 'export const n = 1\n', 'skills/secret.txt': 'secret\n', 'skills/pdf/SKILL.md': skill, 'skills/pdf/scripts/fill.py': 'print(1)\n' })
    const failure = await rollupFailure(root, { agentSkills: true })
    expect(failure.code).toBe('build-failed')
    expect(failure.message).toContain('Resource "../secret.txt" is outside the skill folder.')
    const { outDir } = await build('rollup', join(root, 'main.js'), { root, agentSkills: true, onInvalid: 'fallback' }, 'agent-skills-outside-fallback')
    const entries = await parseTarGzip(readFileSync(join(outDir, '.well-known/agent-skills/pdf.tar.gz')))
    expect(entries.map(e => [e.name, e.text])).toEqual([['SKILL.md', skill], ['scripts/fill.py', 'print(1)\n']])
  })

  it('asks esbuild for an output folder', async () => {
    const root = join(work, 'esbuild')
    writeTree(root, { 'main.js': 'export const n = 1\n', 'skills/alpha/SKILL.md': SKILL('alpha') })
    const { default: plugin } = await import(pathToFileURL(join(repo, 'dist/esbuild.mjs')).href)
    const esbuild = await import('esbuild')
    const failed = await esbuild.build({ entryPoints: [join(root, 'main.js')], bundle: true, write: false, logLevel: 'silent', plugins: [plugin({ skills: { dirs: [join(root, 'skills')] }, agentSkills: true })] })
      .then(() => [], (error: { errors: { text: string }[] }) => error.errors.map(e => e.text))
    expect(failed).toEqual(['The agentSkills option writes the well-known skills index into the build output: set outdir (or outfile).'])
  })

  it('does not publish a skill loaded whole whose name is no Agent Skills name', async () => {
    const root = join(work, 'fallback')
    writeTree(root, { 'main.js': 'export const n = 1\n', 'skills/Bad_Name/SKILL.md': SKILL('Bad_Name') })
    expect(await rollupFailure(root, { agentSkills: true, onInvalid: 'fallback' })).toEqual({
      code: 'skill-unpublishable',
      message: expect.stringContaining('Skill skills/Bad_Name/SKILL.md cannot be published: its name "Bad_Name" is not a valid Agent Skills name (lowercase letters, digits and single hyphens, at most 64 characters). Fix its name.'),
    })
  })
})
