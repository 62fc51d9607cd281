// Builds of the modules made from a folder (knowledge bases, their routed
// index pages): one build per target at a time, shared by every import that
// asks while it runs; the outcome each import gets once it ended; in the dev
// server (`live`), the last valid build kept over a failed one until a valid
// one replaces it; the complete builds it runs in the background behind a
// partial module served at once (a knowledge base's lexical index, before its
// vectors); and the folders each target reads, for the dev server to watch
// (`dev-rebuild.ts`).

import type { Diagnostic } from '../../core/diagnostics'
import type { WatchConfig } from '../../knowledge/config'
import type { BundlerAdapter } from '../bundlers'
import type { HookContext } from '../kind'
import type { FolderTarget } from './ids'

/** A build's outcome: delivered, or why not. */
export type FolderOutcome = { ok: true } | { ok: false, message: string, /** Where the message points: its first error. */ diagnostic?: Diagnostic, /** What fixing it may touch. */ watch: string[] }

/** What a dev server watches of a folder module: its folders, and what its builds write inside them. */
export interface WatchedFolders {
  target: FolderTarget
  /** The project folder and its documents' folder (one and the same for a bare folder). */
  roots: string[]
  /** The index, vector cache and model folders builds write to: never a change to build again for. */
  written: string[]
  /** `skill-kit.json`'s `watch` settings (settle time, longest wait), once the project was read. */
  watch?: WatchConfig
}

/** How a kind's outcomes compare, and what it does when one settles. */
export interface FolderBuildsSpec<O extends FolderOutcome> {
  /** What a module is generated from: equal for two valid builds, imports get the same module. */
  servedAs: (outcome: O & { ok: true }) => string
  /** Called when an outcome becomes what the imports of `key` get. */
  onSettled?: (key: string, outcome: O) => void
}

/** How a background build ended (its outcome, or what it threw), and when it started (`performance.now()`). */
export type BackgroundResult<O> = ({ outcome: O } | { error: unknown }) & { started: number }

export class FolderBuilds<O extends FolderOutcome> {
  private readonly running = new Map<string, Promise<O>>()
  /** The outcome each import of a target gets, once its build ended. */
  private readonly settled = new Map<string, O>()
  private readonly folders = new Map<string, WatchedFolders>()
  /** The complete builds running behind a partial module, by target. */
  private readonly background = new Map<string, Promise<void>>()
  /**
   * Set by the Vite dev server, whose watcher rebuilds what changes and
   * {@link adopt}s the result: {@link reset} then keeps the builds.
   */
  live = false
  /** Told the folders of each target as a build opens it (the dev server watches them). */
  onFolders: ((folders: WatchedFolders) => void) | undefined
  /** Told how each background build ended (the dev server {@link adopt}s and sends it). */
  onBackground: ((target: FolderTarget, result: BackgroundResult<O>) => void) | undefined

  constructor(private readonly spec: FolderBuildsSpec<O>) {}

  /** Forgets finished builds, so the next import builds again (caches make that cheap); not in a live dev server. */
  reset(): void {
    if (!this.live) {
      this.running.clear()
      this.settled.clear()
    }
  }

  /** The targets that cannot be built (and have no valid build to serve instead), as their imports fail. */
  failures(): (O & { ok: false })[] {
    return [...this.settled.values()].filter((outcome): outcome is O & { ok: false } => !outcome.ok)
  }

  /** The folders of every target built so far. */
  watched(): WatchedFolders[] {
    return [...this.folders.values()]
  }

  /** The folders last noted for `target`. */
  foldersOf(target: FolderTarget): WatchedFolders | undefined {
    return this.folders.get(JSON.stringify(target))
  }

  /** Notes the folders of `target` as its build opens them. */
  setFolders(folders: WatchedFolders): void {
    this.folders.set(JSON.stringify(folders.target), folders)
    this.onFolders?.(folders)
  }

  /** Joins the running build of `target`, or starts one with `start`. */
  build(target: FolderTarget, start: () => Promise<O>): Promise<O> {
    const key = JSON.stringify(target)
    let outcome = this.running.get(key)
    if (!outcome) {
      const started = start()
      outcome = started
      this.running.set(key, started)
      void started.then((settled) => {
        if (this.running.get(key) === started)
          this.settle(key, settled)
      })
    }
    return outcome
  }

  /** Builds `target` again with `start`, after its running and background builds if any, for {@link adopt}. */
  async rebuild(target: FolderTarget, start: () => Promise<O>): Promise<O> {
    const key = JSON.stringify(target)
    await this.running.get(key)
    // The background build delivers first: a rebuild after it is the newer one.
    await this.background.get(key)
    return start()
  }

  /**
   * Runs the complete build of `target` behind the partial outcome its
   * imports get now, `afterMs` from now, and hands its end to {@link onBackground}.
   */
  runInBackground(target: FolderTarget, start: () => Promise<O>, afterMs = 0): void {
    const key = JSON.stringify(target)
    let started = 0
    const begin = () => {
      started = performance.now()
      return start()
    }
    const done = new Promise<void>(resolve => setTimeout(resolve, afterMs)).then(begin).then(outcome => ({ outcome, started }), (error: unknown) => ({ error, started })).then((result) => {
      this.background.delete(key)
      this.onBackground?.(target, result)
    })
    this.background.set(key, done)
  }

  /** Resolves once no background build of `target` runs (builds that must be complete, such as exports, wait for it). */
  async backgroundOf(target: FolderTarget): Promise<void> {
    await this.background.get(JSON.stringify(target))
  }

  /**
   * Serves `outcome` to the imports of `target` from now on, unless it failed
   * and a valid build is served: that one stays until a valid build replaces
   * it. Returns whether imports now get another module than before.
   */
  adopt(target: FolderTarget, outcome: O): boolean {
    const key = JSON.stringify(target)
    const previous = this.settled.get(key)
    if (!outcome.ok && previous?.ok)
      return false
    this.settle(key, outcome)
    this.running.set(key, Promise.resolve(outcome))
    return !(outcome.ok && previous?.ok && this.spec.servedAs(previous as O & { ok: true }) === this.spec.servedAs(outcome as O & { ok: true }))
  }

  private settle(key: string, outcome: O): void {
    this.settled.set(key, outcome)
    this.spec.onSettled?.(key, outcome)
  }
}

/**
 * Fails the import of a folder module whose build failed: the error, located
 * at its first problem, and (outside the dev server, whose watchers rebuild
 * on their own) what fixing it may touch, so that the fix rebuilds.
 */
export function failFolderModule(context: HookContext, { bundler, viteServe }: { bundler: BundlerAdapter, viteServe: object | undefined }, outcome: FolderOutcome & { ok: false }): undefined {
  if (viteServe === undefined)
    bundler.watchFailedBuild(context, outcome.watch)
  context.error(bundler.message(outcome.message, outcome.diagnostic))
  return undefined
}
