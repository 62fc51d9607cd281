import type { Command } from '../command'
import { buildKnowledgeProject, hasModel } from '../../knowledge/project'
import { QueryTableUnavailableError } from '../../knowledge/project-query-table'
import { EmbeddingServerError } from '../../knowledge/server-embedder'
import { flag, PROJECT_HELP, PROJECT_OPTION } from '../command'
import { CliError, json } from '../io'
import { countDiagnostics, displayPath } from '../report'
import { loadEmbedder } from './embedder'
import { openCliProject, printDiagnostics } from './project'
import { buildProgress } from './progress'

/** `skill-kit build`: builds the index and publishes it, or keeps the previous one when a document is invalid. */
export const buildCommand: Command = {
  name: 'build',
  summary: '  build                 Build and publish the search index of a project',
  usage: `Usage: skill-kit build [options]

Builds the search index of the project's knowledge folder, reusing cached
vectors, and publishes it in its output folder. Prints a JSON summary
(chunks: the documents' sections; windows: the model inputs cut from chunks,
which search ranks; embedded and cached count windows); every diagnostic goes
to stderr. An invalid document fails the build (exit 1) and
keeps the previously published index. On a terminal, stderr shows a bar
while windows are embedded; elsewhere (logs, pipes) it gets progress lines:
what is cached and what to embed, windows embedded (at most one line every
2 seconds), and the time the build took. A build that embeds nothing and
takes under 2 seconds prints none.

Options:
  --force               Embed every window again, ignoring the vector cache
  --offline             Never download the model; fail when its files are missing
${PROJECT_HELP}`,
  options: { ...PROJECT_OPTION, force: { type: 'boolean' }, offline: { type: 'boolean' } },
  maxPositionals: 0,
  async run(args, io) {
    const started = performance.now()
    const project = openCliProject(args, io)
    const progress = buildProgress(io, project.config.name)
    // "model": false: nothing to load; the build makes the lexical index only.
    const embedder = hasModel(project) ? await loadEmbedder(project, flag(args, 'offline')) : undefined
    let result
    try {
      result = await buildKnowledgeProject(project, { embedder, force: flag(args, 'force'), onProgress: progress.onProgress })
    }
    catch (error) {
      // Said whole by the error (the server, what it answered, what is cached): no stack trace.
      if (error instanceof EmbeddingServerError || error instanceof QueryTableUnavailableError)
        throw new CliError(`${error.message} The published index is unchanged.`)
      throw error
    }
    finally {
      progress.done()
    }
    printDiagnostics(result.diagnostics, io)
    if (!('snapshot' in result))
      throw new CliError(`The build failed (${countDiagnostics(result.diagnostics)}); the published index is unchanged.`)
    io.out(json({
      name: project.config.name,
      documents: result.documents.length,
      chunks: result.chunks.length,
      windows: result.stats.windows,
      embedded: result.stats.embedded,
      cached: result.stats.cached,
      snapshot: displayPath(result.snapshotFile),
      bytes: result.snapshot.byteLength,
      warnings: result.diagnostics.length,
      ms: Math.round(performance.now() - started),
    }))
    return 0
  },
}
