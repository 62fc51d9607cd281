// The project a knowledge command works on, and its published index. The CLI
// only works on projects with a skill-kit.json (unlike the bundler plugin,
// which also takes a bare folder of Markdown), so that build, search and
// status always agree on where the index and the caches are.

import type { Diagnostic } from '../../core/diagnostics'
import type { KnowledgeProject } from '../../knowledge/project'
import type { PublishedIndex } from '../../knowledge/publish'
import type { ParsedArgs } from '../command'
import type { CliIo } from '../io'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { indexState, openKnowledgeProject, PROJECT_FILE } from '../../knowledge/project'
import { readPublishedIndex } from '../../knowledge/publish'
import { stringOption } from '../command'
import { CliError } from '../io'
import { countDiagnostics, displayPath, renderDiagnostics } from '../report'

/**
 * Opens the project of `--project` (default: the working folder). The
 * diagnostics of its skill-kit.json go to stderr; a missing skill-kit.json or
 * an invalid one is a `CliError`.
 */
export function openCliProject(args: ParsedArgs, io: CliIo): KnowledgeProject {
  const dir = resolve(stringOption(args, 'project') ?? '.')
  if (!existsSync(join(dir, PROJECT_FILE))) {
    throw new CliError(`${displayPath(dir)} is not a knowledge project: it has no ${PROJECT_FILE}. `
      + `Create one with "skill-kit init ${displayPath(dir)}", or point --project at the project folder.`)
  }
  const opened = openKnowledgeProject(dir)
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
