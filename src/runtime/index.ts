// The whole runtime; its two rooms, `./skill` and `./knowledge`, are importable alone
// (unplugin-skill-kit/runtime/skill, unplugin-skill-kit/runtime/knowledge).
export * from './knowledge'
export type { OnRoutesUpdate, RouteCard, RoutesModule } from './routes'
export * from './skill'
