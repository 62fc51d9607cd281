// A knowledge project on disk: its configuration (a `skill-kit.json`, or the
// defaults around a bare folder of Markdown), the embedder it needs, and the
// index it publishes. The CLI and the bundler plugin both build through here,
// so one folder gives the same snapshot bytes from the same cache either way.

import type { Diagnostic } from '../core/diagnostics'
import type { KnowledgeBuildFailure, KnowledgeIndex } from './build'
import type { ChunkConfig, KnowledgeConfig, ModelConfig, ModelSettings, QueryEncoder, SearchConfig } from './config'
import type { Embedder } from './embedder'
import type { KnowledgeProgress } from './progress'
import type { IndexManifest, QueryTableFiles } from './publish'
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs'
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { DiagnosticBag } from '../core/diagnostics'
import { endpointOf } from '../core/http-json'
import { hash } from '../core/hash'
import { parseYaml } from '../core/yaml'
import { buildKnowledgeIndex, PIPELINE_VERSION } from './build'
import { configTooLarge, MAX_CONFIG_BYTES, parseProjectConfig } from './config'
import { createTransformersEmbedder } from './embedder'
import { createServerEmbedder } from './server-embedder'
import { SNAPSHOT_VERSION } from '../runtime/knowledge/format/snapshot-layout'
import { loadKnowledgeFolder } from './load-folder'
import { projectQueryTable } from './project-query-table'
import { publishIndex, readManifest } from './publish'

export const PROJECT_FILE = 'skill-kit.json'

/** Settings that replace those of `skill-kit.json` (or the defaults), key by key. */
export interface KnowledgeOverrides {
  /** `false`: no model (lexical search only), whatever the project says. */
  model?: Partial<ModelSettings> | false
  chunk?: Partial<ChunkConfig>
  search?: Partial<SearchConfig>
  queryEncoder?: QueryEncoder
  /** What the base holds, in a sentence: its exported skill's and llms.txt's description. */
  description?: string
}

/** A knowledge folder with its settings resolved. */
export interface KnowledgeProject {
  /** The project folder (the knowledge folder itself when there is no `skill-kit.json`). */
  dir: string
  /** `skill-kit.json`, when the project has one. */
  configFile: string | undefined
  /** A bare folder's root, under whose `.skill-kit/` its index, cache and models live (`undefined` for a project with `skill-kit.json`). */
  root: string | undefined
  config: KnowledgeConfig
}

/** A project with an embedding model (not `"model": false`). */
export type EmbeddedProject = KnowledgeProject & { config: KnowledgeConfig & { model: ModelConfig } }

/** Whether the project embeds its documents (`"model": false` does not). */
export function hasModel(project: KnowledgeProject): project is EmbeddedProject {
  return project.config.model !== false
}

export interface OpenProjectOptions {
  overrides?: KnowledgeOverrides
  /**
   * Where a bare folder (no `skill-kit.json`) keeps its index, vector cache and
   * models: `<root>/.skill-kit/…` (default: the folder's parent).
   */
  root?: string
}

/** A project, or why it cannot be used. */
export type OpenedProject = { project: KnowledgeProject, diagnostics: Diagnostic[] } | { project: undefined, diagnostics: Diagnostic[] }

/**
 * Reads the project in `dir`: its `skill-kit.json` if there is one, else
 * `dir` is a bare folder of Markdown with every default. Overrides are
 * checked by the same rules as the file.
 */
export function openKnowledgeProject(dir: string, options: OpenProjectOptions = {}): OpenedProject {
  const projectDir = resolve(dir)
  const configFile = join(projectDir, PROJECT_FILE)
  const hasFile = existsSync(configFile)
  const bag = new DiagnosticBag(hasFile ? configFile : projectDir)
  if (!existsSync(projectDir) || !statSync(projectDir).isDirectory()) {
    bag.error('knowledge-missing', `${projectDir} is not a folder. Point it at a folder of Markdown documents, or create one with "skill-kit init".`, { line: 1, column: 1 })
    return { project: undefined, diagnostics: bag.items }
  }

  if (hasFile && !statSync(configFile).isFile()) {
    bag.error('config-invalid', `${PROJECT_FILE} is a folder, not a file. Remove it, then write the project's settings with "skill-kit init".`, { line: 1, column: 1 })
    return { project: undefined, diagnostics: bag.items }
  }
  // A file too large to be settings is refused before it is read.
  const size = hasFile ? statSync(configFile).size : 0
  if (size > MAX_CONFIG_BYTES) {
    bag.error('config-too-large', configTooLarge(size), { line: 1, column: 1 })
    return { project: undefined, diagnostics: bag.items }
  }
  const written = hasFile ? readFileSync(configFile, 'utf8') : ''
  let text = written
  let raw: unknown
  const root = hasFile ? undefined : resolve(options.root ?? join(projectDir, '..'))
  if (root !== undefined) {
    // A bare folder: the documents are the folder; index, cache and models live under the root.
    const away = (folder: string) => relative(projectDir, join(root, '.skill-kit', folder)).split(sep).join('/')
    raw = {
      name: basename(projectDir),
      knowledge: '.',
      // The folder's name for people, a hash of its path so that two folders never share an index.
      output: away(`index/${basename(projectDir)}-${hash(relative(root, projectDir).split(sep).join('/')).slice(0, 8)}`),
      cache: away('cache'),
      model: { cacheDir: away('models') },
    }
  }
  // Only when something is overridden: the file is then rewritten, and diagnostics point into the rewrite.
  else if (Object.values(options.overrides ?? {}).some(value => value !== undefined)) {
    try {
      raw = JSON.parse(text.replace(/^\uFEFF/, ''))
    }
    catch {
      // Left to parseProjectConfig, which reports where the JSON breaks.
    }
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const fields = raw as Record<string, unknown>
    for (const key of ['model', 'chunk', 'search'] as const) {
      const override = options.overrides?.[key]
      const base = fields[key]
      if (override === false)
        fields[key] = false
      else if (override !== undefined)
        fields[key] = { ...(base && typeof base === 'object' ? base : {}), ...override }
    }
    if (options.overrides?.queryEncoder !== undefined)
      fields.queryEncoder = options.overrides.queryEncoder
    if (options.overrides?.description !== undefined)
      fields.description = options.overrides.description
    text = JSON.stringify(fields, null, 2)
  }
  const config = parseProjectConfig(projectDir, text, bag, { bare: !hasFile })
  if (!config)
    return { project: undefined, diagnostics: bag.sorted() }
  if (!existsSync(config.knowledge) || !statSync(config.knowledge).isDirectory()) {
    // At the "knowledge" key's value as the file is written (overrides never change it); at the object without one.
    const at = hasFile ? parseYaml(written.replace(/^\uFEFF/, ''), 1, new DiagnosticBag(configFile)).locate(['knowledge']) : { line: 1, column: 1 }
    bag.error('knowledge-missing', `The knowledge folder ${relative(projectDir, config.knowledge) || '.'} does not exist. Create it and put Markdown documents in it.`, at)
    return { project: undefined, diagnostics: bag.sorted() }
  }
  // The build writes into output and cache and deletes old files there: through a symlink it would do so elsewhere.
  const base = root ?? projectDir
  const linked = (['knowledge', 'output', 'cache'] as const)
    .map(key => [key, symlinkAlong(base, config[key])] as const)
    .filter((entry): entry is readonly [typeof entry[0], string] => entry[1] !== undefined)
  if (linked.length > 0) {
    const at = hasFile ? (key: string) => parseYaml(written.replace(/^\uFEFF/, ''), 1, new DiagnosticBag(configFile)).locate([key]) : () => ({ line: 1, column: 1 })
    for (const [key, link] of linked)
      bag.error('config-path-symlink', `"${key}" goes through the symbolic link ${relative(base, link).split(sep).join('/')}, so the build would read or write where it points. Replace the link with a real folder.`, at(key))
    return { project: undefined, diagnostics: bag.sorted() }
  }
  return { project: { dir: projectDir, configFile: hasFile ? configFile : undefined, root, config }, diagnostics: bag.sorted() }
}

/** The first symbolic link on the way from `base` down to `target` (a folder inside it), among the parts that exist. */
function symlinkAlong(base: string, target: string): string | undefined {
  const inside = relative(base, target)
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
    return undefined
  let path = base
  for (const part of inside.split(sep)) {
    path = join(path, part)
    let stat
    try {
      stat = lstatSync(path)
    }
    catch {
      return undefined
    }
    if (stat.isSymbolicLink())
      return path
  }
  return undefined
}

/** A path as an argument the user can paste into a shell: relative to the working directory, quoted when it needs to be. */
function shellPath(path: string): string {
  const shown = relative(process.cwd(), path).split(sep).join('/') || '.'
  return /^[\w./@+-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`
}

/**
 * The `skill-kit <verb>` command line that works on this project from the
 * working directory: `--project` unless it is the working directory's own
 * skill-kit.json project, and `--root` for a bare folder whose root is not
 * the working directory.
 */
export function projectCommand(project: KnowledgeProject, verb: string): string {
  const cwd = process.cwd()
  const parts = ['skill-kit', verb]
  if (project.root !== undefined || project.dir !== cwd)
    parts.push('--project', shellPath(project.dir))
  if (project.root !== undefined && project.root !== cwd)
    parts.push('--root', shellPath(project.root))
  return parts.join(' ')
}

export interface EmbedderOptions {
  /** Never download model files; fail at once when they are missing. */
  offline?: boolean
  /** Where missing model files are downloaded from (default: the Hugging Face hub). */
  remoteHost?: string
  /** The command that prepares the model, named in errors about missing files (see {@link projectCommand}). */
  fixCommand?: string
}

const embedders = new Map<string, Promise<Embedder>>()

/**
 * The embedder of a project's model, shared by every project and build of
 * this process that uses the same model settings (loading one takes a second):
 * Transformers.js in this process, or the embedding server of `model.server`.
 */
export function projectEmbedder(model: ModelConfig, { offline = false, remoteHost, fixCommand }: EmbedderOptions = {}): Promise<Embedder> {
  const key = JSON.stringify([model, offline, remoteHost])
  let embedder = embedders.get(key)
  if (!embedder) {
    embedder = model.server
      ? createServerEmbedder({
        model: model.id,
        server: model.server,
        maxTokens: model.maxTokens,
        queryPrefix: model.queryPrefix,
        documentPrefix: model.documentPrefix,
        cacheDir: model.cacheDir,
        revision: model.revision,
      })
      : createTransformersEmbedder({
        model: model.id,
        revision: model.revision,
        dtype: model.dtype,
        cacheDir: model.cacheDir,
        offline,
        remoteHost,
        fixCommand,
        maxTokens: model.maxTokens,
        queryPrefix: model.queryPrefix,
        documentPrefix: model.documentPrefix,
      })
    embedders.set(key, embedder)
    embedder.catch(() => embedders.delete(key))
  }
  return embedder
}

/** Releases every embedder {@link projectEmbedder} loaded. */
export async function disposeProjectEmbedders(): Promise<void> {
  const all = [...embedders.values()]
  embedders.clear()
  await Promise.all(all.map(async e => (await e.catch(() => undefined))?.dispose()))
}

export interface ProjectBuildOptions extends EmbedderOptions {
  /** Re-embed every window. */
  force?: boolean
  /** Another embedder than the project's model (tests, remote services); unused by a project with `"model": false`. */
  embedder?: Embedder
  /** Called as the build reads, embeds and publishes (see {@link KnowledgeProgress}). */
  onProgress?: (event: KnowledgeProgress) => void
  /**
   * Asked once the index is built, and again right before its manifest is
   * written: `true` (the documents changed while it was built, see
   * `RebuildContext.stale`) publishes nothing and resolves with a
   * {@link StaleProjectBuild}.
   */
  stale?: () => boolean
  /**
   * Keeps the published query table of the same model for changed documents
   * instead of distilling a new one (a dev server's rebuilds: seconds faster;
   * the next build without it makes the table of the documents as they are).
   */
  reuseQueryTable?: boolean
}

/**
 * A build that `stale()` stopped before publishing: the published index is
 * unchanged. Its `diagnostics` are those of the documents as they were read,
 * which may be gone already. Tell it apart by `stale: true`.
 */
export interface StaleProjectBuild extends KnowledgeBuildFailure {
  stale: true
}

/** A built and published index. */
export interface ProjectBuild extends KnowledgeIndex {
  /** The published snapshot file (content-addressed, never rewritten). */
  snapshotFile: string
  /** The published document bodies. */
  documentsFile: string
  /** The static query encoder's table, when the project has one (`queryEncoder` `auto` or `static`), and its published folder. */
  queryTable?: QueryTableFiles & { dir: string }
}

/**
 * Builds a project's index (reusing cached vectors) and publishes it under
 * `output`: snapshot and bodies first, then the manifest that names them, so
 * a reader sees one whole version or the previous one. Resolves with the
 * published build, the problems that failed it (nothing published), or, when
 * `options.stale()` says so at the end, a {@link StaleProjectBuild}.
 */
export async function buildKnowledgeProject(project: KnowledgeProject, options: ProjectBuildOptions = {}): Promise<ProjectBuild | KnowledgeBuildFailure | StaleProjectBuild> {
  const { config } = project
  // With "model": false, no model is loaded (nor Transformers.js imported): the index is lexical only.
  const embedder = config.model === false ? null : options.embedder ?? await projectEmbedder(config.model, { fixCommand: projectCommand(project, 'model'), ...options })
  const index = await buildKnowledgeIndex(config.knowledge, {
    embedder,
    chunk: config.chunk,
    maxDocumentBytes: config.maxDocumentBytes,
    cacheDir: config.cache,
    force: options.force,
    onProgress: options.onProgress,
  })
  // A folder that changed meanwhile: this index (or these errors) may describe text that is gone.
  if (options.stale?.())
    return { stale: true, diagnostics: index.diagnostics, files: index.files }
  if (!('snapshot' in index))
    return index
  // The static query encoder's table, beside the snapshot it was distilled for.
  const queryTable = embedder ? await projectQueryTable(config, embedder, index, { reuse: options.reuseQueryTable, stale: options.stale }) : undefined
  if (options.stale?.())
    return { stale: true, diagnostics: index.diagnostics, files: index.files }
  const published = await publishIndex(config.output, { name: config.name, index, settings: settingsDigest(config), queryTable, stale: options.stale })
  if (!published)
    return { stale: true, diagnostics: index.diagnostics, files: index.files }
  options.onProgress?.({ phase: 'done' })
  return { ...index, snapshotFile: published.snapshotFile, documentsFile: published.documentsFile, ...(queryTable && published.manifest.queryTable && { queryTable: { ...queryTable, dir: join(config.output, published.manifest.queryTable.folder) } }) }
}

/**
 * Digest of the settings an index depends on: the model (not where its files
 * are, or `false`; for a server, its endpoint without credentials and none of
 * the request settings, which change no vector) and chunking.
 */
export function settingsDigest(config: KnowledgeConfig): string {
  let model: Record<string, unknown> | false = false
  if (config.model) {
    const { cacheDir: _, server, ...rest } = config.model
    model = server ? { ...rest, provider: 'openai-compatible', endpoint: endpointOf(server.baseUrl), dimensions: server.dimensions } : rest
  }
  return hash(JSON.stringify([model, config.chunk, PIPELINE_VERSION]))
}

/** Whether a project's published index matches its folder and settings. */
export type IndexState =
  | { state: 'missing' }
  | { state: 'stale', manifest: IndexManifest, reason: string }
  | { state: 'fresh', manifest: IndexManifest }

/** Compares the published index with the folder and settings as they are now (reads every document). */
export function indexState(project: KnowledgeProject): IndexState {
  const manifest = readManifest(project.config.output)
  if (!manifest)
    return { state: 'missing' }
  if ((manifest.snapshotFormat ?? 1) !== SNAPSHOT_VERSION)
    return { state: 'stale', manifest, reason: 'it was built by another version of unplugin-skill-kit' }
  if (manifest.settings !== settingsDigest(project.config))
    return { state: 'stale', manifest, reason: 'the model or chunk settings changed' }
  if (manifest.digest !== loadKnowledgeFolder(project.config.knowledge, { maxDocumentBytes: project.config.maxDocumentBytes }).digest)
    return { state: 'stale', manifest, reason: 'documents changed' }
  return { state: 'fresh', manifest }
}
