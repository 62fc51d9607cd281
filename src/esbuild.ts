import type { Plugin } from 'esbuild'
import type { Options } from './plugin'
import { unplugin } from './plugin'

/** The skill-kit plugin for esbuild (typed with its own types, not unplugin's, which import every bundler's). */
const esbuild: (options?: Options) => Plugin = unplugin.esbuild

export default esbuild
