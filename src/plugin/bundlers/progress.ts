// Where a knowledge build's progress lines go: each bundler's own channel for
// information, so they show (or stay hidden) as the user set that bundler's
// logging. The adapters (`adapter.ts`, `progress`) pick the channel:
// - Vite: its logger (`logLevel`, `customLogger`);
// - Rollup, Rolldown: `this.info` (shown at their default `logLevel: 'info'`; the bundler names the plugin);
// - webpack, rspack: the infrastructure logger (`infrastructureLogging.level`, default `'info'`);
// - esbuild, which has no channel for plugins: stderr, unless `logLevel` is `silent`, `error` or `warning`.

/** Receives a progress line, without a line break. */
export type ProgressWrite = (line: string) => void

/** What the plugin needs of Vite's logger (`config.logger`, which applies `logLevel` and `customLogger`). */
export interface InfoLogger {
  info: (message: string) => void
}
