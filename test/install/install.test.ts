// The package as users get it: `npm pack`, then `npm install <tarball>` into a new app
// outside the repository (dependencies from the npm cache, else the registry), with no
// .npmrc and no install-script setting. Transformers.js is an optional peer dependency, so
// the app gets no ONNX Runtime; skills work, and every knowledge build that needs a model
// fails at once with the command that installs Transformers.js, in the CLI and the plugin.
// Needs a built dist/ (`npm test` builds first).

import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { buildKnowledgeProject, disposeProjectEmbedders, openKnowledgeProject } from '../../src/knowledge/project'
import { TRANSFORMERS_MISSING_MESSAGE } from '../../src/knowledge/transformers'

const repo = resolve(import.meta.dirname, '../..')
const { exports: entries } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> }

interface Run { code: number, stdout: string, stderr: string }

/**
 * The environment of a user's shell: without the npm_* variables of the `npm test` that
 * may run this file, and without ONNX Runtime's install switches.
 */
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_|^ONNXRUNTIME_/i.test(key)))

/** Runs a command; resolves with its exit code and output, whatever they are. */
function run(command: string, args: readonly string[], cwd: string): Promise<Run> {
  return new Promise((done) => {
    execFile(command, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr })
    })
  })
}

/** Runs a command that must succeed; resolves with its stdout. */
async function ok(command: string, args: readonly string[], cwd: string): Promise<string> {
  const result = await run(command, args, cwd)
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.code}:\n${result.stderr}`)
  return result.stdout
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx'

let work: string
let app: string
let install: Run
/** `npx skill-kit …args` in the app, as its users run it (never from the registry). */
const skillKit = (...args: string[]): Promise<Run> => run(npx, ['--no', 'skill-kit', ...args], app)

beforeAll(async () => {
  if (!existsSync(join(repo, 'dist/index.mjs')))
    throw new Error('dist/ is missing: run "npm run build" first (npm test does).')
  work = mkdtempSync(join(tmpdir(), 'skill-kit-install-'))
  app = join(work, 'app')
  mkdirSync(app)
  const [packed] = JSON.parse(await ok(npm, ['pack', '--json', '--pack-destination', work], repo)) as { filename: string }[]
  cpSync(join(repo, 'test/fixtures/app/skills'), join(app, 'skills'), { recursive: true })
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`)
  install = await run(npm, ['install', '--save-dev', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed!.filename)], app)
}, 120_000)

afterAll(async () => {
  await disposeProjectEmbedders()
  rmSync(work, { recursive: true, force: true })
})

describe('npm install of the packed package', () => {
  it('installs without Transformers.js and ONNX Runtime, and ships LICENSE and NOTICE', () => {
    expect(install.stderr).not.toMatch(/npm error/)
    expect(install.code).toBe(0)
    const modules = join(app, 'node_modules')
    const installed = readdirSync(modules).flatMap(name => name.startsWith('@') ? readdirSync(join(modules, name)).map(sub => `${name}/${sub}`) : [name])
    expect(installed).toContain('unplugin-skill-kit')
    expect(installed.filter(name => /^onnxruntime-|^@huggingface\//.test(name))).toEqual([])
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> }
    expect(Object.keys(lock.packages).filter(path => /onnxruntime-|@huggingface\//.test(path))).toEqual([])
    expect(readdirSync(join(modules, 'unplugin-skill-kit')).sort()).toEqual(['LICENSE', 'NOTICE', 'README.md', 'bin', 'client.d.ts', 'dist', 'package.json'])
  })

  it('imports every entry of the package, none of which needs Transformers.js', async () => {
    const specifiers = Object.keys(entries).filter(key => entries[key]!.default).map(key => `unplugin-skill-kit${key.slice(1)}`)
    expect(specifiers).toHaveLength(12)
    const script = `for (const s of ${JSON.stringify(specifiers)}) console.log(s, Object.keys(await import(s)).length > 0)`
    const result = await run(process.execPath, ['--input-type=module', '-e', script], app)
    expect(result).toEqual({ code: 0, stderr: '', stdout: specifiers.map(s => `${s} true\n`).join('') })
  })

  it('validates skills with npx skill-kit', async () => {
    const result = await skillKit('validate', 'skills', '--format', 'json')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout) as { skills: { file: string, mode: string }[], errors: number }
    expect(report.skills.map(s => [s.file, s.mode])).toEqual([
      ['skills/notes/SKILL.md', 'regular'],
      ['skills/quick.skill.md', 'regular'],
      ['skills/xlsx/SKILL.md', 'progressive'],
    ])
    expect(report.errors).toBe(0)
  })
})

describe('skill-kit export from the installed package', () => {
  it('exports a project with "model": false, whose search.mjs runs with Node alone', async () => {
    expect((await skillKit('init', 'lex')).code).toBe(0)
    const config = JSON.parse(readFileSync(join(app, 'lex/skill-kit.json'), 'utf8')) as Record<string, unknown>
    writeFileSync(join(app, 'lex/skill-kit.json'), JSON.stringify({ ...config, model: false }, null, 2))
    const exported = await skillKit('export', 'exported/lex', '--project', 'lex')
    expect(exported.stderr).toBe('')
    expect(JSON.parse(exported.stdout).files).toEqual(['SKILL.md', 'index/documents.json', 'index/settings.json', 'index/snapshot.skillkit', 'references/example.md', 'search.mjs'])
    const search = await run(process.execPath, ['search.mjs', 'example document'], join(app, 'exported/lex'))
    expect(search.stderr).toBe('')
    expect((JSON.parse(search.stdout) as { id: string }[]).map(hit => hit.id)).toEqual(['example'])
  })
})

describe('a knowledge build without Transformers.js', () => {
  it('fails at once with the install command: skill-kit build, model and search in vector mode', async () => {
    expect((await skillKit('init', 'kb')).code).toBe(0)
    const build = await skillKit('build', '--project', 'kb')
    expect(build).toEqual({ code: 1, stdout: '', stderr: `skill-kit build: ${TRANSFORMERS_MISSING_MESSAGE}\n` })
    // Nothing read, cached or published.
    expect(existsSync(join(app, 'kb/.skill-kit'))).toBe(false)
    const model = await skillKit('model', '--project', 'kb')
    expect(model).toEqual({ code: 1, stdout: '', stderr: `skill-kit model: ${TRANSFORMERS_MISSING_MESSAGE}\n` })

    // An index published elsewhere (here by this repository, which has Transformers.js):
    // lexical search needs no model, vector search (the default) needs Transformers.js.
    await buildTinyModel(join(app, 'models'))
    const config = JSON.parse(readFileSync(join(app, 'kb/skill-kit.json'), 'utf8')) as Record<string, unknown>
    writeFileSync(join(app, 'kb/skill-kit.json'), JSON.stringify({ ...config, model: { id: TINY_MODEL_ID, cacheDir: '../models' } }, null, 2))
    const opened = openKnowledgeProject(join(app, 'kb'))
    expect(opened.diagnostics).toEqual([])
    expect('snapshot' in await buildKnowledgeProject(opened.project!)).toBe(true)
    const lexical = await skillKit('search', 'example document', '--mode', 'lexical', '--project', 'kb')
    expect(lexical.stderr).toBe('')
    expect((JSON.parse(lexical.stdout) as { id: string }[]).map(hit => hit.id)).toEqual(['example'])
    const vector = await skillKit('search', 'example document', '--project', 'kb')
    expect(vector).toEqual({ code: 1, stdout: '', stderr: `skill-kit search: ${TRANSFORMERS_MISSING_MESSAGE}\n` })
  })

  it('fails the same way in a bundler, with the plugin installed from the tarball', async () => {
    mkdirSync(join(app, 'notes'))
    writeFileSync(join(app, 'notes/vpn.md'), '# VPN\n\nConnect to the office network.\n')
    writeFileSync(join(app, 'skills.js'), 'export { default } from \'./skills/xlsx/SKILL.md?cover\'\n')
    writeFileSync(join(app, 'notes.js'), 'export { default } from \'./notes?knowledge\'\n')
    // esbuild from this repository (the app has no bundler), the plugin from the app.
    const esbuild = pathToFileURL(createRequire(import.meta.url).resolve('esbuild')).href
    writeFileSync(join(app, 'build.mjs'), `import { build } from ${JSON.stringify(esbuild)}
import skillKit from 'unplugin-skill-kit/esbuild'

const bundle = entry => build({ entryPoints: [entry], bundle: true, write: false, outdir: 'out', platform: 'node', format: 'esm', plugins: [skillKit()], logLevel: 'silent' })
  .then(result => ({ ok: true, text: result.outputFiles[0].text }), error => ({ ok: false, errors: error.errors.map(e => e.text) }))
console.log(JSON.stringify({ skills: await bundle('skills.js'), notes: await bundle('notes.js') }))
`)
    const result = await run(process.execPath, ['build.mjs'], app)
    expect(result.stderr).toBe('')
    const { skills, notes } = JSON.parse(result.stdout) as Record<string, { ok: boolean, text?: string, errors?: string[] }>
    expect(skills).toEqual({ ok: true, text: expect.stringContaining('read_section') })
    expect(notes).toEqual({ ok: false, errors: [`Knowledge folder notes: ${TRANSFORMERS_MISSING_MESSAGE}`] })
    expect(existsSync(join(app, '.skill-kit'))).toBe(false)
  })
})

describe('the package\'s types in a strict TypeScript project', () => {
  it('type-check with tsc --strict and without skipLibCheck, with only the bundlers the app has', async () => {
    // The bundlers and Node's types as a user installs them (here linked from this repository);
    // unplugin's other bundlers (farm, bun, rsbuild, unloader) are not there, as in most apps.
    for (const name of ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', '@rspack/core', '@types/node']) {
      mkdirSync(dirname(join(app, 'node_modules', name)), { recursive: true })
      symlinkSync(join(repo, 'node_modules', name), join(app, 'node_modules', name), 'dir')
    }
    writeFileSync(join(app, 'tsconfig.strict.json'), `${JSON.stringify({
      compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', types: ['node', 'unplugin-skill-kit/client'] },
      files: ['types.ts'],
    }, null, 2)}\n`)
    writeFileSync(join(app, 'types.ts'), `import type { Options } from 'unplugin-skill-kit'
import type { KnowledgeModule } from 'unplugin-skill-kit/runtime'
import skillKit, { compileSkill, SkillLoader } from 'unplugin-skill-kit'
import esbuild from 'unplugin-skill-kit/esbuild'
import rolldown from 'unplugin-skill-kit/rolldown'
import rollup from 'unplugin-skill-kit/rollup'
import rspack from 'unplugin-skill-kit/rspack'
import vite from 'unplugin-skill-kit/vite'
import webpack from 'unplugin-skill-kit/webpack'
import { createRegistry } from 'unplugin-skill-kit/runtime/skill'
import { createKnowledgeBase } from 'unplugin-skill-kit/runtime/knowledge'
import { defineSearchElement, mountSearch } from 'unplugin-skill-kit/search-ui'
import notes from './skills/notes/SKILL.md'

const options: Options = { knowledge: { docs: { dir: 'docs', model: false } } }
export const plugins = [vite(options), rollup(options), rolldown(options), esbuild(options), webpack(options), rspack(options), skillKit.vite(options)]
export const name: string = notes.name
export const used = [compileSkill, SkillLoader, createRegistry, createKnowledgeBase, defineSearchElement, mountSearch] as const
export type Kb = KnowledgeModule
`)
    const tsc = await run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.strict.json'], app)
    expect(tsc.stdout).toBe('')
    expect(tsc.code).toBe(0)
  }, 120_000)
})
