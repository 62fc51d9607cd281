// Exporting a knowledge project as a skill folder (issue 12): the index (or
// the routes) brought up to date first, then the folder's files planned, then
// written whole into a new destination. The CLI writes the folder; the
// bundler plugin emits the same files into its output.

import type { KnowledgeBuildFailure } from '../knowledge/build'
import type { KnowledgeProject, ProjectBuild, ProjectBuildOptions } from '../knowledge/project'
import type { RouteProjectOptions } from '../routing/project'
import type { ExportAssets } from './assets'
import type { ExportFile } from './folder'
import { loadKnowledgeFolder } from '../knowledge/load-folder'
import { buildKnowledgeProject } from '../knowledge/project'
import { routeKnowledgeProject } from '../routing/project'
import { packageExportAssets } from './assets'
import { ExportError } from './error'
import { assertNewDestination, assertOutsideKnowledge, sortedFiles, writeExportFolder } from './folder'
import { routedExportFiles } from './routed'
import { semanticExportFiles } from './semantic'

/** `semantic`: search runtime, index and documents; `routed`: index pages an agent reads, and the documents. */
export type ExportMode = 'semantic' | 'routed'
export const EXPORT_MODES: readonly ExportMode[] = ['semantic', 'routed']

export interface ExportOptions {
  mode: ExportMode
  /** semantic only: copy the model's files into the export. */
  includeModel?: boolean
  /** semantic: never download the model; routed: build from cached model answers only. */
  offline?: boolean
  /** semantic: embed every window again; routed: ask the model again for every answer. */
  force?: boolean
  /** semantic: the published build to export, when the caller just built it (the plugin); else it is built here. */
  build?: ProjectBuild
  /** semantic: how the index is built (the embedder, progress). */
  buildOptions?: Pick<ProjectBuildOptions, 'embedder' | 'onProgress'>
  /** routed: the environment (routing model, API key), the client's retry lines, and `cacheOnly` for watch builds (no paid requests on background edits). */
  routing?: Pick<RouteProjectOptions, 'env' | 'log' | 'client' | 'cacheOnly'>
  /** This package's files that exports copy (default: this package's dist/export/). */
  assets?: ExportAssets
}

/** The files of an export, sorted by path. */
export interface ExportPlan {
  entries: ExportFile[]
}

/**
 * Brings the index (semantic) or the routes (routed) of `project` up to date
 * and lists the files of its export. Invalid documents come back as the
 * build's failure; a model that cannot be loaded or a routing model that
 * fails throws (its own error), and so does an {@link ExportError}.
 */
export async function planKnowledgeExport(project: KnowledgeProject, options: ExportOptions): Promise<ExportPlan | KnowledgeBuildFailure> {
  const { config } = project
  if (options.mode === 'routed') {
    if (options.includeModel)
      throw new ExportError('invalid-options', 'A routed export has no search script, so it takes no model: export it without includeModel, or as a semantic export.')
    const digest = loadKnowledgeFolder(config.knowledge, { maxDocumentBytes: config.maxDocumentBytes }).digest
    const routes = await routeKnowledgeProject(project, { ...options.routing, offline: options.offline, force: options.force })
    if (!('skill' in routes))
      return routes
    return { entries: sortedFiles(await routedExportFiles(project, routes, digest)) }
  }
  const assets = options.assets ?? packageExportAssets()
  const build = options.build ?? await buildKnowledgeProject(project, { ...options.buildOptions, offline: options.offline, force: options.force })
  if ('stale' in build || !('snapshot' in build))
    return build
  return { entries: sortedFiles(await semanticExportFiles(project, build as ProjectBuild, { assets, includeModel: options.includeModel })) }
}

/**
 * Exports `project` into the new folder `dest` (see {@link planKnowledgeExport}):
 * written into a temporary folder beside it and renamed at the end, so that
 * `dest` appears complete or not at all. An existing `dest` is refused before
 * anything is built. `shownDest` names it in messages.
 */
export async function exportKnowledgeProject(project: KnowledgeProject, dest: string, options: ExportOptions & { shownDest?: string }): Promise<ExportPlan | KnowledgeBuildFailure> {
  const shown = options.shownDest ?? dest
  assertNewDestination(dest, shown)
  assertOutsideKnowledge(dest, project.config.knowledge, shown)
  const plan = await planKnowledgeExport(project, options)
  if ('entries' in plan)
    await writeExportFolder(dest, plan.entries, shown)
  return plan
}
