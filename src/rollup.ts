import { unplugin } from './plugin'

/** The skill-kit plugin for Rollup. */
export default unplugin.rollup
