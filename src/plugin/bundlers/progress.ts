// Where a knowledge build's progress lines go: each bundler's own channel for
// information, so they show (or stay hidden) as the user set that bundler's
// logging.

import type { UnpluginBuildContext, UnpluginContext } from 'unplugin'
import { PROGRESS_PREFIX } from '../../knowledge/progress'

/** Receives a progress line, without a line break. */
export type ProgressWrite = (line: string) => void

/** What the plugin needs of Vite's logger (`config.logger`, which applies `logLevel` and `customLogger`). */
export interface InfoLogger {
  info: (message: string) => void
}

/** The name webpack and rspack print before the plugin's lines, and that `infrastructureLogging.debug` filters on. */
export const LOGGER_NAME = 'unplugin-skill-kit'

/** esbuild levels under which information is not shown; esbuild itself prints its summary from `info`. */
const ESBUILD_QUIET = new Set(['silent', 'error', 'warning'])

/**
 * The channel of this bundler, or `undefined` where there is none:
 * - Vite: its logger (`logLevel`, `customLogger`);
 * - Rollup, rolldown: `this.info` (shown at their default `logLevel: 'info'`; the bundler names the plugin);
 * - webpack, rspack: the infrastructure logger (`infrastructureLogging.level`, default `'info'`);
 * - esbuild, which has no channel for plugins: stderr, unless `logLevel` is `silent`, `error` or `warning`.
 */
export function progressChannel(context: UnpluginBuildContext & UnpluginContext, framework: string, viteLogger: InfoLogger | undefined): ProgressWrite | undefined {
  if (framework === 'vite')
    return viteLogger && (line => viteLogger.info(`${PROGRESS_PREFIX}${line}`))
  if (framework === 'rollup' || framework === 'rolldown') {
    const native = context as unknown as { info?: (message: string) => void }
    return native.info && (line => native.info!(line))
  }
  const native = context.getNativeBuildContext?.()
  if (native?.framework === 'webpack' || native?.framework === 'rspack') {
    const logger = native.compiler.getInfrastructureLogger(LOGGER_NAME)
    return line => logger.info(line)
  }
  if (native?.framework === 'esbuild') {
    const level = native.build.initialOptions.logLevel
    return level && ESBUILD_QUIET.has(level) ? undefined : line => process.stderr.write(`${PROGRESS_PREFIX}${line}\n`)
  }
  return undefined
}
