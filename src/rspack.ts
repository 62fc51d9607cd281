import { unplugin } from './plugin'

/** The skill-kit plugin for Rspack. */
export default unplugin.rspack
