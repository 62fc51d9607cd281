import type { UnpluginBuildContext, UnpluginContext, UnpluginFactory } from 'unplugin'
import type { DevEnvironment } from 'vite'
import type { FileUrlRequest } from './bundlers/chunk-assets'
import type { LoadModule } from './bundlers/esbuild-load'
import type { Loaded, ModuleKind } from './kind'
import type { HtmlContext } from './knowledge/html-preloads'
import type { Options } from './options'
import { dirname, resolve } from 'node:path'
import { createUnplugin } from 'unplugin'
import { ChunkRelativeAssets } from './bundlers/chunk-assets'
import { loadWithWatchDirs } from './bundlers/esbuild-load'
import { writeEsbuildOutputs } from './knowledge/load'
import { assertExportsOutsideKnowledge, emitKnowledgeExports, reportExportFailure } from './export/build-exports'
import { KnowledgeService } from './knowledge/service'
import { knowledgeKind, namedKnowledgeId } from './knowledge/knowledge-kind'
import { knowledgeDocumentKind } from './knowledge/document-kind'
import { REGISTRY_ID, registryId, registryKind } from './skills/registry-kind'
import { namedRoutesId, routesKind } from './routes/routes-kind'
import { progressChannel } from './bundlers/progress'
import { skillKind } from './skills/skill-kind'
import { FAILED_MODULE } from './reports'
import { RoutesService } from './routes/service'
import { PluginState } from './state'
import { rewriteVirtualScheme } from './bundlers/virtual-scheme'
import { validateOptions } from './validate-options'
import { skillKitViteApi } from './vite-api'
import { configureDevServer } from './dev-server'
import { hotUpdateSkills, servedModule } from './skills/hot-update'
import { watchDependencies } from './bundlers/watch'

export type { FilterPattern, KnowledgeExportOptions, KnowledgeOptions, Options } from './options'
export type { SkillKitViteApi } from './vite-api'
export type { KnowledgeRebuildEvent } from './knowledge/dev-server'
export type { RoutesRebuildEvent } from './routes/dev-server'
export { REGISTRY_ID }

/** Every id a kind may own, so bundlers call the plugin for nothing else. */
const OUR_IDS = /\.md(?:\?.*)?$|virtual:skill-kit\/|__skill-kit-skills__\.js$|\?knowledge(?:&.*)?$|skill-kit-knowledge[:_]|\?routes(?:&.*)?$|skill-kit-routes[:_]/i

/**
 * What `load` returns after `this.error`. Rollup and Vite throw there, but
 * webpack and rspack only record the error, and would otherwise parse the raw
 * Markdown as JavaScript (esbuild's loads: `esbuild-load.ts`).
 */
const FAILED = { code: FAILED_MODULE }
/** esbuild reads the generated modules as JavaScript. */
const ESBUILD_LOADER = 'js'

export const unpluginFactory: UnpluginFactory<Options | undefined> = (options = {}, meta) => {
  // Before anything reads them: a wrong shape is one error naming every problem, in every bundler.
  validateOptions(options)
  const state = new PluginState(options, meta.framework)
  state.knowledge = new KnowledgeService(options, () => state.root, state.relativize)
  state.routes = new RoutesService(state.knowledge, () => state.root, state.relativize)
  state.chunkAssets = new ChunkRelativeAssets()
  // In the order they are asked: a registry or knowledge id is never a skill's.
  const kinds: ModuleKind[] = [registryKind(state), routesKind(state), knowledgeKind(state), knowledgeDocumentKind(state), skillKind(state)]
  const resolveFileUrl = (request: FileUrlRequest) => state.chunkAssets.resolveFileUrl(request) ?? null
  /** The resolved id of a `virtual:skill-kit/…` import. */
  const virtualId = (request: string) => request === REGISTRY_ID ? registryId(state) : namedRoutesId(state, request) ?? namedKnowledgeId(state, request)
  const loadModule: LoadModule = async (id, context) => {
    const kind = kinds.find(k => k.owns(id))
    return kind ? kind.load(id, context) : null
  }

  /** The exported folders of this build that Rollup, Rolldown and Vite place once their output folder is known. */
  let pendingExports: Parameters<typeof assertExportsOutsideKnowledge>[1] = []
  /** Refuses, before anything is written, an export that the output folder (relative to the working folder, as Rollup writes it) puts inside its knowledge folder. */
  const renderStart = (output: { dir?: string, file?: string }) => {
    const dir = output.dir ?? (output.file ? dirname(output.file) : undefined)
    if (dir)
      assertExportsOutsideKnowledge(resolve(dir), pendingExports)
  }

  return {
    name: 'unplugin-skill-kit',
    enforce: 'pre',

    async buildStart() {
      state.reports.clear()
      state.knowledge.reset()
      state.routes.reset()
      const environment = (this as { environment?: { name: string, config: { consumer?: string } } }).environment
      state.chunkAssets.reset(environment?.name ?? '')
      state.htmlPreloads.reset()
      pendingExports = []
      // Exported skills go into builds' output: not the dev server's, nor a Vite server build's (which drops assets).
      if (state.viteServe || environment?.config.consumer === 'server')
        return
      try {
        pendingExports = await emitKnowledgeExports(this, {
          options,
          framework: state.framework,
          service: state.knowledge,
          root: state.root,
          relativize: state.relativize,
          progress: progressChannel(this as UnpluginBuildContext & UnpluginContext, state.framework, state.viteLogger),
        })
      }
      catch (error) {
        if (!reportExportFailure(this, error))
          throw error
      }
    },

    watchChange() {
      state.reports.clear()
      state.knowledge.reset()
      state.routes.reset()
    },

    resolveId: {
      filter: { id: OUR_IDS },
      async handler(source, importer) {
        for (const kind of kinds) {
          const id = await kind.resolveId(source, importer, this)
          if (id !== undefined)
            return id
        }
        return null
      },
    },

    load: {
      filter: { id: OUR_IDS },
      async handler(id) {
        const served = servedModule((this as { environment?: DevEnvironment }).environment, id, state)
        if (served) {
          served.files.forEach(file => this.addWatchFile(file))
          return { code: served.code, map: null }
        }
        let loaded: Loaded | undefined | null
        try {
          loaded = await loadModule(id, this)
        }
        finally {
          // Rollup and Vite throw at `this.error`: a failed load is recorded too. Only the dev server reads
          // the records: a build would hold every module's code in them until it ends, for nothing.
          if (loaded !== null && state.viteServe)
            state.dependencies.record(id, loaded)
        }
        if (loaded === null)
          return null
        if (!loaded)
          return FAILED
        watchDependencies(this, state.framework, state.viteServe !== undefined, loaded)
        return { code: loaded.code, map: null }
      },
    },

    rollup: { resolveFileUrl, renderStart },
    rolldown: {
      resolveFileUrl,
      renderStart,
      options(input) {
        state.rolldownPlatform = input.platform
      },
    },

    vite: {
      api: skillKitViteApi(state),
      resolveFileUrl,
      renderStart,
      // A server build without emitAssets drops every asset in its generateBundle; Node reads ours from beside the bundle.
      writeBundle(output, bundle) {
        const context = this as unknown as { environment?: { name: string }, getFileName: (reference: string) => string }
        const dir = output.dir ?? (output.file ? dirname(output.file) : undefined)
        if (dir)
          state.chunkAssets.writeDropped(context.environment?.name ?? '', reference => context.getFileName(reference), dir, bundle)
      },
      configResolved(config) {
        state.viteLogger = config.logger
        if (config.command === 'serve')
          state.viteServe = { base: config.base, files: new Map() }
        if (!options.root)
          state.setRoot(config.root)
      },
      // After Vite's own tags: a page's links to the knowledge cores its entry imports (`preloadHtml`).
      transformIndexHtml: {
        order: 'post',
        handler: (_html, context) => state.htmlPreloads.tags(context as HtmlContext),
      },
      configureServer(server) {
        configureDevServer(server, state)
      },
      hotUpdate(options) {
        return hotUpdateSkills(this.environment, options, state, kinds)
      },
    },

    webpack(compiler) {
      rewriteVirtualScheme(compiler, virtualId)
    },

    rspack(compiler) {
      rewriteVirtualScheme(compiler, virtualId)
    },

    esbuild: {
      onResolveFilter: OUR_IDS,
      onLoadFilter: OUR_IDS,
      loader: ESBUILD_LOADER,
      // Loads the plugin's ids before unplugin's adapter would, which drops the folders a module lists.
      setup(build) {
        loadWithWatchDirs(build, OUR_IDS, ESBUILD_LOADER, loadModule)
        writeEsbuildOutputs(build)
      },
      config(build) {
        // Snapshots are imported for their URL: esbuild copies them next to the bundle. Its `file`
        // loader needs an output path, and a build without one (skills only) must not fail for it.
        if (build.outdir || build.outfile)
          build.loader = { '.skillkit': 'file', ...build.loader }
      },
    },
  }
}

export const unplugin = /* #__PURE__ */ createUnplugin(unpluginFactory)

export default unplugin
