import { unplugin } from './plugin'

/** The skill-kit plugin for Vite. */
export default unplugin.vite
