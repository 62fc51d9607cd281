import type { RspackPluginInstance } from '@rspack/core'
import type { Options } from './plugin'
import { unplugin } from './plugin'

/** The skill-kit plugin for Rspack (typed with its own types, not unplugin's, which import every bundler's). */
const rspack: (options?: Options) => RspackPluginInstance = unplugin.rspack

export default rspack
