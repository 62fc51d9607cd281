import { unplugin } from './plugin'

/** The skill-kit plugin for Esbuild. */
export default unplugin.esbuild
