// Knowledge modules: `virtual:skill-kit/knowledge/<name>` and `./folder?knowledge`.

import type { PluginState } from '../state'
import type { ModuleKind } from '../kind'
import { resolveFolderImport } from '../folders/ids'
import { KNOWLEDGE_PREFIX, knowledgeIds, knowledgeModuleId, parseKnowledgeModuleId } from './ids'
import { loadKnowledgeModule } from './load'

/** The resolved id of `virtual:skill-kit/knowledge/<name>` (not of `…/<name>/routes`, the routes kind's). */
export function namedKnowledgeId(state: PluginState, request: string): string | undefined {
  return request.startsWith(KNOWLEDGE_PREFIX) && !request.endsWith('/routes') ? knowledgeModuleId({ kind: 'name', name: request.slice(KNOWLEDGE_PREFIX.length) }, state.bundler.idsAsFiles, state.root) : undefined
}

export function knowledgeKind(state: PluginState): ModuleKind {
  return {
    name: 'knowledge',
    ids: /\?knowledge(?:&.*)?$|skill-kit-knowledge[:_]/,
    virtualId: request => namedKnowledgeId(state, request),

    resolveId: (source, importer) => resolveFolderImport(source, importer, { ids: knowledgeIds, query: 'knowledge', named: namedKnowledgeId(state, source) }, { asFile: state.bundler.idsAsFiles, root: state.root }),

    owns: id => parseKnowledgeModuleId(id, state.root) !== undefined,

    load(id, context) {
      return loadKnowledgeModule(context, parseKnowledgeModuleId(id, state.root)!, {
        service: state.knowledge,
        bundler: state.bundler,
        viteServe: state.viteServe,
        relativize: state.relativize,
        reports: state.reports,
        runtime: state.runtime('runtime-knowledge.mjs'),
        chunkAssets: state.chunkAssets,
        htmlPreloads: state.htmlPreloads,
        moduleId: id,
        progress: state.bundler.progress(context, state.viteLogger),
      })
    },
  }
}
