import type { Plugin } from 'rollup'
import type { Options } from './plugin'
import { unplugin } from './plugin'

/** The skill-kit plugin for Rollup (typed with its own types, not unplugin's, which import every bundler's). */
const rollup: (options?: Options) => Plugin | Plugin[] = unplugin.rollup

export default rollup
