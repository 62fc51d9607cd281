/**
 * Builds an entry with any of the six bundlers the package ships a plugin
 * for, using the plugins from `dist/` (run `npm run build` first), and imports
 * the output.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export type Bundler = 'vite' | 'rollup' | 'esbuild' | 'rolldown' | 'webpack' | 'rspack'
export type PluginOptions = import('../../src/plugin/options').Options

export interface BuildResult {
  /** The namespace of the built entry file, imported (through Vitest's module runner: Node's own `import()` is unavailable in a test file). */
  module: Record<string, any>
  /** The text of the built entry file. */
  code: string
  /** Warnings the bundler reported while building, as text. */
  warnings: string[]
  /** The output folder. */
  outDir: string
}

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const tmp = join(repo, 'test/.tmp')

export const BUNDLERS: Bundler[] = ['vite', 'rollup', 'esbuild', 'rolldown', 'webpack', 'rspack']

/** The plugin factory of a bundler, from the built package. */
async function loadPlugin(bundler: Bundler): Promise<(options?: PluginOptions) => any> {
  const mod = await import(pathToFileURL(join(repo, 'dist', `${bundler}.mjs`)).href)
  return mod.default
}

function messageOf(log: unknown): string {
  if (typeof log === 'string')
    return log
  const l = log as { message?: string, text?: string, details?: string }
  return [l.message ?? l.text ?? String(log), l.details].filter(Boolean).join('\n')
}

/** Runs a webpack-like compiler once, failing with the text of every error. */
function runCompiler(compiler: any): Promise<{ warnings: string[] }> {
  return new Promise((resolvePromise, reject) => {
    compiler.run((err: Error | null, stats: any) => {
      compiler.close(() => {
        if (err)
          return reject(err)
        const { errors, warnings } = stats.compilation as { errors: unknown[], warnings: unknown[] }
        if (stats.hasErrors())
          return reject(new Error(errors.map(messageOf).join('\n\n')))
        resolvePromise({ warnings: warnings.map(messageOf) })
      })
    })
  })
}

/**
 * Builds `entry` with `bundler` into `test/.tmp/<bundler>-<name>/index.mjs` as
 * ESM and imports it. Rejects with the bundler's error when the build fails.
 */
export async function build(bundler: Bundler, entry: string, options: PluginOptions | undefined, name: string): Promise<BuildResult> {
  const plugin = await loadPlugin(bundler)
  const outDir = join(tmp, `${bundler}-${name}`)
  const outFile = join(outDir, 'index.mjs')
  const root = dirname(entry)
  rmSync(outDir, { recursive: true, force: true })
  const warnings: string[] = []
  const onLog = (level: string, log: unknown) => {
    // Rolldown's PLUGIN_TIMINGS tells how much of a build's wall-clock time went to plugins:
    // it follows the machine's load (other test files build at the same time), not the build.
    if (level === 'warn' && (log as { code?: string }).code !== 'PLUGIN_TIMINGS')
      warnings.push(messageOf(log))
  }

  switch (bundler) {
    case 'vite': {
      const { build: viteBuild } = await import('vite')
      await viteBuild({
        configFile: false,
        root,
        // The output runs from disk in Node: asset URLs relative to the chunk, not to a site root.
        base: './',
        logLevel: 'silent',
        plugins: [plugin(options)],
        build: {
          outDir,
          emptyOutDir: true,
          minify: false,
          copyPublicDir: false,
          lib: { entry, formats: ['es'], fileName: () => 'index.mjs' },
          rolldownOptions: { onLog },
        },
      })
      break
    }
    case 'rollup': {
      const { rollup } = await import('rollup')
      const bundle = await rollup({ input: entry, plugins: [plugin(options)], onLog })
      try {
        await bundle.write({ dir: outDir, format: 'es', entryFileNames: 'index.mjs' })
      }
      finally {
        await bundle.close()
      }
      break
    }
    case 'rolldown': {
      const { rolldown } = await import('rolldown')
      const bundle = await rolldown({ input: entry, cwd: repo, plugins: [plugin(options)], onLog })
      try {
        await bundle.write({ dir: outDir, format: 'es', entryFileNames: 'index.mjs' })
      }
      finally {
        await bundle.close()
      }
      break
    }
    case 'esbuild': {
      const esbuild = await import('esbuild')
      const result = await esbuild.build(esbuildNodeOptions(entry, outDir, [plugin(options)])).catch((error: { errors?: { text: string }[] }) => {
        // esbuild throws an Error whose message summarises; the full texts are in `errors`.
        throw new Error((error.errors ?? []).map(e => e.text).join('\n\n') || String(error))
      })
      warnings.push(...result.warnings.map(w => w.text))
      break
    }
    case 'webpack':
    case 'rspack': {
      // The same configuration for both: rspack follows webpack's.
      const config = nodeModuleConfig({ root, entry, outDir, plugin: plugin(options), cache: false })
      const compiler = bundler === 'webpack'
        ? (await import('webpack')).default({ ...config, experiments: { outputModule: true } })
        : (await import('@rspack/core')).rspack(config)
      warnings.push(...(await runCompiler(compiler)).warnings)
      break
    }
  }

  if (!existsSync(outFile))
    throw new Error(`${bundler} wrote no ${outFile}`)
  const code = readFileSync(outFile, 'utf8')
  // A plain path, not a file: URL: vitest resolves chunk imports relative to it correctly.
  const module = await import(/* @vite-ignore */ `${outFile}?t=${Date.now()}`)
  return { module, code, warnings, outDir }
}

/** A webpack (or rspack) configuration building `entry` into `<outDir>/index.mjs`, an ES module for Node. */
export function nodeModuleConfig<P>({ root, entry, outDir, plugin, cache }: { root: string, entry: string, outDir: string, plugin: P, cache: boolean }) {
  return {
    mode: 'none' as const,
    context: root,
    entry,
    target: 'node20' as const,
    devtool: false as const,
    cache,
    output: { path: outDir, filename: 'index.mjs', module: true, library: { type: 'module' as const }, chunkFormat: 'module' as const, publicPath: './' },
    plugins: [plugin],
    infrastructureLogging: { level: 'none' as const },
  }
}

/** esbuild options building `entry` into `<outDir>/index.mjs` (and its chunks), ES modules for Node. */
export function esbuildNodeOptions<P>(entry: string, outDir: string, plugins: P[]) {
  return {
    entryPoints: { index: entry },
    bundle: true,
    format: 'esm' as const,
    platform: 'node' as const,
    splitting: true,
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'silent' as const,
    plugins,
  }
}

/** A build's outcome, kept so that one failed build fails only the tests that use it. */
export type Settled<T> = { ok: true, value: T } | { ok: false, error: unknown }

export async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise }
  }
  catch (error) {
    return { ok: false, error }
  }
}

export function unwrap<T>(settled: Settled<T> | undefined): T {
  if (!settled)
    throw new Error('beforeAll did not run')
  if (!settled.ok)
    throw settled.error
  return settled.value
}

