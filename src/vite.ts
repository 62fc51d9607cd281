import type { Plugin } from 'vite'
import type { Options } from './plugin'
import { unplugin } from './plugin'

/** The skill-kit plugin for Vite (typed with its own types, not unplugin's, which import every bundler's). */
const vite: (options?: Options) => Plugin | Plugin[] = unplugin.vite

export default vite
