import type { WebpackPluginInstance } from 'webpack'
import type { Options } from './plugin'
import { unplugin } from './plugin'

/** The skill-kit plugin for Webpack (typed with its own types, not unplugin's, which import every bundler's). */
const webpack: (options?: Options) => WebpackPluginInstance = unplugin.webpack

export default webpack
