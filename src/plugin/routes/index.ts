// Routed index pages: `virtual:skill-kit/knowledge/<name>/routes` and
// `./folder?routes`, the dev server's rebuilds, and the Vite `api` that
// follows them.

export { routesViteApi, watchRoutes } from './dev-server'
export type { RoutesRebuildEvent, RoutesViteApi } from './dev-server'
export { routesKind } from './routes-kind'
