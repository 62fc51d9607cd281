// A document's body, `<file>?knowledge-document` (the dev server's: versioned, see `devBodyId`): imported by its knowledge module on demand.

import type { PluginState } from '../state'
import type { ModuleKind } from '../kind'
import { readFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { splitFrontmatter } from '../../core/frontmatter'
import { BODY_QUERY, buildBodyFile, buildBodyId, devBodyVersion } from './ids'
import { generateBodyModule } from './codegen'

export function knowledgeDocumentKind(state: PluginState): ModuleKind {
  return {
    name: 'knowledge-document',
    // Within the skill kind's `.md` ids and the knowledge kind's prefix.
    ids: /\.md\?knowledge-document$|skill-kit-knowledge:(?:document|body):/,

    resolveId(source) {
      if (devBodyVersion(source))
        return source
      if (!source.endsWith(BODY_QUERY) || !(isAbsolute(source) || state.bundler.idsAsFiles))
        return undefined
      // A bundler that resolves the file itself keeps the query; one whose ids are files keeps it too.
      if (state.bundler.resolvesQueriedFiles)
        return null
      return state.bundler.idsAsFiles ? source : buildBodyId(source.slice(0, -BODY_QUERY.length), state.root)
    },

    owns: id => id.endsWith(BODY_QUERY) || buildBodyFile(id, state.root) !== undefined || devBodyVersion(id) !== undefined,

    load(id, context) {
      const version = devBodyVersion(id)
      if (version !== undefined) {
        // The dev server's watcher rebuilds the knowledge base: the body of this version, whatever the file says now.
        const body = state.knowledge.bodyOfVersion(version)
        if (body === undefined) {
          context.error(state.bundler.message(`${id.slice(1)} is a document body of an index this dev server never built (it restarted since): reload the page.`, undefined))
          return undefined
        }
        return { code: generateBodyModule(body), files: [], dirs: [] }
      }
      const file = buildBodyFile(id, state.root) ?? resolve(state.root, id.slice(0, -BODY_QUERY.length))
      context.addWatchFile(file)
      // The body as of the last build of its knowledge base, so that it matches the snapshot.
      const body = state.knowledge.body(file) ?? splitFrontmatter(readFileSync(file, 'utf8')).body
      return { code: generateBodyModule(body), files: [file], dirs: [] }
    },
  }
}
