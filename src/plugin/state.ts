import type { BundlerAdapter, ViteServe } from './bundlers'
import type { Options } from './options'
import type { InfoLogger } from './bundlers/progress'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { SkillLoader } from '../skill/load'
import { ChunkRelativeAssets } from './bundlers/chunk-assets'
import { ModuleDependencies } from './dependencies'
import { HtmlPreloads } from './knowledge/html-preloads'
import { KnowledgeService } from './knowledge/service'
import { createFileFilter } from './options'
import { BuildReports } from './reports'
import { RoutesService } from './routes/service'

/**
 * What every module kind shares: the options, the root (which Vite may set
 * after the kinds exist), the bundler and what this build has seen so far.
 */
export class PluginState {
  root: string
  /** Whether an absolute path is a skill file this plugin handles (`include`, `exclude`). */
  filter: (file: string) => boolean
  readonly loader: SkillLoader
  /** What this build has reported, so each problem shows once (cleared at each build and file change; see {@link BuildReports}). */
  readonly reports = new BuildReports()
  /** What each module was last loaded from, for the dev server's updates. */
  readonly dependencies = new ModuleDependencies()
  /** The Vite dev server's base and the files it serves for knowledge modules. */
  viteServe: ViteServe | undefined
  viteLogger: InfoLogger | undefined
  /** The knowledge bases' builds. */
  readonly knowledge: KnowledgeService
  /** The routed index pages' builds. */
  readonly routes: RoutesService
  /** Emitted assets of builds for Node, resolved relative to their chunk. */
  readonly chunkAssets = new ChunkRelativeAssets()
  /** The knowledge files Vite's HTML pages preload (`preloadHtml`). */
  readonly htmlPreloads = new HtmlPreloads()

  constructor(readonly options: Options, readonly bundler: BundlerAdapter) {
    this.root = resolve(options.root ?? process.cwd())
    this.filter = createFileFilter(options.include, options.exclude, this.root)
    this.loader = new SkillLoader({ strict: options.strict, onInvalid: options.onInvalid })
    this.knowledge = new KnowledgeService(options, () => this.root, this.relativize)
    this.routes = new RoutesService(this.knowledge, () => this.root, this.relativize)
  }

  /** Moves the root (Vite's `root`, unless the options set one). */
  setRoot(root: string): void {
    this.root = root
    this.filter = createFileFilter(this.options.include, this.options.exclude, root)
  }

  /** A path as shown in messages and shipped in modules: relative to the root, with `/`. */
  readonly relativize = (file: string): string => relative(this.root, file).replace(/\\/g, '/') || file

  /**
   * A module id as the bundler gets it: relative to the root where ids are
   * file names printed into bundles (`idsAsFiles`), so that no build
   * machine's folder reaches the output.
   */
  shownId(id: string): string {
    const [path, query] = splitQuery(id)
    return this.bundler.idsAsFiles ? `${relative(this.root, path).replace(/\\/g, '/')}${query}` : id
  }

  /** The absolute id of one that {@link shownId} made relative. */
  fileId(id: string): string {
    const [path, query] = splitQuery(id)
    return this.bundler.idsAsFiles && !isAbsolute(path) ? `${resolve(this.root, path)}${query}` : id
  }

  /**
   * Where generated modules import the runtime from: this package's own, so
   * versions always match; a small entry beside `runtime.mjs`, so that apps
   * get the activation engine only when they import it.
   */
  runtime(entry = 'runtime-modules.mjs'): string {
    const runtime = createRequire(import.meta.url).resolve('unplugin-skill-kit/runtime')
    return join(dirname(runtime), entry).replace(/\\/g, '/')
  }
}

function splitQuery(id: string): readonly [string, string] {
  const mark = id.indexOf('?')
  return mark < 0 ? [id, ''] : [id.slice(0, mark), id.slice(mark)]
}
