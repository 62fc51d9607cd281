import type { Diagnostic } from '../../core/diagnostics'
import type { KnowledgeBuildFailure } from '../../knowledge/build'
import type { KnowledgeProgress } from '../../knowledge/progress'
import type { KnowledgeProject, ProjectBuild, StaleProjectBuild } from '../../knowledge/project'
import type { RebuildContext } from '../../knowledge/rebuild-loop'
import type { Command } from '../command'
import type { CliIo } from '../io'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { knowledgeProgressReporter, PROGRESS_PREFIX } from '../../knowledge/progress'
import { buildKnowledgeProject, hasModel, openKnowledgeProject } from '../../knowledge/project'
import { queryTableSource } from '../../knowledge/project-query-table'
import { RebuildLoop } from '../../knowledge/rebuild-loop'
import { watchKnowledgeProject } from '../../knowledge/watch-folder'
import { flag, PROJECT_HELP, PROJECT_OPTION, stringOption } from '../command'
import { CliError } from '../io'
import { countDiagnostics, displayPath, renderDiagnostics } from '../report'
import { loadEmbedder } from './embedder'
import { openCliProject, printDiagnostics } from './project'
import { progressBar } from './progress'

/** The change label of the build `skill-kit watch` starts with. */
const START = ''
/**
 * The change label of a build that makes the query table of the documents as
 * they are: other builds keep the published table (distilling one takes
 * seconds), so that an edit is published at once; this one follows them.
 */
const TABLE = '\0query table'

/** Thrown into a build that Ctrl+C interrupted: it ends before publishing anything. */
class BuildAbandoned extends Error {}

/** What one build of the watcher ended with. */
type WatchBuild =
  | { settings: Diagnostic[], ms: number }
  | { project: KnowledgeProject, result: ProjectBuild | KnowledgeBuildFailure | StaleProjectBuild, warnings: Diagnostic[], ms: number }

/** `guides/a.md changed`, `3 files changed`, `first build`: the start of a rebuild's line. */
function describeChanges(changes: readonly string[]): string {
  if (changes.includes(START))
    return 'first build'
  const files = changes.filter(change => change !== TABLE)
  if (files.length === 0)
    return 'query table'
  return files.length === 1 ? `${files[0]} changed` : `${files.length} files changed`
}

/** Whether a build only makes the query table again (nothing changed since the last one published). */
const tableOnly = (changes: readonly string[]) => changes.every(change => change === TABLE)

const counted = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** `12 documents, 30 chunks, 40 windows (3 embedded, 37 cached)`, or `12 documents, 30 chunks (no model)`: the words and numbers of `skill-kit build`. */
function describeIndex(project: KnowledgeProject, build: ProjectBuild): string {
  const counts = `${counted(build.documents.length, 'document')}, ${counted(build.chunks.length, 'chunk')}`
  if (!hasModel(project))
    return `${counts} (no model)`
  return `${counts}, ${counted(build.stats.windows, 'window')} (${build.stats.embedded} embedded, ${build.stats.cached} cached)`
}

/** Windows to embed from which a build is worth announcing off a terminal: one batch, seconds on a CPU. */
const ANNOUNCED_WINDOWS = 64

/**
 * Progress of one build on stderr: the bar on a terminal; elsewhere, for a
 * build that embeds at least {@link ANNOUNCED_WINDOWS} windows, the plugin's
 * lines (what is cached and what to embed, then windows embedded, throttled).
 * Smaller builds print nothing there: the rebuild's own line says it all.
 */
function watchProgress(io: CliIo, name: string): { onProgress: (event: KnowledgeProgress) => void, done: () => void } {
  if (io.errIsTTY) {
    const bar = progressBar(io, 'Embedding')
    return { onProgress: event => event.phase === 'embed' && bar.update(event.done, event.total, event.inFlight), done: bar.done }
  }
  let announced = false
  let phase: KnowledgeProgress['phase'] | undefined
  const report = knowledgeProgressReporter(name, {
    write: line => announced && phase !== 'done' && io.err(`${PROGRESS_PREFIX}${line}\n`),
    now: () => performance.now(),
  })
  return {
    onProgress: (event) => {
      if (event.phase === 'read')
        announced = event.windows - event.cached >= ANNOUNCED_WINDOWS
      phase = event.phase
      report(event)
    },
    done: () => {},
  }
}

/** Resolves on the first SIGINT or SIGTERM. */
function stopSignal(): { stopped: Promise<void>, dispose: () => void } {
  let stop!: () => void
  const stopped = new Promise<void>(resolve => (stop = resolve))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return { stopped, dispose: () => {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
  } }
}

/** `skill-kit watch`: builds, then rebuilds and publishes on every change until Ctrl+C. */
export const watchCommand: Command = {
  name: 'watch',
  summary: '  watch                 Build, then rebuild and publish the index on every change',
  usage: `Usage: skill-kit watch [options]

Builds the project's index, then watches its knowledge folder and
skill-kit.json and rebuilds after every change: once a burst of changes has
been quiet for watch.settleMs (50 ms by default), one build at a time. A build
during which something changed is not published; one more build follows.
A rebuild keeps the published query table (the static query encoder's, whose
distillation takes seconds), so that an edit is published at once; when that
table was made for earlier documents, one more build ("query table") makes it
for the documents as they are; a change meanwhile stops it at its next step,
and the change is built next.
Prints one line per build on stdout: what changed, then what was published
(documents, chunks, and windows embedded and cached) and how long it took, or why nothing
was. Invalid documents or settings are reported on stderr with file:line:col,
and the last good index stays published. Ctrl+C stops (exit 0); a build still
running then stops at its next batch of windows and publishes nothing.

Options:
  --offline             Never download the model; fail when its files are missing
${PROJECT_HELP}`,
  options: { ...PROJECT_OPTION, offline: { type: 'boolean' } },
  maxPositionals: 0,
  async run(args, io) {
    const first = openCliProject(args, io)
    const dir = first.dir
    const root = resolve(stringOption(args, 'root') ?? '.')
    const offline = flag(args, 'offline')
    const signal = stopSignal()
    let stopping = false
    /** The settings' warnings last shown (openCliProject showed the first), so that each is shown once, not with every build. */
    let settingsWarnings = renderDiagnostics(openKnowledgeProject(dir, { root }).diagnostics)
    const line = (text: string) => io.out(`${text}\n`)

    const watched = (project: KnowledgeProject) => ({ knowledge: project.config.knowledge, configFile: project.configFile })
    const watcher = watchKnowledgeProject(watched(first), label => loop.change(label))
    const build = async (context: RebuildContext): Promise<WatchBuild> => {
      const started = performance.now()
      // A project that lost its skill-kit.json is not a bare folder of Markdown all of a sudden.
      if (first.configFile && !existsSync(first.configFile))
        throw new CliError(`${displayPath(first.configFile)} was removed: put it back.`)
      // Read again every time: skill-kit.json may have changed, and a later fix must be seen.
      const opened = openKnowledgeProject(dir, { root })
      if (!opened.project)
        return { settings: opened.diagnostics, ms: performance.now() - started }
      const project = opened.project
      watcher.follow(watched(project))
      const embedder = hasModel(project) ? await loadEmbedder(project, offline) : undefined
      const progress = watchProgress(io, project.config.name)
      const onProgress = (event: KnowledgeProgress) => {
        // Stopping: leave off embedding at the next batch rather than finish a build nobody publishes.
        if (stopping)
          throw new BuildAbandoned()
        progress.onProgress(event)
      }
      try {
        const result = await buildKnowledgeProject(project, { embedder, stale: context.stale, onProgress, reuseQueryTable: !tableOnly(context.changes) })
        return { project, result, warnings: opened.diagnostics, ms: performance.now() - started }
      }
      finally {
        progress.done()
      }
    }
    const loop = new RebuildLoop<WatchBuild>({
      settleMs: first.config.watch.settleMs,
      maxWaitMs: first.config.watch.maxWaitMs,
      build,
      onResult(outcome, context) {
        const what = describeChanges(context.changes)
        if ('settings' in outcome) {
          printDiagnostics(outcome.settings, io)
          line(`${what}: the settings cannot be used (${countDiagnostics(outcome.settings)}); the published index is unchanged.`)
          return
        }
        const { project, result, warnings } = outcome
        const shown = renderDiagnostics(warnings)
        printDiagnostics([...(shown === settingsWarnings ? [] : warnings), ...result.diagnostics], io)
        settingsWarnings = shown
        if (!('snapshotFile' in result)) {
          line(`${what}: the build failed (${countDiagnostics(result.diagnostics)}); the published index is unchanged.`)
          return
        }
        const ms = Math.round(outcome.ms)
        if (tableOnly(context.changes)) {
          line(`query table: made for the documents as they are and published in ${ms} ms.`)
          return
        }
        // The published table is an earlier one (its pieces miss words new to the documents): the next build makes it again.
        const tableFollows = result.queryTable !== undefined && result.queryTable.source !== queryTableSource(result)
        line(`${what}: published ${describeIndex(project, result)} in ${ms} ms${tableFollows ? '; the query table follows' : ''}.`)
        if (tableFollows)
          loop.change(TABLE)
      },
      onError(error, context) {
        const message = error instanceof CliError ? error.message : `${(error as Error).message ?? error}`
        line(`${describeChanges(context.changes)}: the build failed: ${message} The published index is unchanged.`)
      },
      onDiscard(context) {
        // A query table outdated by an edit: the edit's build, which follows, says it all.
        if (!stopping && !tableOnly(context.changes))
          line(`${describeChanges(context.changes)}: more changes came during the build, so it was not published; building again.`)
      },
    })
    line(`Watching ${displayPath(first.config.knowledge)}${first.configFile ? ` and ${displayPath(first.configFile)}` : ''} (Ctrl+C stops).`)
    loop.change(START)
    loop.flush()

    await signal.stopped
    stopping = true
    watcher.close()
    const running = loop.building
    await loop.close()
    signal.dispose()
    line(running ? 'Stopped; the build that was running published nothing.' : 'Stopped.')
    return 0
  },
}
