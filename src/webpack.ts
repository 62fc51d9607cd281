import { unplugin } from './plugin'

/** The skill-kit plugin for Webpack. */
export default unplugin.webpack
