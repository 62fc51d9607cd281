// The Vite dev server: which modules a file event makes stale, and the files knowledge modules name.

import type { ViteDevServer } from 'vite'
import type { PluginState } from './state'
import { existsSync, readFileSync } from 'node:fs'
import { relative, sep } from 'node:path'
import { parseKnowledgeModuleId } from './knowledge'
import { registryDirs, registryId } from './kinds/registry'

export function configureDevServer(server: ViteDevServer, state: PluginState): void {
  const { knowledge } = state
  // A skill added, removed, renamed or edited changes what the registry lists.
  const dirs = registryDirs(state)
  server.watcher.add(dirs)
  const onChange = (path: string) => {
    if (!dirs.some(dir => path.startsWith(dir + sep)))
      return
    for (const environment of Object.values(server.environments)) {
      const module = environment.moduleGraph.getModuleById(registryId(state))
      if (module)
        void environment.reloadModule(module)
    }
  }
  for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const)
    server.watcher.on(event, onChange)
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

  // Snapshots and (with includeModel) model files, as the knowledge modules named them.
  server.middlewares.use((request, response, next) => {
    const { viteServe } = state
    const path = request.url?.split('?')[0] ?? ''
    const file = viteServe && path.startsWith(viteServe.base) ? viteServe.files.get(path.slice(viteServe.base.length)) : undefined
    if (!file || !existsSync(file))
      return next()
    response.setHeader('Content-Type', file.endsWith('.json') ? 'application/json' : file.endsWith('.mjs') ? 'text/javascript' : file.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream')
    response.setHeader('Cache-Control', 'no-cache')
    response.end(readFileSync(file))
  })
}
