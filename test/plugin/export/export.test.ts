// The `export` option of a knowledge base: real builds with each bundler write
// the exported skill folder into their output, the same bytes as `skill-kit
// export`, and its search runs with Node alone once the output is moved away.

import type { Bundler } from '../../support/build'
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import { exportKnowledgeProject } from '../../../src/export/export'
import { defaultProjectConfig } from '../../../src/knowledge/config'
import { disposeProjectEmbedders, openKnowledgeProject } from '../../../src/knowledge/project'
import { build, BUNDLERS, esbuildNodeOptions, nodeModuleConfig } from '../../support/build'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/plugin-export')
const home = join(work, 'home')
const entry = join(work, 'main.js')
/** What `skill-kit export` writes for the same project: each build's folder must equal it. */
const reference = join(work, 'reference/home')
const routedReference = join(work, 'reference/routed')
const temporary: string[] = []

function filesOf(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter(e => e.isFile())
    .map(e => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort()
}

function expectSameFolder(actual: string, expected: string): void {
  expect(filesOf(actual)).toEqual(filesOf(expected))
  for (const file of filesOf(expected))
    expect(readFileSync(join(actual, file)).equals(readFileSync(join(expected, file))), file).toBe(true)
}

function node(cwd: string, args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd }, (error, stdout, stderr) => done({ code: error ? Number(error.code) : 0, stdout, stderr }))
  })
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  await buildTinyModel(join(work, 'models'))
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig('home'), model: { id: TINY_MODEL_ID, cacheDir: '../models' }, chunk: { maxTokens: 48, overlapTokens: 8 } }, null, 2))
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(home, 'knowledge'), { recursive: true })
  writeFileSync(join(home, 'LICENSE'), 'The home guides: CC-BY-4.0.\n')
  writeFileSync(entry, `import home from 'virtual:skill-kit/knowledge/home'\nexport const documents = home.documents.length\n`)
  const project = openKnowledgeProject(home).project!
  await exportKnowledgeProject(project, reference, { mode: 'semantic', offline: true })
  await exportKnowledgeProject(project, routedReference, { mode: 'routed' })
  await disposeProjectEmbedders()
}, 60_000)

afterAll(() => {
  for (const dir of temporary)
    rmSync(dir, { recursive: true, force: true })
})

describe.each(BUNDLERS as Bundler[])('%s', (bundler) => {
  it('writes the semantic skill folder into the output, searchable with Node alone after the output moved', async () => {
    const result = await build(bundler, entry, { offline: true, knowledge: { home: { dir: home, export: {} } } }, 'export')
    expect(result.module.documents).toBe(3)
    const exported = join(result.outDir, 'skills/home')
    expectSameFolder(exported, reference)

    const moved = join(mkdtempSync(join(tmpdir(), 'skill-kit-plugin-export-')), 'site')
    temporary.push(resolve(moved, '..'))
    cpSync(result.outDir, moved, { recursive: true })
    rmSync(result.outDir, { recursive: true, force: true })
    const search = await node(join(moved, 'skills/home'), ['search.mjs', 'restore a backup', '--mode', 'lexical'])
    expect(search.stderr).toBe('')
    expect(JSON.parse(search.stdout)[0].id).toBe('restore-backup')
  })
})

describe('the export option', () => {
  it.each(['webpack', 'rspack'] as const)('%s production builds leave the exported files as they are (no minifier on search.mjs)', async (bundler) => {
    const plugin = (await import(pathToFileURL(join(repo, 'dist', `${bundler}.mjs`)).href)).default
    const outDir = join(work, `${bundler}-production`)
    const config = { ...nodeModuleConfig({ root: work, entry, outDir, plugin: plugin({ offline: true, knowledge: { home: { dir: home, export: {} } } }), cache: false }), mode: 'production' as const }
    const compiler: any = bundler === 'webpack'
      ? (await import('webpack')).default({ ...config, experiments: { outputModule: true } })
      : (await import('@rspack/core')).rspack(config)
    await new Promise<void>((done, fail) => compiler.run((error: Error | null, stats: any) => compiler.close(() => error || stats.hasErrors() ? fail(error ?? new Error(String(stats.compilation.errors[0]))) : done())))
    expectSameFolder(join(outDir, 'skills/home'), reference)
  })

  it('writes a routed export where outDir says, the same as skill-kit export --mode routed', async () => {
    const result = await build('rollup', entry, { offline: true, knowledge: { home: { dir: home, export: { mode: 'routed', outDir: './agent/home-routes/' } } } }, 'export-routed')
    expectSameFolder(join(result.outDir, 'agent/home-routes'), routedReference)
  })

  it('describes the exported skill as the description option says, in SKILL.md and llms.txt', async () => {
    const description = 'How to back up the house and keep its network up.'
    const result = await build('rollup', entry, { offline: true, knowledge: { home: { dir: home, description, export: { mode: 'routed' } } } }, 'export-described')
    const folder = join(result.outDir, 'skills/home')
    expect(readFileSync(join(folder, 'SKILL.md'), 'utf8')).toContain(`\ndescription: ${JSON.stringify(description)}\n`)
    expect(readFileSync(join(folder, 'llms.txt'), 'utf8')).toContain(`> ${description}`)
    await expect(build('rollup', entry, { knowledge: { home: { dir: home, description: ' ' } } }, 'export-bad'))
      .rejects.toThrow('- knowledge.home.description: expected a sentence saying what the base holds, got " ".')
  })

  it('refuses an export that a symbolic link puts inside the knowledge folder, before anything is written', async () => {
    const knowledge = join(home, 'knowledge')
    const before = filesOf(knowledge)
    const inside = (folder: string, real: string) => `Knowledge base "home" cannot be exported: The export folder ${folder} of the build output is inside the knowledge folder (through a symbolic link: its real path is ${join(knowledge, real)}), where the exported documents would become documents of the project. Export to a folder outside it.`
    // esbuild: the output folder itself a link to the knowledge folder.
    const esbuildOut = join(work, 'esbuild-link')
    symlinkSync(knowledge, esbuildOut, 'dir')
    const { default: esbuildPlugin } = await import(pathToFileURL(join(repo, 'dist/esbuild.mjs')).href)
    const esbuild = await import('esbuild')
    const failed = await esbuild.build(esbuildNodeOptions(entry, esbuildOut, [esbuildPlugin({ offline: true, knowledge: { home: { dir: home, export: {} } } })])).catch((error: { errors: { text: string }[] }) => error.errors.map(e => e.text))
    expect(failed).toEqual([inside('skills/home', 'skills/home')])
    // Rollup: a folder of the output a link into the knowledge folder, found when the output is rendered.
    const rollupOut = join(work, 'rollup-link')
    mkdirSync(rollupOut)
    symlinkSync(join(knowledge, 'backups'), join(rollupOut, 'agent'), 'dir')
    const { default: rollupPlugin } = await import(pathToFileURL(join(repo, 'dist/rollup.mjs')).href)
    const { rollup } = await import('rollup')
    const bundle = await rollup({ input: entry, plugins: [rollupPlugin({ offline: true, knowledge: { home: { dir: home, export: { mode: 'routed', outDir: 'agent/home' } } } })], onLog: () => {} })
    await expect(bundle.write({ dir: rollupOut, format: 'es', entryFileNames: 'index.mjs' }).finally(() => bundle.close()))
      .rejects.toMatchObject({ name: 'ExportError', pluginCode: 'destination-inside', message: inside('agent/home', 'backups/home') })
    expect(readdirSync(rollupOut)).toEqual(['agent'])
    expect(filesOf(knowledge)).toEqual(before)
  })

  it('fails the build on an option that cannot work, naming it and the fix', async () => {
    // An ExportError with a code (Rollup moves it to pluginCode), and no stack of the plugin's for Rollup to print under the message.
    await expect(build('rollup', entry, { knowledge: { home: { dir: home, export: { mode: 'routed', includeModel: true } } } }, 'export-bad'))
      .rejects.toMatchObject({ name: 'ExportError', pluginCode: 'invalid-options', stack: '', message: 'Knowledge base "home": export.includeModel is for semantic exports: a routed export has no search script and needs no model. Remove it, or set export.mode to "semantic".' })
    await expect(build('esbuild', entry, { knowledge: { home: { dir: home, export: { outDir: '../outside' } } } }, 'export-bad'))
      .rejects.toThrow('Knowledge base "home": export.outDir must be a folder inside the build output (a relative path without ".."), got "../outside".')
    await expect(build('webpack', entry, { knowledge: { home: { dir: home, export: { mode: 'vector' as 'routed' } } } }, 'export-bad'))
      .rejects.toThrow('Invalid unplugin-skill-kit options (1 problem):\n- knowledge.home.export.mode: expected "semantic" or "routed", got "vector".')
  })
})
