import type { Plugin } from 'rolldown'
import type { Options } from './plugin'
import { unplugin } from './plugin'

/** The skill-kit plugin for Rolldown (typed with its own types, not unplugin's, which import every bundler's). */
const rolldown: (options?: Options) => Plugin | Plugin[] = unplugin.rolldown

export default rolldown
