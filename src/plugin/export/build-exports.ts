// The `export` option of a named knowledge base: the exported skill folder (as
// `skill-kit export` writes it) emitted into the output of each build, file by
// file under fixed names, so the same inputs give the same output folder in
// every bundler. The dev server exports nothing.

import type { UnpluginBuildContext } from 'unplugin'
import type { BundlerAdapter } from '../bundlers'
import type { BuildOutput } from '../bundlers/adapter'
import type { ExportErrorCode } from '../../export/error'
import type { ExportMode } from '../../export/export'
import type { ArchiveFile } from '../../export/tar-gz'
import type { KnowledgeProject } from '../../knowledge/project'
import type { KnowledgeExportOptions, KnowledgeOptions, Options } from '../options'
import type { ProgressWrite } from '../bundlers/progress'
import type { HookContext } from '../kind'
import type { KnowledgeService } from '../knowledge/service'
import { join, resolve } from 'node:path'
import { ExportError } from '../../export/error'
import { planKnowledgeExport } from '../../export/export'
import { assertOutsideKnowledge } from '../../export/folder'
import { exportSkillName } from '../../export/skill-md'
import { formatDiagnostic } from '../../core/diagnostics'
import { openKnowledgeProject } from '../../knowledge/project'
import { RoutingError } from '../../routing/client'

/**
 * An {@link ExportError} as bundlers print it: its message says all a person
 * needs, so no stack of the plugin's is printed under it.
 */
function failure(code: ExportErrorCode, message: string): ExportError {
  const error = new ExportError(code, message)
  error.stack = ''
  return error
}

/** The checked `export` option of a knowledge base. */
interface ExportRequest {
  name: string
  entry: KnowledgeOptions
  mode: ExportMode
  outDir: string | undefined
  includeModel: boolean
}

/** The named knowledge bases to export, with their options checked; a bad option throws, naming it and its fix. */
function exportRequests(options: Options): ExportRequest[] {
  const requests: ExportRequest[] = []
  for (const [name, configured] of Object.entries(options.knowledge ?? {})) {
    if (typeof configured === 'string' || configured.export === undefined)
      continue
    const settings: KnowledgeExportOptions = configured.export
    const at = `Knowledge base "${name}": export`
    // Its type and mode were checked with every other option (validate-options.ts).
    const mode = settings.mode ?? 'semantic'
    const { outDir } = settings
    if (outDir !== undefined && (typeof outDir !== 'string' || outDir.trim() === '' || /^(?:[/\\]|[a-z]:)/i.test(outDir) || outDir.split(/[/\\]/).includes('..')))
      throw failure('invalid-options', `${at}.outDir must be a folder inside the build output (a relative path without ".."), got ${JSON.stringify(outDir)}.`)
    if (settings.includeModel && mode === 'routed')
      throw failure('invalid-options', `${at}.includeModel is for semantic exports: a routed export has no search script and needs no model. Remove it, or set export.mode to "semantic".`)
    requests.push({ name, entry: configured, mode, outDir: outDir?.replace(/\\/g, '/').replace(/^\.\/|\/+$/g, ''), includeModel: settings.includeModel ?? false })
  }
  return requests
}

/** How this bundler writes files into its output (see `bundlers/adapter.ts`). */
function exportOutput(context: UnpluginBuildContext, bundler: BundlerAdapter): BuildOutput {
  const output = bundler.buildOutput(context)
  if ('missing' in output)
    throw failure('invalid-options', `The knowledge export option writes a skill folder into the build output: ${output.missing}.`)
  return output
}

/** An exported folder of this build: where it goes in the output, and the knowledge folder it must stay out of. */
interface ExportedFolder {
  label: string
  folder: string
  knowledge: string
}

/**
 * Refuses exported folders that land inside their knowledge folder once the
 * output folder is known, real paths compared: an output folder (or a folder
 * in it) that is a symbolic link into the knowledge folder would make the
 * next build index the export as documents.
 */
export function assertExportsOutsideKnowledge(outputDir: string, exported: readonly ExportedFolder[]): void {
  for (const { label, folder, knowledge } of exported) {
    try {
      assertOutsideKnowledge(join(outputDir, folder), knowledge, `The export folder ${folder} of the build output`)
    }
    catch (error) {
      if (error instanceof ExportError)
        throw failure(error.code, `${label} cannot be exported: ${error.message}`)
      throw error
    }
  }
}

/**
 * Reports a failed export where the bundler keeps watching after an error
 * of `buildStart` only when it is recorded, not thrown (a thrown one would
 * end its watch session for good, so that fixing the documents, or an edit
 * that lands during an export, rebuilt nothing). Returns whether it was
 * reported; other bundlers keep watching after a thrown error.
 */
export function reportExportFailure(context: UnpluginBuildContext, bundler: BundlerAdapter, error: unknown): boolean {
  return error instanceof ExportError && bundler.recordBuildStartError(context, error)
}

/**
 * Rebuilds a watched build when what an export is made of changes: the
 * knowledge folder and the settings file. A knowledge base that is only
 * exported is imported by no module that would watch them.
 */
function watchExportSources(context: UnpluginBuildContext, bundler: BundlerAdapter, dir: string, project: KnowledgeProject | undefined): void {
  bundler.watchBuildStartSources(context, [project?.configFile ?? join(dir, 'skill-kit.json')], project ? [project.config.knowledge] : [])
}

export interface ExportBuildEnv {
  options: Options
  bundler: BundlerAdapter
  service: KnowledgeService
  root: string
  relativize: (file: string) => string
  progress: ProgressWrite | undefined
  /** Told of each exported folder once it is emitted, with its files' bytes (`agentSkills` publishes it too). */
  exported?: (folder: EmittedExport) => void
}

/** An exported folder as this build emitted it. */
export interface EmittedExport {
  /** The knowledge base's name in the options. */
  base: string
  mode: ExportMode
  /** Its folder in the build output. */
  folder: string
  files: ArchiveFile[]
}

/**
 * Emits the exported skill folder of every knowledge base whose options ask
 * for one. A semantic export shares the build of the knowledge base's imports;
 * a routed one routes the project (the LLM router when a routing model is
 * configured; `offline` uses cached answers only). Failures throw, with the
 * knowledge base's name and what fixes it. Returns the exported folders whose
 * place could not be checked yet (the output folder is unknown until the
 * output is rendered): pass them to {@link assertExportsOutsideKnowledge} then.
 */
export async function emitKnowledgeExports(context: UnpluginBuildContext, env: ExportBuildEnv): Promise<ExportedFolder[]> {
  const requests = exportRequests(env.options)
  if (requests.length === 0)
    return []
  const { emit, outputDir } = exportOutput(context, env.bundler)
  const unchecked: ExportedFolder[] = []
  for (const request of requests) {
    const label = `Knowledge base "${request.name}"`
    /** Plans the export; what the export library or the router refuses is said with the knowledge base's name. */
    const planned = async (project: KnowledgeProject, options: Parameters<typeof planKnowledgeExport>[1]) => {
      try {
        return await planKnowledgeExport(project, options)
      }
      catch (error) {
        if (error instanceof ExportError || error instanceof RoutingError)
          throw failure(error instanceof ExportError ? error.code : 'build-failed', `${label} cannot be exported: ${error.message}`)
        throw error
      }
    }
    /** Where the project's export goes, refused before it is planned when it would land in its knowledge folder. */
    const placed = (project: KnowledgeProject) => {
      const exported = { label, folder: request.outDir ?? `skills/${exportSkillName(project.config.name)}`, knowledge: project.config.knowledge }
      if (outputDir === undefined)
        unchecked.push(exported)
      else
        assertExportsOutsideKnowledge(outputDir, [exported])
      return exported.folder
    }
    let plan: Awaited<ReturnType<typeof planKnowledgeExport>>
    let folder: string
    const dir = resolve(env.root, request.entry.dir)
    if (request.mode === 'semantic') {
      const outcome = await env.service.complete({ kind: 'name', name: request.name }, env.progress)
      watchExportSources(context, env.bundler, dir, outcome.ok ? outcome.project : openKnowledgeProject(dir, { root: env.root }).project)
      if (!outcome.ok)
        throw failure('build-failed', outcome.message)
      folder = placed(outcome.project)
      plan = await planned(outcome.project, { mode: 'semantic', includeModel: request.includeModel, build: outcome.build })
    }
    else {
      const { entry } = request
      const opened = openKnowledgeProject(dir, { root: env.root, overrides: { model: entry.model, chunk: entry.chunk, search: entry.search, description: entry.description } })
      watchExportSources(context, env.bundler, dir, opened.project)
      if (!opened.project)
        throw failure('build-failed', `${label} cannot be exported. Fix its settings:\n\n${opened.diagnostics.map(d => formatDiagnostic(d, env.relativize)).join('\n')}`)
      folder = placed(opened.project)
      // Watch builds rebuild on background edits: answers from the routing cache only, as the routes modules do.
      plan = await planned(opened.project, { mode: 'routed', offline: env.options.offline, routing: { log: env.progress, cacheOnly: env.bundler.watchSession(context as unknown as HookContext) } })
    }
    if (!('entries' in plan))
      throw failure('build-failed', `${label} cannot be exported. Fix its documents:\n\n${plan.diagnostics.map(d => formatDiagnostic(d, env.relativize)).join('\n')}`)
    const files: ArchiveFile[] = []
    for (const file of plan.entries) {
      const data = await file.read()
      emit(`${folder}/${file.path}`, data)
      if (env.exported)
        files.push({ path: file.path, data: typeof data === 'string' ? new TextEncoder().encode(data) : data })
    }
    env.exported?.({ base: request.name, mode: request.mode, folder, files })
  }
  return unchecked
}
