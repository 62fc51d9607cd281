import type { Options } from './plugin'
import { unplugin as plugins } from './plugin'

export type { FilterPattern, Options } from './plugin'
export { compileSkill } from './skill/compile'
export type { CompiledSkill, CompileOptions, OnInvalid, SkillInput } from './skill/compile'
export { SkillLoader } from './skill/load'
export type { Diagnostic, Severity } from './core/diagnostics'

// This entry's types name neither unplugin nor a bundler: unplugin's types import every
// bundler's (farm, bun, rsbuild, …), which a project has not installed, so its `tsc` would
// fail without skipLibCheck. Each bundler's entry (`unplugin-skill-kit/vite`, …) gives
// its plugin that bundler's type.

/** A plugin for one bundler, as its entry (`unplugin-skill-kit/<bundler>`) types it. */
export type BundlerPlugin = (options?: Options) => unknown

/** The skill-kit plugin of each bundler; prefer the bundler's entry, which types it. */
export interface SkillKitPlugins {
  vite: BundlerPlugin
  rollup: BundlerPlugin
  rolldown: BundlerPlugin
  esbuild: BundlerPlugin
  webpack: BundlerPlugin
  rspack: BundlerPlugin
}

/** The skill-kit plugin of each bundler. */
export const unplugin: SkillKitPlugins = plugins

export default unplugin
