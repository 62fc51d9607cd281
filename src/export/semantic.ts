// A semantic export: an independent skill folder that searches the project's
// index with Node alone. SKILL.md, the snapshot and the documents' bodies as
// published (index/), the original documents (references/), the search
// runtime (search.mjs), and, for a project with a model, a package.json and
// lockfile that pin @huggingface/transformers for vector search, plus the
// model's files with includeModel (models/). An index embedded by a server
// (`model.provider: "openai-compatible"`) and exported without its model
// embeds queries through that server instead, with no package to install.

import type { KnowledgeDocument } from '../knowledge/document'
import type { KnowledgeProject } from '../knowledge/project'
import type { ExportAssets } from './assets'
import type { ExportFile } from './folder'
import type { ExportSettings } from './settings'
import type { SearchKind } from './skill-md'
import { readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { endpointOf } from '../core/http-json'
import { locateModelFiles, onnxFileOf } from '../knowledge/embedder-files'
import { projectCommand } from '../knowledge/project'
import { MANIFEST_FORMAT } from '../knowledge/publish'
import { ExportError } from './error'
import { copyOf, fileOf } from './folder'
import { SETTINGS_FILE } from './settings'
import { exportSkillName, semanticSkillMarkdown } from './skill-md'
import { licenseFiles, originalDocuments } from './sources'

/** Where the model's files go: `models/<model id>/…`. */
export const MODEL_DIR = 'models'

/** The index a semantic export is made from: a published build of the project. */
export interface ExportedIndex {
  snapshot: Uint8Array
  documents: readonly KnowledgeDocument[]
  /** Digest of the knowledge folder the index was built from. */
  digest: string
}

export interface SemanticExportOptions {
  assets: ExportAssets
  /** Copy the model's files, so that vector search needs no other folder. */
  includeModel?: boolean
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

/**
 * What makes every package manager install the export without install scripts.
 * onnxruntime-node's downloads CUDA libraries from a host many machines cannot
 * reach (npm 10 then fails the whole install); its CPU build, which search uses,
 * is in the package, and sharp's binaries come as optional packages. npm, pnpm
 * and yarn 1 read `.npmrc`; yarn 2+ reads `.yarnrc.yml`, whose node_modules
 * linker lets `node search.mjs` import the package without yarn.
 */
const NO_INSTALL_SCRIPTS: ExportFile[] = [
  fileOf('.npmrc', '# Install without install scripts: onnxruntime-node\'s would download CUDA libraries; search runs on its CPU build.\nignore-scripts=true\n'),
  fileOf('.yarnrc.yml', '# Install without install scripts (see .npmrc), into node_modules/ so that node search.mjs finds the packages.\nenableScripts: false\nnodeLinker: node-modules\n'),
]

/** The export's package.json and lockfile, named after the skill: the lockfile pins @huggingface/transformers and what it needs. */
function packageFiles(name: string, lockfile: string): ExportFile[] {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { name: string, packages: Record<string, { name?: string, dependencies?: Record<string, string> }> }
  const root = lock.packages['']!
  lock.name = name
  root.name = name
  const manifest = {
    name,
    private: true,
    type: 'module',
    dependencies: root.dependencies,
    // onnxruntime-node's install script downloads CUDA libraries; the CPU build search uses is in the package.
    allowScripts: { 'onnxruntime-node': false },
  }
  return [fileOf('package.json', json(manifest)), fileOf('package-lock.json', json(lock)), ...NO_INSTALL_SCRIPTS]
}

/** The files of the model (for its dtype, with any external weights), as `models/<id>/<file>`; or why they cannot be copied. */
function modelFiles(project: KnowledgeProject): ExportFile[] {
  const { model } = project.config
  if (!model)
    throw new ExportError('model-unavailable', `"${project.config.name}" has no model ("model": false in skill-kit.json), so --include-model has nothing to copy: export without it.`)
  const located = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype)
  if (located.missing.length > 0 && model.server)
    throw new ExportError('model-unavailable', `"${project.config.name}" is embedded by the server at ${endpointOf(model.server.baseUrl)}. --include-model copies the local copy of ${model.id} (the same vectors only when the server runs the same weights), but its model folder lacks ${located.missing.join(', ')}. Run "${projectCommand(project, 'model')}" first, or export without --include-model: search.mjs then embeds queries through the server.`)
  if (located.missing.length > 0)
    throw new ExportError('model-unavailable', `--include-model copies the embedding model ${model.id} into the export, but its model folder lacks ${located.missing.join(', ')}. Run "${projectCommand(project, 'model')}" first.`)
  const onnx = located.found[onnxFileOf(model.dtype)]!
  const external = readdirSync(dirname(onnx))
    .filter(name => name.startsWith(`${basename(onnx)}_data`))
    .map(name => [`${dirname(onnxFileOf(model.dtype))}/${name}`, join(dirname(onnx), name)] as const)
  return [...Object.entries(located.found), ...external].map(([file, path]) => copyOf(`${MODEL_DIR}/${model.id}/${file}`, path))
}

/**
 * The files of a semantic export of `project`, whose published index is
 * `index`. Reads the original documents now (and fails if they no longer are
 * what the index was built from); model files are copied when written.
 */
export async function semanticExportFiles(project: KnowledgeProject, index: ExportedIndex, options: SemanticExportOptions): Promise<ExportFile[]> {
  const { config } = project
  const { model } = config
  const files: ExportFile[] = []
  if (options.includeModel)
    files.push(...modelFiles(project))
  const server = model && model.server && { baseUrl: endpointOf(model.server.baseUrl), apiKeyEnv: model.server.apiKeyEnv, ...(model.server.dimensions ? { dimensions: model.server.dimensions } : {}) }
  const search: SearchKind = !model ? 'lexical-only' : options.includeModel ? 'model-included' : server ? 'server' : 'model-absent'
  const settings: ExportSettings = {
    format: 1,
    name: config.name,
    snapshot: 'index/snapshot.skillkit',
    documents: 'index/documents.json',
    search: config.search,
    model: model && { id: model.id, revision: model.revision, dtype: model.dtype, maxTokens: model.maxTokens, queryPrefix: model.queryPrefix, ...(server ? { server } : {}) },
    modelFolder: options.includeModel ? MODEL_DIR : null,
  }
  // The bodies exactly as publishIndex writes them, so that retrieve prints what `skill-kit retrieve` does.
  const bodies = { format: MANIFEST_FORMAT, documents: index.documents.map(d => ({ id: d.id, path: d.path, body: d.body })) }
  files.push(
    fileOf('SKILL.md', semanticSkillMarkdown({ config, documents: index.documents.length, search, modelId: model ? model.id : undefined, server: server || undefined })),
    fileOf(SETTINGS_FILE, json(settings)),
    fileOf(settings.snapshot, index.snapshot),
    fileOf(settings.documents, JSON.stringify(bodies)),
    copyOf('search.mjs', options.assets.searchScript),
    ...licenseFiles(project.dir),
    ...await originalDocuments(config.knowledge, index.documents.map(d => d.path), index.digest, config.maxDocumentBytes),
  )
  // A server's queries need fetch alone; the local model needs Transformers.js.
  if (search === 'model-included' || search === 'model-absent')
    files.push(...packageFiles(exportSkillName(config.name), options.assets.packageLock))
  return files
}
