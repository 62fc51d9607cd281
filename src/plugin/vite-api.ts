// The plugin's Vite `api`: what other Vite plugins, tests and benchmarks use to
// follow the dev server's rebuilds of knowledge bases and routed index pages.

import type { PluginState } from './state'
import type { KnowledgeViteApi } from './knowledge/dev-server'
import type { RoutesViteApi } from './routes/dev-server'
import { knowledgeViteApi } from './knowledge/dev-server'
import { routesViteApi } from './routes/dev-server'

/** What the plugin offers as its Vite `api`. */
export interface SkillKitViteApi extends KnowledgeViteApi, RoutesViteApi {}

export function skillKitViteApi(state: PluginState): SkillKitViteApi {
  return { ...knowledgeViteApi(state), ...routesViteApi(state) }
}
