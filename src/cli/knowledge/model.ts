import type { Command } from '../command'
import { relative } from 'node:path'
import { locateModelFiles } from '../../knowledge/embedder-files'
import { PROJECT_HELP, PROJECT_OPTION } from '../command'
import { json } from '../io'
import { loadEmbedder } from './embedder'
import { openCliProject } from './project'

/** `skill-kit model`: puts the project's model files in its model folder, so that later builds and searches can run --offline. */
export const modelCommand: Command = {
  name: 'model',
  summary: '  model                 Download the project\'s embedding model into its model folder',
  usage: `Usage: skill-kit model [options]

Makes sure the files of the project's embedding model (model.id at
model.revision, model.dtype weights) are in model.cacheDir, downloading the
missing ones, and checks that the model loads. Needs no network when every
file is already there. Prints the model and its files as JSON.

Options:
${PROJECT_HELP}`,
  options: { ...PROJECT_OPTION },
  maxPositionals: 0,
  async run(args, io) {
    const { dir, config: { model, name } } = openCliProject(args, io)
    if (!model) {
      // Nothing to fetch, which is not a failure: a script may run "model" before "build" for any project.
      io.err(`"${name}" has no model ("model": false in skill-kit.json): it builds and searches lexically, with no model files. For vector search, replace "model": false with the model's settings ({} for the default) and run "skill-kit model" again.\n`)
      io.out(json({ model: false }))
      return 0
    }
    const before = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype)
    // Offline when nothing is missing: loading then cannot touch the network, not even to check for updates.
    const embedder = await loadEmbedder(model, before.missing.length === 0)
    const files = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype)
    const path = (from: string, to: string) => relative(from, to).split('\\').join('/')
    io.out(json({
      model: model.id,
      revision: model.revision,
      dtype: model.dtype,
      fingerprint: embedder.fingerprint,
      folder: path(dir, files.localDir),
      files: Object.values(files.found).map(file => path(files.localDir, file)),
    }))
    return 0
  },
}
