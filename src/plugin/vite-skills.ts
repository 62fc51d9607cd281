// The Vite dev server and skills: which skill and registry modules a file event makes stale.

import type { ViteDevServer } from 'vite'
import type { PluginState } from './state'
import { sep } from 'node:path'
import { registryDirs, registryId } from './kinds/registry'

export function watchSkills(server: ViteDevServer, state: PluginState): void {
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
}
