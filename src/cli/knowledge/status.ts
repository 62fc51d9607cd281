import type { Command } from '../command'
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { locateModelFiles } from '../../knowledge/embedder-files'
import { indexState } from '../../knowledge/project'
import { PROJECT_HELP, PROJECT_OPTION } from '../command'
import { json } from '../io'
import { openCliProject } from './project'
import { queryTableStatus } from './query-table-status'

/** Bytes of the files directly in `dir` (0 when it does not exist): the vector cache is one file per model and settings. */
function folderBytes(dir: string): number {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter(e => e.isFile())
      .reduce((sum, e) => sum + statSync(join(dir, e.name)).size, 0)
  }
  catch {
    return 0
  }
}

/** `skill-kit status`: where things are, whether the index is up to date, whether the model is here. Never fails on a stale index. */
export const statusCommand: Command = {
  name: 'status',
  summary: '  status                Show the project\'s paths, index state and model files (JSON)',
  usage: `Usage: skill-kit status [options]

Prints the project's state as JSON: its paths, whether the published index
is fresh, stale (and why) or missing, its size (documents; chunks, the
documents' sections; windows, the model inputs cut from chunks, which are what
search ranks) and model, whether the model
files are in the model folder ("model": false for a project with no model),
the query table's state (fresh, stale and why, missing or damaged), model,
folder, files and bytes ("queryTable": false for a project that makes none),
and the size of the vector cache.

Options:
${PROJECT_HELP}`,
  options: { ...PROJECT_OPTION },
  maxPositionals: 0,
  run(args, io) {
    const project = openCliProject(args, io)
    const { dir, config } = project
    const path = (absolute: string) => relative(dir, absolute).split('\\').join('/') || '.'
    const state = indexState(project)
    const manifest = state.state === 'missing' ? undefined : state.manifest
    const model = config.model
    const files = model && locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype)
    io.out(json({
      name: config.name,
      paths: { knowledge: path(config.knowledge), output: path(config.output), cache: path(config.cache), models: model ? path(model.cacheDir) : null },
      index: {
        state: state.state,
        reason: state.state === 'stale' ? state.reason : null,
        documents: manifest?.documentCount ?? null,
        // The words and numbers of "skill-kit build"; a manifest written before "windowCount" counted windows as "chunkCount".
        chunks: manifest?.windowCount === undefined ? null : manifest.chunkCount,
        windows: manifest?.windowCount ?? manifest?.chunkCount ?? null,
        model: manifest?.model ?? null,
        snapshot: manifest ? path(join(config.output, manifest.snapshot)) : null,
      },
      // "model": false: no model, and no files to look for.
      model: model && files
        ? {
            id: model.id,
            revision: model.revision,
            dtype: model.dtype,
            folder: path(files.localDir),
            present: Object.keys(files.found),
            missing: files.missing,
          }
        : false,
      queryTable: queryTableStatus(config, manifest, path),
      cache: { bytes: folderBytes(config.cache) },
    }))
    return 0
  },
}
