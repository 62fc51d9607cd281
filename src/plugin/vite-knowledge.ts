// The Vite dev server and knowledge bases: rebuilding one when its documents or settings change.

import type { ViteDevServer } from 'vite'
import type { PluginState } from './state'
import { relative, sep } from 'node:path'
import { parseKnowledgeModuleId } from './knowledge'

export function watchKnowledge(server: ViteDevServer, state: PluginState): void {
  const { knowledge } = state
  server.watcher.add(knowledge.namedFolders())

  // A document or setting of a knowledge base changed: its module builds again (unchanged windows come from the cache).
  // Hidden entries are not documents; the index, cache and models a build writes live in them (.skill-kit).
  const onKnowledgeChange = (path: string) => {
    for (const environment of Object.values(server.environments)) {
      for (const [id, module] of environment.moduleGraph.idToModuleMap) {
        const target = parseKnowledgeModuleId(id, state.root)
        const dir = target && (target.kind === 'dir' ? target.dir : knowledge.folderOf(target.name))
        if (dir && (path === dir || path.startsWith(dir + sep)) && !relative(dir, path).split(sep).some(part => part.startsWith('.'))) {
          knowledge.reset()
          void environment.reloadModule(module)
        }
      }
    }
  }
  for (const event of ['add', 'change', 'unlink', 'unlinkDir'] as const)
    server.watcher.on(event, onKnowledgeChange)
}
