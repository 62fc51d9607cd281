// Progress of knowledge builds, through each bundler's own channel for
// information: Vite's logger, Rollup's and rolldown's logs, webpack's and
// rspack's infrastructure logger, and stderr for esbuild (a child process, so
// this process's stderr stays untouched). Every app starts with an empty
// vector cache, so every build has windows to embed.

import type { Bundler } from '../../support/build'
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import { openKnowledgeProject } from '../../../src/knowledge/project'
import { readPublishedIndex } from '../../../src/knowledge/publish'
import { decodeSnapshot } from '../../../src/runtime'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/progress')
const models = join(work, 'models')

/** The throttled middle lines: their rate and estimate depend on the machine, so only their shape is checked. */
const EMBEDDED = /^docs: embedded \d+\/\d+ windows \(\d+(?:\.\d)?\/s, about \d+ (?:s|min) left\)$/
const BUILT = /^docs: built in \d+\.\d s$/

/** A fresh app (`main.js` importing the knowledge base `docs`) with an empty cache, and the plugin options for it. */
function app(name: string) {
  const root = join(work, name)
  mkdirSync(root, { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(root, 'docs'), { recursive: true })
  writeFileSync(join(root, 'main.js'), 'export { default } from \'virtual:skill-kit/knowledge/docs\'\n')
  const options = {
    root,
    offline: true,
    knowledge: { docs: { dir: 'docs', model: { id: TINY_MODEL_ID, cacheDir: models }, chunk: { maxTokens: 48, overlapTokens: 8 } } },
  }
  return { root, entry: join(root, 'main.js'), outDir: join(root, 'out'), options }
}

/** How many windows the app's published snapshot holds: what its first build had to embed. */
function windowsOf(root: string): number {
  const { project } = openKnowledgeProject(join(root, 'docs'), { root })
  return decodeSnapshot(readPublishedIndex(project!.config.output)!.snapshot).chunkCount
}

/** The lines of one build that embeds everything: what is to embed, maybe some progress, the time taken. */
function expectFirstBuild(lines: string[], root: string, prefix = ''): void {
  const windows = windowsOf(root)
  const own = lines.map(line => line.slice(prefix.length))
  expect(lines.every(line => line.startsWith(prefix)), lines.join('\n')).toBe(true)
  expect(own[0]).toBe(`docs: 3 documents, ${windows} windows (0 cached, ${windows} to embed)`)
  expect(own.at(-1)).toMatch(BUILT)
  own.slice(1, -1).forEach(line => expect(line).toMatch(EMBEDDED))
}

const plugin = async (bundler: Bundler) => (await import(pathToFileURL(join(repo, 'dist', `${bundler}.mjs`)).href)).default

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  await buildTinyModel(models)
}, 60_000)

describe('knowledge build progress', () => {
  it('goes to Vite\'s logger, and a cached rebuild stays quiet', async () => {
    const { build } = await import('vite')
    const { root, entry, outDir, options } = app('vite')
    const infos: string[] = []
    const customLogger = {
      info: (message: string) => {
        infos.push(message)
      },
      warn: () => {},
      warnOnce: () => {},
      error: () => {},
      clearScreen: () => {},
      hasErrorLogged: () => false,
      hasWarned: false,
    }
    const skillKit = await plugin('vite')
    const viteBuild = () => build({
      configFile: false,
      root,
      customLogger,
      plugins: [skillKit(options)],
      build: { outDir, minify: false, lib: { entry, formats: ['es'], fileName: () => 'index.mjs' } },
    })
    await viteBuild()
    expectFirstBuild(infos.filter(line => line.startsWith('skill-kit: ')), root, 'skill-kit: ')

    infos.length = 0
    await viteBuild()
    // Every window is cached: nothing, or (on a machine slow enough to take 2 s) only the time taken.
    const again = infos.filter(line => line.startsWith('skill-kit: '))
    expect(again.length).toBeLessThanOrEqual(1)
    again.forEach(line => expect(line.slice('skill-kit: '.length)).toMatch(BUILT))
  })

  it.each([
    ['rollup', '[plugin unplugin-skill-kit] '],
    ['rolldown', '(unplugin-skill-kit plugin) '],
  ] as const)('goes to %s\'s logs as information from the plugin', async (bundler, prefix) => {
    const { root, entry, outDir, options } = app(bundler)
    const infos: string[] = []
    const onLog = (level: string, log: { plugin?: string }) => {
      // As the bundler prints it by default, naming the plugin.
      if (level === 'info' && log.plugin === 'unplugin-skill-kit')
        infos.push(String(log))
    }
    const { rollup } = bundler === 'rollup' ? await import('rollup') : { rollup: (await import('rolldown')).rolldown }
    const bundle = await rollup({ input: entry, plugins: [(await plugin(bundler))(options)], onLog } as any)
    try {
      await bundle.write({ dir: outDir, format: 'es' })
    }
    finally {
      await bundle.close()
    }
    expectFirstBuild(infos, root, prefix)
  })

  it.each(['webpack', 'rspack'] as const)('goes to %s\'s infrastructure logger', async (bundler) => {
    const { root, entry, outDir, options } = app(bundler)
    const infos: string[] = []
    const console = { ...globalThis.console, info: (message: string) => infos.push(message) }
    const config = {
      mode: 'none' as const,
      context: root,
      entry,
      target: 'node20' as const,
      devtool: false as const,
      cache: false,
      output: { path: outDir, filename: 'index.mjs', module: true, library: { type: 'module' as const }, chunkFormat: 'module' as const, publicPath: './' },
      plugins: [(await plugin(bundler))(options)],
      // The default level, `info`, into a console of the test's own.
      infrastructureLogging: { console },
    }
    const compiler: any = bundler === 'webpack'
      ? (await import('webpack')).default({ ...config, experiments: { outputModule: true } })
      : (await import('@rspack/core')).rspack(config)
    await new Promise<void>((done, fail) => compiler.run((error: Error | null, stats: any) => compiler.close(() => {
      if (error || stats.hasErrors())
        return fail(error ?? new Error(stats.toString()))
      done()
    })))
    expectFirstBuild(infos.filter(line => line.startsWith('[unplugin-skill-kit] ')), root, '[unplugin-skill-kit] ')
  })

  /** Builds the app with esbuild in another process; resolves with what that process wrote on stderr. */
  async function esbuildStderr(name: string, logLevel?: string): Promise<{ root: string, stderr: string }> {
    const { root, entry, outDir, options } = app(name)
    const script = join(root, 'build.mjs')
    writeFileSync(script, `import { build } from 'esbuild'
import skillKit from ${JSON.stringify(pathToFileURL(join(repo, 'dist/esbuild.mjs')).href)}
await build({ entryPoints: [${JSON.stringify(entry)}], bundle: true, format: 'esm', platform: 'node', outdir: ${JSON.stringify(outDir)}, ${logLevel ? `logLevel: '${logLevel}', ` : ''}plugins: [skillKit(${JSON.stringify(options)})] })
`)
    const stderr = await new Promise<string>((done, fail) => execFile(process.execPath, [script], { cwd: root }, (error, _stdout, stderr) => error ? fail(new Error(stderr || error.message)) : done(stderr)))
    return { root, stderr }
  }

  it('goes to stderr with esbuild, unless logLevel hides information', async () => {
    const [unset, info, warning] = await Promise.all([esbuildStderr('esbuild'), esbuildStderr('esbuild-info', 'info'), esbuildStderr('esbuild-warning', 'warning')])
    expectFirstBuild(unset.stderr.trimEnd().split('\n'), unset.root, 'skill-kit: ')
    // esbuild adds its own summary at `info`.
    expectFirstBuild(info.stderr.split('\n').filter(line => line.startsWith('skill-kit: ')), info.root, 'skill-kit: ')
    expect(warning.stderr).toBe('')
    expect(windowsOf(warning.root)).toBeGreaterThan(0)
  }, 120_000)
})
