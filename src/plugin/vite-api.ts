// The plugin's Vite `api`: what other Vite plugins, tests and benchmarks use to
// follow the dev server's rebuilds of knowledge bases and routed index pages.

import type { PluginState } from './state'
import type { KnowledgeViteApi } from './knowledge'
import type { RoutesViteApi } from './routes'
import { knowledgeViteApi } from './knowledge'
import { routesViteApi } from './routes'

/** What the plugin offers as its Vite `api`. */
export interface SkillKitViteApi extends KnowledgeViteApi, RoutesViteApi {}

export function skillKitViteApi(state: PluginState): SkillKitViteApi {
  return { ...knowledgeViteApi(state), ...routesViteApi(state) }
}
