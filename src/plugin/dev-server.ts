// The Vite dev server: watching for skills, knowledge bases and routed index pages, and serving the files knowledge modules name.

import type { ViteDevServer } from 'vite'
import type { PluginState } from './state'
import { existsSync, readFileSync } from 'node:fs'
import { watchKnowledge } from './knowledge/dev-server'
import { watchRoutes } from './routes/dev-server'
import { watchSkills } from './skills/hot-update'

export function configureDevServer(server: ViteDevServer, state: PluginState): void {
  watchSkills(server, state)
  watchKnowledge(server, state)
  watchRoutes(server, state)

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
