// Routed index pages for the plugin: routing a knowledge folder through the same
// project code as `routeKnowledgeProject` callers, with one memo per folder (an
// edit parses and cards that document only), and the Vite dev server's builds,
// which its watcher keeps current (see dev-server.ts).

import type { Diagnostic } from '../../core/diagnostics'
import type { RoutedSkill } from '../../routing/layout'
import type { RoutingStats } from '../../routing/memo'
import type { FolderTarget } from '../folders/ids'
import { join } from 'node:path'
import { formatDiagnostic } from '../../core/diagnostics'
import { FolderBuilds } from '../folders/builds'
import { closest } from '../../core/text'
import { openKnowledgeProject } from '../../knowledge/project'
import { RoutingError } from '../../routing/client'
import { newRoutingStats, RoutingMemo } from '../../routing/memo'
import { routeKnowledgeProject, routingModel } from '../../routing/project'

/** How many documents a warning names before it says how many more. */
const NAMED = 5

/** Routed index pages, or the report of why they could not be built. */
export type RoutesOutcome =
  | {
    ok: true
    routes: RoutedSkill
    stats: RoutingStats
    /** Documents with no cached answer of the routing model (cache-only builds): one line that says so. */
    warning?: string
    /** What the pages are made of: the settings and every document (added ones appear in `dirs`). */
    files: string[]
    dirs: string[]
  }
  | { ok: false, message: string, /** Where the message points: its first error. */ diagnostic?: Diagnostic, /** What fixing it may touch. */ watch: string[] }

/** What the plugin needs of its knowledge bases: the folder of a name, and the names for messages. */
export interface NamedFolders {
  folderOf: (name: string) => string | undefined
  readonly names: string[]
}

/**
 * The warning of a cache-only routing (the dev server, watch builds) that
 * left documents or pages to the offline router; `undefined` when none.
 */
export function uncachedWarning(label: string, stats: RoutingStats, documents: number): string | undefined {
  const { uncached, uncachedPages } = stats
  if (uncached.length === 0 && uncachedPages === 0)
    return undefined
  const named = `${uncached.slice(0, NAMED).join(', ')}${uncached.length > NAMED ? `, and ${uncached.length - NAMED} more` : ''}`
  const what = [
    uncached.length > 0 ? `${uncached.length} of ${documents} document${documents === 1 ? '' : 's'} (${named})` : '',
    uncachedPages > 0 ? `${uncachedPages} index page${uncachedPages === 1 ? '' : 's'}` : '',
  ].filter(Boolean).join(' and ')
  const one = uncached.length + uncachedPages === 1
  return `${label}: ${what} ${one ? 'has' : 'have'} no cached answer from the routing model, so the offline router describes ${one ? 'it' : 'them'} for now: the dev server and watch builds never ask the model. Run vite build to ask it.`
}

/**
 * Routes knowledge folders for the plugin. Builds are shared while they run
 * (two environments importing one routes module route it once); each folder
 * keeps a {@link RoutingMemo} for the life of the plugin.
 */
export class RoutesService {
  private readonly memos = new Map<string, RoutingMemo>()
  /** The warning last given per target, so a dev server says it again only when it changes. */
  private readonly warned = new Map<string, string | undefined>()
  /** The routes modules' builds, shared while they run; the dev server's watcher keeps them current. */
  readonly builds = new FolderBuilds<RoutesOutcome>({
    servedAs: outcome => JSON.stringify(outcome.routes),
    onSettled: (key, outcome) => this.warnOnce(key, outcome),
  })

  /** The dev server's terminal: each build's warning, when it differs from the last one of its target. */
  onWarning: ((message: string) => void) | undefined

  constructor(
    private readonly named: NamedFolders,
    private readonly root: () => string,
    private readonly relativize: (file: string) => string,
  ) {}

  /** Forgets finished builds, so the next import routes again (the memo makes that cheap); not in a live dev server. */
  reset(): void {
    this.builds.reset()
  }

  /** Routes `target`, or joins its running build. `cacheOnly`: never ask a routing model (see `RouteProjectOptions`). */
  build(target: FolderTarget, options: { cacheOnly: boolean }): Promise<RoutesOutcome> {
    return this.builds.build(target, () => this.run(target, options.cacheOnly))
  }

  /** Routes `target` again after its running build, if any, for the dev server to adopt: cache-only. */
  rebuild(target: FolderTarget): Promise<RoutesOutcome> {
    return this.builds.rebuild(target, () => this.run(target, true))
  }

  private warnOnce(key: string, outcome: RoutesOutcome): void {
    if (!outcome.ok || !this.onWarning || this.warned.get(key) === outcome.warning)
      return
    this.warned.set(key, outcome.warning)
    if (outcome.warning)
      this.onWarning(outcome.warning)
  }

  private memoOf(dir: string): RoutingMemo {
    let memo = this.memos.get(dir)
    if (!memo)
      this.memos.set(dir, memo = new RoutingMemo())
    return memo
  }

  private async run(target: FolderTarget, cacheOnly: boolean): Promise<RoutesOutcome> {
    const dir = target.kind === 'dir' ? target.dir : this.named.folderOf(target.name)
    if (dir === undefined) {
      const name = target.kind === 'name' ? target.name : ''
      const guess = closest(name, this.named.names)
      return { ok: false, watch: [], message: `No knowledge base is named "${name}".${guess ? ` Did you mean "${guess}"?` : ''} Name it in the plugin options: knowledge: { ${JSON.stringify(name)}: './folder' }.` }
    }
    const label = `Routed index pages of ${this.relativize(dir)}`
    const watch = [join(dir, 'skill-kit.json')]
    const opened = openKnowledgeProject(dir, { root: this.root() })
    this.builds.setFolders({ target, roots: [dir], written: this.builds.foldersOf(target)?.written ?? [] })
    if (!opened.project) {
      const errors = opened.diagnostics.filter(d => d.severity === 'error')
      return { ok: false, watch, diagnostic: errors[0], message: `${label} cannot be built. Fix its settings:\n\n${errors.map(d => formatDiagnostic(d, this.relativize)).join('\n')}` }
    }
    const { config } = opened.project
    this.builds.setFolders({
      target,
      roots: [...new Set([dir, config.knowledge])],
      // The routing cache is under output.
      written: [config.output, config.cache, ...(config.model ? [config.model.cacheDir] : [])],
      watch: config.watch,
    })
    // The LLM router only when a routing model is configured (skill-kit.json or SKILL_KIT_LLM_MODEL); the offline router otherwise.
    const stats = newRoutingStats()
    let routes
    try {
      routes = await routeKnowledgeProject(opened.project, { cacheOnly, memo: this.memoOf(config.knowledge), stats })
    }
    catch (error) {
      if (error instanceof RoutingError)
        return { ok: false, watch, message: `${label}: ${error.message}` }
      throw error
    }
    if ('diagnostics' in routes) {
      const errors = routes.diagnostics.filter(d => d.severity === 'error')
      return { ok: false, watch: [...watch, ...routes.files], diagnostic: errors[0], message: `${label}: fix the invalid documents:\n\n${errors.map(d => formatDiagnostic(d, this.relativize)).join('\n')}` }
    }
    const documents = Object.values(routes.cards)
    return {
      ok: true,
      routes,
      stats,
      warning: cacheOnly && routingModel(opened.project) ? uncachedWarning(label, stats, documents.length) : undefined,
      files: [...watch, ...documents.map(card => join(config.knowledge, ...card.path.split('/')))],
      dirs: [config.knowledge],
    }
  }
}
