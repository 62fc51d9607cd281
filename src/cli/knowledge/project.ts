// The project a knowledge command works on, and its published index. A folder
// with a skill-kit.json, or (named with --project) a bare folder of Markdown,
// opened exactly as the bundler plugin opens it, so that the CLI and the plugin
// share its index, vector cache and models under <root>/.skill-kit/.

import type { Diagnostic } from '../../core/diagnostics'
import type { KnowledgeProject } from '../../knowledge/project'
import type { PublishedIndex } from '../../knowledge/publish'
import type { ParsedArgs } from '../command'
import type { CliIo } from '../io'
import { existsSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { indexState, openKnowledgeProject, PROJECT_FILE } from '../../knowledge/project'
import { readPublishedIndex } from '../../knowledge/publish'
import { stringOption } from '../command'
import { CliError } from '../io'
import { countDiagnostics, displayPath, renderDiagnostics } from '../report'

/**
 * Opens the project of `--project` (default: the working folder, which must
 * then hold a skill-kit.json: a bare working folder may be an app, whose
 * node_modules nobody means to index). A bare folder's index, cache and models
 * go under `<--root>/.skill-kit/` (default: the working folder, as the
 * plugin's root). The diagnostics of its settings go to stderr; a folder that
 * does not exist or invalid settings are a `CliError`.
 */
export function openCliProject(args: ParsedArgs, io: CliIo): KnowledgeProject {
  const named = stringOption(args, 'project')
  const dir = resolve(named ?? '.')
  if (!existsSync(dir))
    throw new CliError(`${displayPath(dir)} does not exist. Point --project at a knowledge project (a folder with ${PROJECT_FILE}) or a folder of Markdown documents.`)
  if (!statSync(dir).isDirectory())
    throw new CliError(`${displayPath(dir)} is a file. Point --project at a knowledge project (a folder with ${PROJECT_FILE}) or a folder of Markdown documents.`)
  if (named === undefined && !existsSync(join(dir, PROJECT_FILE))) {
    throw new CliError(`${displayPath(dir)} is not a knowledge project: it has no ${PROJECT_FILE}. `
      + `Create one with "skill-kit init ${displayPath(dir)}", or point --project at a project or a folder of Markdown documents.`)
  }
  const root = resolve(stringOption(args, 'root') ?? '.')
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new CliError(`--root ${displayPath(root)} is not a folder. Point it at the folder a bundler's root is (Vite's root, else where it runs).`)
  const opened = openKnowledgeProject(dir, { root })
  printDiagnostics(opened.diagnostics, io)
  if (!opened.project)
    throw new CliError(`The settings of ${displayPath(dir)} cannot be used (${countDiagnostics(opened.diagnostics)}).`)
  return opened.project
}

/**
 * Every diagnostic on stderr (so stdout stays JSON), each starting its own
 * line with `file:line:col` so that terminals and editors link it. Warnings
 * never stop a command, but they are always shown.
 */
export function printDiagnostics(diagnostics: readonly Diagnostic[], io: CliIo): void {
  if (diagnostics.length > 0)
    io.err(`${renderDiagnostics(diagnostics)}\n\n`)
}

/**
 * The published index, if it matches the documents and settings as they are
 * now. A search over a stale index would answer from text that no longer
 * exists, so a missing or stale index is a `CliError` naming the fix.
 */
export function freshIndex(project: KnowledgeProject): PublishedIndex {
  const state = indexState(project)
  const where = displayPath(project.config.output)
  if (state.state === 'stale')
    throw new CliError(`The index in ${where} is stale: ${state.reason} since it was built. Run "skill-kit build" to update it.`)
  const published = state.state === 'fresh' ? readPublishedIndex(project.config.output) : undefined
  if (!published)
    throw new CliError(`No index is published in ${where}. Run "skill-kit build" first.`)
  return published
}
