// The unplugin: the module kinds of each feature, asked in turn for every id,
// over one bundler adapter. What the plugin serves, and where each is made:
//
// | import                                        | kind               | room                        |
// |-----------------------------------------------|--------------------|-----------------------------|
// | virtual:skill-kit/skills                      | registry           | skills/registry-kind.ts     |
// | virtual:skill-kit/knowledge/<name>/routes,    | routes             | routes/routes-kind.ts       |
// |   ./folder?routes                             |                    |                             |
// | virtual:skill-kit/knowledge/<name>,           | knowledge          | knowledge/knowledge-kind.ts |
// |   ./folder?knowledge                          |                    |                             |
// | (a knowledge module's document bodies)        | knowledge-document | knowledge/document-kind.ts  |
// | x/SKILL.md and its ?cover, ?sections,         | skill              | skills/skill-kind.ts        |
// |   ?section=<id>, ?meta                        |                    |                             |
//
// Exports (`knowledge.<name>.export`) are written at build start: export/;
// then the well-known skills index and llms.txt (`agentSkills`): agent-skills/.
// Bundler quirks: bundlers/ (one adapter per bundler, chosen here once).
// The dev server's updates: dev-server.ts.

import type { UnpluginFactory } from 'unplugin'
import type { DevEnvironment } from 'vite'
import type { FileUrlRequest } from './bundlers/chunk-assets'
import type { EmittedExport } from './export'
import type { HookContext, Loaded, LoadModule, ModuleKind } from './kind'
import type { HtmlContext } from './knowledge/html-preloads'
import type { Options } from './options'
import { dirname, resolve } from 'node:path'
import { createUnplugin } from 'unplugin'
import { emitAgentSkills } from './agent-skills'
import { bundlerAdapter } from './bundlers'
import { configureDevServer } from './dev-server'
import { assertExportsOutsideKnowledge, emitKnowledgeExports, reportExportFailure } from './export'
import { knowledgeDocumentKind, knowledgeKind } from './knowledge'
import { FAILED_MODULE } from './reports'
import { routesKind } from './routes'
import { hotUpdateSkills, REGISTRY_ID, registryKind, servedModule, skillKind } from './skills'
import { PluginState } from './state'
import { validateOptions } from './validate-options'
import { skillKitViteApi } from './vite-api'

export type { AgentSkillsOptions, FilterPattern, KnowledgeExportOptions, KnowledgeOptions, Options } from './options'
export type { SkillKitViteApi } from './vite-api'
export type { KnowledgeRebuildEvent } from './knowledge'
export type { RoutesRebuildEvent } from './routes'
export { REGISTRY_ID }

/** The plugin's module kinds, in the order they are asked: a registry or knowledge id is never a skill's. */
function moduleKinds(state: PluginState): ModuleKind[] {
  return [registryKind(state), routesKind(state), knowledgeKind(state), knowledgeDocumentKind(state), skillKind(state)]
}

/** Every `virtual:skill-kit/…` import is the plugin's to resolve (or to leave unresolved). */
const VIRTUAL_SCHEME = 'virtual:skill-kit\\/'

/**
 * What `load` returns after `this.error`. Some bundlers throw there; others
 * only record the error, and would otherwise parse the raw Markdown as
 * JavaScript.
 */
const FAILED = { code: FAILED_MODULE }

export const unpluginFactory: UnpluginFactory<Options | undefined> = (options = {}, meta) => {
  // Before anything reads them: a wrong shape is one error naming every problem, in every bundler.
  validateOptions(options)
  const bundler = bundlerAdapter(meta.framework)
  const state = new PluginState(options, bundler)
  const kinds = moduleKinds(state)
  /** Every id a kind may own, so that bundlers call the plugin for nothing else. */
  const ids = new RegExp([VIRTUAL_SCHEME, ...kinds.map(kind => kind.ids.source)].join('|'), 'i')
  const resolveFileUrl = (request: FileUrlRequest) => state.chunkAssets.resolveFileUrl(request) ?? null
  /** The resolved id of a `virtual:skill-kit/…` import. */
  const virtualId = (request: string) => {
    for (const kind of kinds) {
      const id = kind.virtualId?.(request)
      if (id !== undefined)
        return id
    }
    return undefined
  }
  const loadModule: LoadModule = async (id, context) => {
    const kind = kinds.find(k => k.owns(id))
    return kind ? kind.load(id, context) : null
  }

  /** The exported folders of this build that the bundler places once its output folder is known (`renderStart`). */
  let pendingExports: Parameters<typeof assertExportsOutsideKnowledge>[1] = []
  /** Refuses, before anything is written, an export that the output folder (relative to the working folder, as the bundler writes it) puts inside its knowledge folder. */
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
        const exported: EmittedExport[] = []
        pendingExports = await emitKnowledgeExports(this, {
          options,
          bundler,
          service: state.knowledge,
          root: state.root,
          relativize: state.relativize,
          progress: bundler.progress(this as HookContext, state.viteLogger),
          exported: options.agentSkills ? folder => exported.push(folder) : undefined,
        })
        emitAgentSkills(this, state, exported)
      }
      catch (error) {
        if (!reportExportFailure(this, bundler, error))
          throw error
      }
    },

    watchChange() {
      state.reports.clear()
      state.knowledge.reset()
      state.routes.reset()
    },

    resolveId: {
      filter: { id: ids },
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
      filter: { id: ids },
      handler(id) {
        const served = servedModule((this as { environment?: DevEnvironment }).environment, id, state)
        if (served) {
          served.files.forEach(file => this.addWatchFile(file))
          return { code: served.code, map: null }
        }
        const kind = kinds.find(k => k.owns(id))
        if (!kind)
          return null
        // A bundler that throws at `this.error` records a failed load too. Only the dev server reads
        // the records: a build would hold every module's code in them until it ends, for nothing.
        const failed = (error: unknown): never => {
          if (state.viteServe)
            state.dependencies.record(id, undefined)
          throw error
        }
        const done = (loaded: Loaded | undefined) => {
          if (state.viteServe)
            state.dependencies.record(id, loaded)
          if (!loaded)
            return FAILED
          bundler.watchDependencies(this, state.viteServe !== undefined, loaded)
          return { code: loaded.code, map: null }
        }
        // Skills load synchronously, and a value answers the bundler sooner than a promise (no await a module).
        let loading: ReturnType<ModuleKind['load']>
        try {
          loading = kind.load(id, this)
        }
        catch (error) {
          return failed(error)
        }
        return loading instanceof Promise ? loading.then(done, failed) : done(loading)
      },
    },

    ...bundler.hooks({ ids, load: loadModule, virtualId, resolveFileUrl, renderStart }),

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
        // Set for each Vite run: Astro runs a dev server (its content sync) and then builds with the same plugin.
        state.viteServe = config.command === 'serve' ? { base: config.base, files: new Map() } : undefined
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
  }
}

export const unplugin = /* #__PURE__ */ createUnplugin(unpluginFactory)

export default unplugin
