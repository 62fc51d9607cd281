import { unplugin } from './plugin'

/** The skill-kit plugin for Rolldown. */
export default unplugin.rolldown
