/**
 * Runs any of the six bundlers in watch mode on an entry, with the plugins
 * from `dist/` (run `npm run build` first), and hands out each build's
 * outcome: its errors, and its output imported from a copy.
 */
import type { Plugin as EsbuildPlugin } from 'esbuild'
import type { Bundler, PluginOptions } from './build'
import { cpSync, existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { esbuildNodeOptions, nodeModuleConfig } from './build'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

/** One finished build of a watch session. */
export interface WatchBuild {
  /** The text of every error the bundler reported for this build. */
  errors: string[]
  /** The built entry file's namespace; `undefined` when the build failed. */
  module: Record<string, any> | undefined
}

export interface WatchSession {
  /** The first build, once it has ended. */
  first: Promise<WatchBuild>
  /**
   * The first build that starts after this call, once it has ended. A build
   * that started earlier may not have seen a change made since, so it never counts.
   */
  nextBuild: () => Promise<WatchBuild>
  /**
   * The first build ending from now on (the one running included) whose
   * output passes `shows`: for a change that a build running meanwhile may or
   * may not see.
   */
  buildShowing: (shows: (build: WatchBuild) => boolean) => Promise<WatchBuild>
  close: () => Promise<void>
}

function messageOf(log: unknown): string {
  if (typeof log === 'string')
    return log
  const l = log as { message?: string, text?: string, details?: string }
  return [l.message ?? l.text ?? String(log), l.details].filter(Boolean).join('\n')
}

/**
 * Follows a bundler's builds, which run one at a time: `started` at the start
 * of each, `ended` at the end of the one that started last. A bundler that
 * starts again at once when a file changed during a build (webpack) may never
 * end the stale one; its waiters then get the next.
 */
class BuildTracker {
  private started = 0
  private errors: string[] = []
  private readonly waiters: { after: number, resolve: (build: WatchBuild) => void, reject: (error: Error) => void }[] = []
  private readonly seekers: { shows: (build: WatchBuild) => boolean, resolve: (build: WatchBuild) => void, reject: (error: Error) => void }[] = []
  private copies = 0
  private loads = Promise.resolve()

  constructor(private readonly outFile: string) {}

  start(): void {
    this.started++
    this.errors = []
  }

  error(text: string): void {
    this.errors.push(text)
  }

  end(): void {
    const build = this.started
    const due = this.waiters.filter(w => w.after < build)
    this.waiters.splice(0, this.waiters.length, ...this.waiters.filter(w => w.after >= build))
    if (!due.length && !this.seekers.length)
      return
    // Copied now, before the next build writes; handed out in order, so that a seeker sees every build that ends.
    const loaded = this.load(this.errors)
    this.loads = this.loads.then(async () => {
      let result: WatchBuild
      try {
        result = await loaded
      }
      catch (error) {
        for (const waiter of [...due, ...this.seekers.splice(0)])
          waiter.reject(error as Error)
        return
      }
      due.forEach(w => w.resolve(result))
      for (const seeker of this.seekers.splice(0)) {
        if (seeker.shows(result))
          seeker.resolve(result)
        else
          this.seekers.push(seeker)
      }
    })
  }

  showing(shows: (build: WatchBuild) => boolean): Promise<WatchBuild> {
    return new Promise((resolve, reject) => this.seekers.push({ shows, resolve, reject }))
  }

  next(): Promise<WatchBuild> {
    return new Promise((resolve, reject) => this.waiters.push({ after: this.started, resolve, reject }))
  }

  /** The output as this build left it, from a copy: the next build overwrites the files, and imports are cached by path. */
  private async load(errors: string[]): Promise<WatchBuild> {
    if (errors.length || !existsSync(this.outFile))
      return { errors, module: undefined }
    const copy = join(dirname(this.outFile), `../${this.copies++}-${Date.now()}`)
    cpSync(dirname(this.outFile), copy, { recursive: true })
    return { errors, module: await import(/* @vite-ignore */ join(copy, 'index.mjs')) }
  }
}

/**
 * Starts `bundler` watching `entry` (root: its folder), writing
 * `<outRoot>/out/index.mjs`; copies of each build go beside `out`.
 */
export async function watchBuilds(bundler: Bundler, entry: string, options: PluginOptions, outRoot: string): Promise<WatchSession> {
  const plugin = (await import(pathToFileURL(join(repo, 'dist', `${bundler}.mjs`)).href)).default as (options?: PluginOptions) => any
  const outDir = join(outRoot, 'out')
  const tracker = new BuildTracker(join(outDir, 'index.mjs'))
  const first = tracker.next()
  const root = dirname(entry)

  switch (bundler) {
    case 'rollup':
    case 'rolldown':
    case 'vite': {
      let watcher: { on: (event: 'event', listener: (e: any) => void) => void, close: () => Promise<void> | void }
      if (bundler === 'rollup') {
        const { watch } = await import('rollup')
        watcher = watch({ input: entry, plugins: [plugin(options)], onLog: () => {}, output: { dir: outDir, format: 'es', entryFileNames: 'index.mjs' } })
      }
      else if (bundler === 'rolldown') {
        const { watch } = await import('rolldown')
        watcher = watch({ input: entry, cwd: root, plugins: [plugin(options)], onLog: () => {}, output: { dir: outDir, format: 'es', entryFileNames: 'index.mjs' } })
      }
      else {
        const { build } = await import('vite')
        watcher = await build({
          configFile: false,
          root,
          base: './',
          logLevel: 'silent',
          plugins: [plugin(options)],
          build: { outDir, emptyOutDir: true, minify: false, copyPublicDir: false, watch: {}, lib: { entry, formats: ['es'], fileName: () => 'index.mjs' } },
        }) as unknown as typeof watcher
      }
      watcher.on('event', (event) => {
        if (event.code === 'START')
          tracker.start()
        else if (event.code === 'ERROR')
          tracker.error(messageOf(event.error))
        else if (event.code === 'END')
          tracker.end()
        // Each build's result holds its plugins open until closed.
        event.result?.close?.()
      })
      return { first, nextBuild: () => tracker.next(), buildShowing: shows => tracker.showing(shows), close: async () => void await watcher.close() }
    }
    case 'esbuild': {
      const esbuild = await import('esbuild')
      const follow: EsbuildPlugin = {
        name: 'watch-session',
        setup(build) {
          build.onStart(() => tracker.start())
          build.onEnd((result) => {
            result.errors.forEach(e => tracker.error(e.text))
            tracker.end()
          })
        },
      }
      const context = await esbuild.context(esbuildNodeOptions(entry, outDir, [plugin(options), follow]))
      await context.watch()
      return { first, nextBuild: () => tracker.next(), buildShowing: shows => tracker.showing(shows), close: () => context.dispose() }
    }
    case 'webpack':
    case 'rspack': {
      // The in-memory cache of `webpack --watch` in development: modules are rebuilt only when what they depend on changed.
      const config = nodeModuleConfig({ root, entry, outDir, plugin: plugin(options), cache: true })
      const compiler: any = bundler === 'webpack'
        ? (await import('webpack')).default({ ...config, experiments: { outputModule: true } })
        : (await import('@rspack/core')).rspack(config)
      compiler.hooks.watchRun.tap('watch-session', () => tracker.start())
      const watching = compiler.watch({ aggregateTimeout: 20 }, (error: Error | null, stats: any) => {
        if (error)
          tracker.error(error.message)
        for (const e of stats?.compilation.errors ?? [])
          tracker.error(messageOf(e))
        tracker.end()
      })
      return { first, nextBuild: () => tracker.next(), buildShowing: shows => tracker.showing(shows), close: () => new Promise(done => watching.close(() => compiler.close(() => done()))) }
    }
  }
}
