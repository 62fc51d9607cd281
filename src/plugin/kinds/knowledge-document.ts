// A document's body, `<file>?knowledge-document`: imported by its knowledge module on demand.

import type { PluginState } from '../state'
import type { ModuleKind } from './kind'
import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { splitFrontmatter } from '../../core/frontmatter'
import { BODY_QUERY } from '../knowledge'
import { generateBodyModule } from '../knowledge-codegen'

export function knowledgeDocumentKind(state: PluginState): ModuleKind {
  return {
    name: 'knowledge-document',

    resolveId(source) {
      if (!source.endsWith(BODY_QUERY) || !(isAbsolute(source) || state.esbuild))
        return undefined
      // webpack and rspack resolve the file themselves and keep the query.
      return state.framework === 'webpack' || state.framework === 'rspack' ? null : source
    },

    owns: id => id.endsWith(BODY_QUERY),

    load(id, context) {
      const file = resolve(state.root, id.slice(0, -BODY_QUERY.length))
      context.addWatchFile(file)
      // The body as of the last build of its knowledge base, so that it matches the snapshot.
      const body = state.knowledge.body(file) ?? splitFrontmatter(readFileSync(file, 'utf8')).body
      return { code: generateBodyModule(body), files: [file], dirs: [] }
    },
  }
}
