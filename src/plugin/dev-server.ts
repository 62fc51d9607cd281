// The Vite dev server's updates: who decides what a file event changes, and
// what the page gets. Every row is one place in the code.
//
// | file event                                   | who decides                                      | what the page gets                                   |
// |----------------------------------------------|--------------------------------------------------|------------------------------------------------------|
// | a skill file, a file added to or removed     | Vite's `hotUpdate` → skills/hot-update.ts, from  | the skill module patched in place (the registry's    |
// |   from a skill's or a registry's folder      |   what each module was loaded from               |   entries too); a data form (`?cover`, …) reloads    |
// | … and the new version is invalid             | skills/hot-update.ts (loads it to check)         | nothing new: the last valid module, and the overlay  |
// | … of a module the page failed to import      | skills/hot-update.ts                             | a full reload                                        |
// | a knowledge base's document or skill-kit.json| the watcher → folders/dev-rebuild.ts (a rebuild  | one update of the knowledge module once the build    |
// |                                              |   loop per folder) → knowledge/dev-server.ts     |   settles (the index swapped in place)               |
// | a routed folder's document or skill-kit.json | the same loop → routes/dev-server.ts (cache-only)| one update of the routes module (pages swapped)      |
// | … and the rebuild fails                      | folders/dev-rebuild.ts                           | the overlay; the last valid module stays served      |
// | a file the builds write (.skill-kit, caches) | folders/dev-rebuild.ts (`concerns`)              | nothing                                              |
// | any other file                               | Vite                                             | Vite's own update                                    |
//
// Below: the three watchers started, the well-known skills index served
// (`agentSkills`), and the files knowledge modules name served.

import type { ViteDevServer } from 'vite'
import type { PluginState } from './state'
import { existsSync, readFileSync } from 'node:fs'
import { serveAgentSkills } from './agent-skills'
import { watchKnowledge } from './knowledge'
import { watchRoutes } from './routes'
import { watchSkills } from './skills'

export function configureDevServer(server: ViteDevServer, state: PluginState): void {
  watchSkills(server, state)
  watchKnowledge(server, state)
  watchRoutes(server, state)
  serveAgentSkills(server, state)

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
