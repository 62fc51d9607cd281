// Routed index pages as modules: `virtual:skill-kit/knowledge/<name>/routes` and
// `./folder?routes`, exporting `{ skill, pages, catalog, llmsTxt, cards }` and `onUpdate`.

import type { PluginState } from '../state'
import type { ModuleKind } from '../kind'
import { failFolderModule } from '../folders/builds'
import { folderModuleIds, resolveFolderImport } from '../folders/ids'
import { KNOWLEDGE_PREFIX } from '../knowledge/ids'
import { generateRoutesModule } from './codegen'

const ROUTES_SUFFIX = '/routes'
const routesIds = folderModuleIds('routes')
/** The id a routes module resolves to in this bundler. */
export const routesModuleId = routesIds.id
const parseRoutesModuleId = routesIds.parse

/** The resolved id of `virtual:skill-kit/knowledge/<name>/routes`. */
export function namedRoutesId(state: PluginState, request: string): string | undefined {
  if (!request.startsWith(KNOWLEDGE_PREFIX) || !request.endsWith(ROUTES_SUFFIX))
    return undefined
  return routesModuleId({ kind: 'name', name: request.slice(KNOWLEDGE_PREFIX.length, -ROUTES_SUFFIX.length) }, state.bundler.idsAsFiles, state.root)
}

export function routesKind(state: PluginState): ModuleKind {
  return {
    name: 'routes',
    ids: /\?routes(?:&.*)?$|skill-kit-routes[:_]/,
    virtualId: request => namedRoutesId(state, request),

    resolveId: (source, importer) => resolveFolderImport(source, importer, { ids: routesIds, query: 'routes', named: namedRoutesId(state, source) }, { asFile: state.bundler.idsAsFiles, root: state.root }),

    owns: id => parseRoutesModuleId(id, state.root) !== undefined,

    async load(id, context) {
      const target = parseRoutesModuleId(id, state.root)!
      const devServer = state.viteServe !== undefined
      // Background rebuilds never ask a routing model: the dev server and watch sessions route from its cache only.
      const outcome = await state.routes.build(target, { cacheOnly: devServer || state.bundler.watchSession(context) })
      if (!outcome.ok)
        return failFolderModule(context, state, outcome)
      // The dev server's terminal gets it from the service, once per change of it.
      if (outcome.warning && !devServer && state.reports.firstWarning(outcome.warning))
        context.warn(outcome.warning)
      const code = generateRoutesModule(outcome.routes, devServer)
      if (devServer)
        return { code, files: [], dirs: [] }
      // Registered with the bundler by the plugin (see index.ts): the settings, every document, and the folder for added ones.
      return { code, files: outcome.files, dirs: outcome.dirs }
    },
  }
}
