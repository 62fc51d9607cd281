// Building knowledge bases for the plugin through the same project code as
// the CLI (same cache, same published files).

import type { Diagnostic } from '../../core/diagnostics'
import type { Embedder } from '../../knowledge/embedder'
import type { LexicalPreview } from '../../knowledge/lexical-preview'
import type { KnowledgeProject, ProjectBuild } from '../../knowledge/project'
import type { ShardOptions } from '../../knowledge/snapshot-shards'
import type { SnapshotDocument } from '../../runtime/knowledge/format/snapshot-layout'
import type { KnowledgeOptions, Options } from '../options'
import type { ProgressWrite } from '../bundlers/progress'
import type { KnowledgeTarget } from './ids'
import { join, resolve } from 'node:path'
import { formatDiagnostic } from '../../core/diagnostics'
import { closest } from '../../core/text'
import { ModelNotAvailableError } from '../../knowledge/embedder-files'
import { ModelDownloadError } from '../../knowledge/model-download'
import { withPageUrls } from '../../knowledge/page-urls'
import { EmbeddingServerError } from '../../knowledge/server-embedder'
import { knowledgeProgressReporter } from '../../knowledge/progress'
import { lexicalPreview } from '../../knowledge/lexical-preview'
import { buildKnowledgeProject, openKnowledgeProject } from '../../knowledge/project'
import { QueryTableUnavailableError } from '../../knowledge/project-query-table'
import { TransformersMissingError } from '../../knowledge/transformers'
import { decodeSnapshot } from '../../runtime/knowledge/format/snapshot-reader'
import { FolderBuilds } from '../folders/builds'
import { bodyVersion } from './ids'

/** A built knowledge base, or the report of why it could not be built. */
export type KnowledgeOutcome =
  | { ok: true, name: string, project: KnowledgeProject, build: ProjectBuild, documents: SnapshotDocument[], /** The dev server's lexical preview, served while the complete build embeds (see lexical-preview.ts). */ vectorsPending: boolean, includeModel: boolean, /** Publish as a core and shards. */ shards: ShardOptions | false, /** Vite builds: HTML preload links for the cores (see html-preloads.ts). */ preloadHtml: boolean, warnings: Diagnostic[], watch: string[] }
  | { ok: false, message: string, /** Where the message points: its first error. */ diagnostic?: Diagnostic, watch: string[] }

/**
 * How long after serving a lexical preview its complete build starts: loading
 * the model holds the event loop for about half a second, and the page's
 * first search (module, snapshot, query) should not wait behind it. The
 * vectors arrive that much later, after seconds to minutes of embedding.
 */
const BACKGROUND_GRACE_MS = 1000

/** What a module is generated from: equal for two builds, the module is the same (a folder swapped in with the same documents, a file saved unchanged). */
function servedAs(outcome: KnowledgeOutcome & { ok: true }): string {
  const { name, build, project, includeModel, shards } = outcome
  return JSON.stringify([name, build.snapshotFile, build.documentsFile, build.queryTable?.dir, project.config, includeModel, shards])
}

/** A knowledge base's `shards` option (checked with the plugin's options: `validate-options.ts`). */
function shardOptions(value: KnowledgeOptions['shards']): ShardOptions | false {
  return value === true ? {} : value || false
}

/** Diagnostics as one report, a line each; the message's code frame shows the first error (see `bundlers/message.ts`). */
function report(diagnostics: readonly Diagnostic[], relativize: (file: string) => string): string {
  return diagnostics.map(d => formatDiagnostic(d, relativize)).join('\n')
}

/**
 * Builds knowledge bases for the plugin. Builds are shared while they run, so
 * two environments importing one knowledge base embed it once; bodies of the
 * last build are kept for their modules, so they match the snapshot.
 */
export class KnowledgeService {
  private readonly bodies = new Map<string, string>()
  /** Every body built in this process, by {@link bodyVersion}: dev-server modules of older indexes still resolve. */
  private readonly versions = new Map<string, string>()
  /** The builds of each knowledge base, shared while they run; the dev server's watcher keeps them current. */
  readonly builds = new FolderBuilds<KnowledgeOutcome>({ servedAs })
  /** Embeds in place of each project's model (tests and benchmarks hold or time builds with it). */
  embedder: Embedder | undefined

  constructor(
    private readonly options: Options,
    private readonly root: () => string,
    private readonly relativize: (file: string) => string,
  ) {}

  /** The configured names, for messages. */
  get names(): string[] {
    return Object.keys(this.options.knowledge ?? {})
  }

  /** The body of a document as of the last build of its knowledge base. */
  body(file: string): string | undefined {
    return this.bodies.get(file)
  }

  /** A body of {@link bodyVersion} `version`, from any build of this process. */
  bodyOfVersion(version: string): string | undefined {
    return this.versions.get(version)
  }

  /** Forgets finished builds, so the next import builds again (cached vectors make that cheap); not in a live dev server. */
  reset(): void {
    this.builds.reset()
  }

  /**
   * Builds a knowledge base again (after its running build, if any), for
   * the dev server to adopt; `stale` is asked right before publishing, and a
   * `true` publishes nothing.
   */
  rebuild(target: KnowledgeTarget, options: { stale: () => boolean, progress?: ProgressWrite }): Promise<KnowledgeOutcome> {
    return this.builds.rebuild(target, () => this.run(target, options.progress, options.stale))
  }

  /** The folders of the named knowledge bases, for watching. */
  namedFolders(): string[] {
    return this.names.map(name => this.folderOf(name)!)
  }

  /** The settings of the named knowledge base in `dir`, if one is. */
  private entryOfFolder(dir: string): KnowledgeOptions | undefined {
    const name = this.names.find(n => this.folderOf(n) === dir)
    const configured = name === undefined ? undefined : this.options.knowledge![name]!
    return typeof configured === 'string' ? { dir: configured } : configured
  }

  /** The folder of a named knowledge base. */
  folderOf(name: string): string | undefined {
    const entry = this.options.knowledge?.[name]
    return entry === undefined ? undefined : resolve(this.root(), typeof entry === 'string' ? entry : entry.dir)
  }

  /**
   * Builds a knowledge base, or joins its running build; `progress` gets the
   * lines of a build this call starts. In a live dev server, what its module
   * serves: a cold or partly cached folder's lexical index at once, while the
   * complete build runs in the background; elsewhere (`vite build`, other
   * bundlers) the complete index, waited for.
   */
  build(target: KnowledgeTarget, progress?: ProgressWrite): Promise<KnowledgeOutcome> {
    return this.builds.build(target, () => this.run(target, progress, undefined, this.builds.live))
  }

  /** The complete build of a knowledge base: as {@link build}, after the background build that completes a preview. */
  async complete(target: KnowledgeTarget, progress?: ProgressWrite): Promise<KnowledgeOutcome> {
    const first = await this.build(target, progress)
    if (!first.ok || !first.vectorsPending)
      return first
    await this.builds.backgroundOf(target)
    const next = await this.build(target, progress)
    // A background build that failed leaves the preview served (and its error in the overlay).
    if (next.ok && next.vectorsPending)
      return { ok: false, watch: next.watch, message: `Knowledge base "${next.name}" could not be embedded (the dev server's log and overlay say why), so it has no complete index yet: fix that, and it builds again.` }
    return next
  }

  private async run(target: KnowledgeTarget, progress: ProgressWrite | undefined, stale?: () => boolean, preview = false): Promise<KnowledgeOutcome> {
    let entry: KnowledgeOptions
    if (target.kind === 'name') {
      const configured = this.options.knowledge?.[target.name]
      if (configured === undefined) {
        const guess = closest(target.name, this.names)
        return {
          ok: false,
          watch: [],
          message: `No knowledge base is named "${target.name}".${guess ? ` Did you mean "${guess}"?` : ''} Name it in the plugin options: knowledge: { ${JSON.stringify(target.name)}: './folder' }${this.names.length ? ` (configured: ${this.names.join(', ')})` : ''}.`,
        }
      }
      entry = typeof configured === 'string' ? { dir: configured } : configured
    }
    else {
      // A folder that is also a named knowledge base is built with that name's settings.
      entry = this.entryOfFolder(target.dir) ?? { dir: target.dir }
    }
    const dir = resolve(this.root(), entry.dir)
    const opened = openKnowledgeProject(dir, { root: this.root(), overrides: { model: entry.model, chunk: entry.chunk, search: entry.search, queryEncoder: entry.queryEncoder, description: entry.description } })
    const watch = [dir, join(dir, 'skill-kit.json')]
    const seen = this.builds.foldersOf(target)
    this.builds.setFolders({ ...seen, target, roots: [dir], written: seen?.written ?? [] })
    const label = target.kind === 'name' ? `Knowledge base "${target.name}" (${this.relativize(dir)})` : `Knowledge folder ${this.relativize(dir)}`
    if (!opened.project) {
      const errors = opened.diagnostics.filter(d => d.severity === 'error')
      return { ok: false, watch, diagnostic: errors[0], message: `${label} cannot be built. Fix its settings:\n\n${report(opened.diagnostics, this.relativize)}` }
    }
    const { project } = opened
    const { config } = project
    this.builds.setFolders({
      target,
      roots: [...new Set([dir, config.knowledge])],
      written: [config.output, config.cache, ...(config.model ? [config.model.cacheDir] : [])],
      watch: config.watch,
    })
    const withModel = project.config.model !== false
    if (!withModel && entry.includeModel)
      return { ok: false, watch, message: `${label} has no model ("model": false), so includeModel has nothing to emit: remove includeModel from its options, or replace "model": false with the model's settings.` }
    const shards = shardOptions(entry.shards)
    const name = target.kind === 'name' ? target.name : project.config.name
    const onProgress = progress && knowledgeProgressReporter(name, { write: progress, now: () => performance.now() })
    // A folder whose vectors are not all cached: its words are searchable at once, its meaning once embedded.
    const previewed: LexicalPreview = preview && withModel ? lexicalPreview(project) : { kind: 'fresh' }
    let build: Awaited<ReturnType<typeof buildKnowledgeProject>>
    if (previewed.kind === 'preview') {
      build = previewed.build
      if ('snapshot' in build) {
        progress?.(`${name}: searching its ${build.documents.length} documents by their words at once; embedding them in the background (the page updates when the vectors are in)`)
        this.builds.runInBackground(target, () => this.run(target, progress), BACKGROUND_GRACE_MS)
      }
    }
    else {
      try {
        // A dev server's rebuild keeps the query table it has: a new one would cost seconds an edit.
        build = await buildKnowledgeProject(project, { offline: this.options.offline, onProgress, stale, embedder: this.embedder, reuseQueryTable: this.builds.live && stale !== undefined })
      }
      catch (error) {
        // Each names what is missing and the command that gets it.
        if (error instanceof ModelNotAvailableError || error instanceof ModelDownloadError || error instanceof TransformersMissingError || error instanceof EmbeddingServerError || error instanceof QueryTableUnavailableError)
          return { ok: false, watch, message: `${label}: ${error.message}` }
        return { ok: false, watch, message: `${label}: embedding failed: ${(error as Error).message}` }
      }
    }
    watch.push(...build.files)
    if ('stale' in build)
      return { ok: false, watch, message: `${label} changed while it was built; it builds again.` }
    if (!('snapshot' in build)) {
      const errors = build.diagnostics.filter(d => d.severity === 'error')
      const files = new Set(errors.map(d => d.file)).size
      return { ok: false, watch, diagnostic: errors[0], message: `${label} has ${files} invalid document${files === 1 ? '' : 's'}. Fix ${files === 1 ? 'it' : 'them'}:\n\n${report(build.diagnostics, this.relativize)}` }
    }
    for (const document of build.documents) {
      this.bodies.set(join(project.config.knowledge, document.path), document.body)
      this.versions.set(bodyVersion(document.body), document.body)
    }
    let documents = decodeSnapshot(build.snapshot, { verify: false }).documents
    // The plugin's option wins over skill-kit.json's (a preset or pattern only: JSON holds no function).
    const url = entry.url ?? config.url
    if (url !== undefined) {
      try {
        documents = withPageUrls(documents, url, `The url option of ${label}`)
      }
      catch (error) {
        return { ok: false, watch, message: (error as Error).message }
      }
    }
    return {
      ok: true,
      name,
      project,
      build,
      documents,
      vectorsPending: previewed.kind === 'preview',
      // The plugin-wide includeModel applies to the knowledge bases that have a model.
      includeModel: withModel && (entry.includeModel ?? this.options.includeModel ?? false),
      shards,
      preloadHtml: entry.preloadHtml === true,
      warnings: [...opened.diagnostics, ...build.diagnostics],
      watch,
    }
  }
}
