import type { ExportMode } from '../../export/export'
import type { Command, ParsedArgs } from '../command'
import { resolve } from 'node:path'
import { ExportError } from '../../export/error'
import { EXPORT_MODES, exportKnowledgeProject } from '../../export/export'
import { assertNewDestination, assertOutsideKnowledge } from '../../export/folder'
import { hasModel } from '../../knowledge/project'
import { EmbeddingServerError } from '../../knowledge/server-embedder'
import { RoutingError } from '../../routing/client'
import { flag, PROJECT_HELP, PROJECT_OPTION, stringOption } from '../command'
import { CliError, json, UsageError } from '../io'
import { countDiagnostics, displayPath } from '../report'
import { loadEmbedder } from './embedder'
import { openCliProject, printDiagnostics } from './project'
import { buildProgress } from './progress'

/** `--mode`: semantic (the default) or routed. */
function modeOption(args: ParsedArgs): ExportMode {
  const text = stringOption(args, 'mode') ?? 'semantic'
  const mode = EXPORT_MODES.find(m => m === text)
  if (!mode)
    throw new UsageError(`--mode must be semantic or routed, got "${text}".`)
  return mode
}

/** `skill-kit export <dest>`: the project as an independent skill folder. */
export const exportCommand: Command = {
  name: 'export',
  summary: '  export <dest>         Export a project as a skill folder (semantic search or routed pages)',
  usage: `Usage: skill-kit export <dest> [options]

Exports the project as an independent skill folder <dest>, which must not
exist. The index (semantic) or the routed index pages (routed) are brought
up to date first. The folder is written beside <dest> and renamed into place
at the end, so a failure leaves nothing. Prints the exported files as JSON.

Options:
  --mode <m>            semantic (the default): SKILL.md, search.mjs (search and
                        retrieve with Node alone; vector search once npm ci
                        installed @huggingface/transformers, pinned by its
                        package.json and package-lock.json), the index and the
                        original documents. routed: SKILL.md, llms.txt, index
                        pages and the original documents; no script, no model
  --include-model       semantic: copy the embedding model into the export, so
                        that its vector search needs no other folder
  --offline             Never download the model (semantic); build from cached
                        routing answers only (routed, with a routing model)
  --force               Embed every window again (semantic); ask the routing
                        model again for every answer (routed)
${PROJECT_HELP}`,
  options: { ...PROJECT_OPTION, 'mode': { type: 'string' }, 'include-model': { type: 'boolean' }, 'offline': { type: 'boolean' }, 'force': { type: 'boolean' } },
  maxPositionals: 1,
  async run(args, io) {
    const destination = args.positionals[0]
    if (destination === undefined || destination === '')
      throw new UsageError('export needs a destination folder, e.g. skill-kit export dist/my-topic.')
    const mode = modeOption(args)
    const includeModel = flag(args, 'include-model')
    if (includeModel && mode === 'routed')
      throw new UsageError('--include-model is for semantic exports: a routed export has no search script and needs no model. Remove --include-model, or export with --mode semantic.')
    const dest = resolve(destination)
    const shownDest = displayPath(dest)
    const project = openCliProject(args, io)
    const offline = flag(args, 'offline')
    const progress = buildProgress(io, project.config.name)
    let result
    try {
      // Before the model loads: an existing destination, or one in the knowledge folder, is refused at once.
      assertNewDestination(dest, shownDest)
      assertOutsideKnowledge(dest, project.config.knowledge, shownDest)
      const embedder = mode === 'semantic' && hasModel(project) ? await loadEmbedder(project, offline) : undefined
      result = await exportKnowledgeProject(project, dest, {
        mode,
        includeModel,
        offline,
        force: flag(args, 'force'),
        shownDest,
        buildOptions: { embedder, onProgress: progress.onProgress },
        routing: { log: line => io.err(`${line}\n`) },
      })
    }
    catch (error) {
      if (error instanceof ExportError || error instanceof RoutingError || error instanceof EmbeddingServerError)
        throw new CliError(error.message)
      throw error
    }
    finally {
      progress.done()
    }
    if (!('entries' in result)) {
      printDiagnostics(result.diagnostics, io)
      throw new CliError(`The documents cannot be exported (${countDiagnostics(result.diagnostics)}); nothing was written.`)
    }
    io.out(json({ name: project.config.name, mode, folder: shownDest, files: result.entries.map(file => file.path) }))
    return 0
  },
}
