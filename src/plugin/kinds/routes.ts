// Routed index pages as modules: `virtual:skill-kit/knowledge/<name>/routes` and
// `./folder?routes`, exporting `{ skill, pages, catalog, llmsTxt, cards }`.

import type { PluginState } from '../state'
import type { ModuleKind } from './kind'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { formatDiagnostic } from '../../core/diagnostics'
import { closest } from '../../core/text'
import { openKnowledgeProject } from '../../knowledge/project'
import { RoutingError } from '../../routing/client'
import { routeKnowledgeProject } from '../../routing/project'
import { bundlerMessage } from '../bundler-message'
import { KNOWLEDGE_PREFIX } from '../knowledge'
import { folderImportPath, folderModuleIds } from '../folder-ids'
import { importedFolder } from './knowledge'

const ROUTES_SUFFIX = '/routes'
const routesIds = folderModuleIds('routes')
const routesModuleId = routesIds.id
const parseRoutesModuleId = routesIds.parse

/** The resolved id of `virtual:skill-kit/knowledge/<name>/routes`. */
export function namedRoutesId(state: PluginState, request: string): string | undefined {
  if (!request.startsWith(KNOWLEDGE_PREFIX) || !request.endsWith(ROUTES_SUFFIX))
    return undefined
  return routesModuleId({ kind: 'name', name: request.slice(KNOWLEDGE_PREFIX.length, -ROUTES_SUFFIX.length) }, state.esbuild, state.root)
}

export function routesKind(state: PluginState): ModuleKind {
  return {
    name: 'routes',

    resolveId(source, importer) {
      const named = namedRoutesId(state, source)
      if (named)
        return named
      if (parseRoutesModuleId(source, state.root))
        return source
      const folder = folderImportPath(source, 'routes')
      if (folder === undefined)
        return undefined
      return routesModuleId({ kind: 'dir', dir: importedFolder(folder, importer, state.root) }, state.esbuild, state.root)
    },

    owns: id => parseRoutesModuleId(id, state.root) !== undefined,

    async load(id, context) {
      const target = parseRoutesModuleId(id, state.root)!
      const dir = target.kind === 'dir' ? target.dir : state.knowledge.folderOf(target.name)
      if (dir === undefined) {
        const name = target.kind === 'name' ? target.name : ''
        const guess = closest(name, state.knowledge.names)
        context.error(`No knowledge base is named "${name}".${guess ? ` Did you mean "${guess}"?` : ''} Name it in the plugin options: knowledge: { ${JSON.stringify(name)}: './folder' }.`)
        return undefined
      }
      const label = `Routed index pages of ${state.relativize(dir)}`
      const watch = [join(dir, 'skill-kit.json')]
      const opened = openKnowledgeProject(dir, { root: state.root })
      const fail = (message: string, at?: Parameters<typeof bundlerMessage>[2]) => {
        for (const file of watch) {
          if (state.framework !== 'vite' || (existsSync(file) && statSync(file).isFile()))
            context.addWatchFile(file)
        }
        context.error(bundlerMessage(state.framework, message, at))
        return undefined
      }
      if (!opened.project) {
        const errors = opened.diagnostics.filter(d => d.severity === 'error')
        return fail(`${label} cannot be built. Fix its settings:\n\n${errors.map(d => formatDiagnostic(d, state.relativize)).join('\n')}`, errors[0])
      }
      // The LLM router only when a routing model is configured (skill-kit.json or SKILL_KIT_LLM_MODEL); the offline router otherwise.
      let routes
      try {
        routes = await routeKnowledgeProject(opened.project)
      }
      catch (error) {
        if (error instanceof RoutingError)
          return fail(`${label}: ${error.message}`)
        throw error
      }
      if ('diagnostics' in routes) {
        watch.push(...routes.files)
        const errors = routes.diagnostics.filter(d => d.severity === 'error')
        return fail(`${label}: fix the invalid documents:\n\n${errors.map(d => formatDiagnostic(d, state.relativize)).join('\n')}`, errors[0])
      }
      const knowledge = opened.project.config.knowledge
      // Registered with the bundler by the plugin (see watch.ts): the settings, every document, and the folder for added ones.
      const files = [...watch, ...Object.values(routes.cards).map(card => join(knowledge, ...card.path.split('/')))]
      const json = (value: unknown) => JSON.stringify(value)
      const code = [
        `export const skill = ${json(routes.skill)}`,
        `export const pages = ${json(routes.pages)}`,
        `export const catalog = ${json(routes.catalog)}`,
        `export const llmsTxt = ${json(routes.llmsTxt)}`,
        `export const cards = ${json(routes.cards)}`,
        'export default { skill, pages, catalog, llmsTxt, cards }',
        '',
      ].join('\n')
      return { code, files, dirs: [knowledge] }
    },
  }
}
