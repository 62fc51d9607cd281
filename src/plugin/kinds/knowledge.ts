// Knowledge modules: `virtual:skill-kit/knowledge/<name>` and `./folder?knowledge`.

import type { PluginState } from '../state'
import type { ModuleKind } from './kind'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { existsSync } from 'node:fs'
import { KNOWLEDGE_PREFIX, knowledgeImportPath, knowledgeModuleId, parseKnowledgeModuleId } from '../knowledge'
import { loadKnowledgeModule } from '../knowledge-load'
import { progressChannel } from '../progress'

/** The resolved id of `virtual:skill-kit/knowledge/<name>` (not of `…/<name>/routes`, the routes kind's). */
export function namedKnowledgeId(state: PluginState, request: string): string | undefined {
  return request.startsWith(KNOWLEDGE_PREFIX) && !request.endsWith('/routes') ? knowledgeModuleId({ kind: 'name', name: request.slice(KNOWLEDGE_PREFIX.length) }, state.esbuild, state.root) : undefined
}

/**
 * The folder of a `<folder>?knowledge` (or `?routes`) import: relative to its
 * importer when it starts with `.`; else to the root, as Vite reads
 * `/docs` (an absolute path that exists stays as it is).
 */
export function importedFolder(folder: string, importer: string | undefined, root: string): string {
  if (folder.startsWith('.') || folder === '')
    return resolve(importer ? dirname(importer.split('?')[0]!) : root, folder || '.')
  return isAbsolute(folder) && !existsSync(folder) ? join(root, folder) : resolve(root, folder)
}

export function knowledgeKind(state: PluginState): ModuleKind {
  return {
    name: 'knowledge',

    resolveId(source, importer) {
      const named = namedKnowledgeId(state, source)
      if (named)
        return named
      if (parseKnowledgeModuleId(source, state.root))
        return source
      const folder = knowledgeImportPath(source)
      if (folder === undefined)
        return undefined
      return knowledgeModuleId({ kind: 'dir', dir: importedFolder(folder, importer, state.root) }, state.esbuild, state.root)
    },

    owns: id => parseKnowledgeModuleId(id, state.root) !== undefined,

    load(id, context) {
      return loadKnowledgeModule(context, parseKnowledgeModuleId(id, state.root)!, {
        service: state.knowledge,
        framework: state.framework,
        viteServe: state.viteServe,
        relativize: state.relativize,
        reports: state.reports,
        runtime: state.runtime('runtime-knowledge.mjs'),
        chunkAssets: state.chunkAssets,
        rolldownPlatform: state.rolldownPlatform,
        progress: progressChannel(context, state.framework, state.viteLogger),
      })
    },
  }
}
