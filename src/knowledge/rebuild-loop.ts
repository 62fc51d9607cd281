// When to rebuild something that file changes make out of date: the knowledge
// watcher of `skill-kit watch` and the dev server's knowledge modules. File
// events come in bursts (an editor's save, a checkout, 60 files copied in),
// and a build takes from milliseconds to minutes, so builds wait for a burst
// to settle, never overlap, and a result that changes made out of date while
// it was built is thrown away for one more build. No file system, no clock of
// its own: the timers are injected, so tests drive them.

/** What a build is told. */
export interface RebuildContext {
  /** The changes this build covers (in the order they first came), those of discarded builds included. */
  readonly changes: readonly string[]
  /**
   * Whether a change came (or the loop closed) since this build started: its
   * result will not be delivered. Check it right before publishing anything.
   */
  stale: () => boolean
}

/** The timers a loop uses: the global ones unless a test injects its own. */
export interface RebuildTimers {
  setTimeout(callback: () => void, ms: number): unknown
  /** Cancels what `setTimeout` returned. */
  clearTimeout(handle: unknown): void
}

/** Options of a {@link RebuildLoop}. */
export interface RebuildLoopOptions<T> {
  /** Quiet time after the last change of a burst before a build starts (default {@link DEFAULT_SETTLE_MS}). */
  settleMs?: number
  /**
   * Longest wait from the first change of a burst to its build, so that a
   * stream of changes that never settles still builds (default {@link DEFAULT_MAX_WAIT_MS}).
   */
  maxWaitMs?: number
  /** Builds; may resolve with any outcome, failures included (see `onResult`). */
  build: (context: RebuildContext) => Promise<T> | T
  /** A build's outcome, unless it is stale. Outcomes that mean failure are the caller's to tell apart. */
  onResult?: (result: T, context: RebuildContext) => void
  /** What a build (or `onResult`) threw, unless the build is stale. */
  onError?: (error: unknown, context: RebuildContext) => void
  /** A build that a change made stale ended: nothing was delivered, and one more build follows. */
  onDiscard?: (context: RebuildContext) => void
  timers?: RebuildTimers
}

/** Default quiet time before a build: an editor's save is over by then, and a person does not notice it. */
export const DEFAULT_SETTLE_MS = 50
/** Default longest wait for a burst to settle. */
export const DEFAULT_MAX_WAIT_MS = 1000

/**
 * Turns change notifications into builds: debounced (a build starts
 * `settleMs` after the last change of a burst, or `maxWaitMs` after its
 * first), serialized (never two at once), and stale-safe (a change during a
 * build keeps that build's result from being delivered and queues exactly one
 * more build, which covers every change meanwhile).
 */
export class RebuildLoop<T> {
  private readonly settleMs: number
  private readonly maxWaitMs: number
  private readonly timers: RebuildTimers
  /** Changes no build has covered yet, in order of first arrival. */
  private pending = new Set<string>()
  private settleTimer: unknown
  private maxWaitTimer: unknown
  /** A timer fired while a build ran: the next build starts as soon as it ends. */
  private due = false
  private running: { stale: boolean } | undefined
  private closed = false
  private idleWaiters: (() => void)[] = []

  constructor(private readonly options: RebuildLoopOptions<T>) {
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS
    this.maxWaitMs = Math.max(options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS, this.settleMs)
    this.timers = options.timers ?? { setTimeout: (callback, ms) => setTimeout(callback, ms), clearTimeout: handle => clearTimeout(handle as NodeJS.Timeout) }
  }

  /** Notes a change (a path, or any label the caller reports with); ignored once closed. */
  change(path: string): void {
    if (this.closed)
      return
    this.pending.add(path)
    if (this.running)
      this.running.stale = true
    if (this.settleTimer !== undefined)
      this.timers.clearTimeout(this.settleTimer)
    this.settleTimer = this.timers.setTimeout(() => this.fire(), this.settleMs)
    this.maxWaitTimer ??= this.timers.setTimeout(() => this.fire(), this.maxWaitMs)
  }

  /** Builds now what is pending, without waiting for it to settle (after the running build, if any). */
  flush(): void {
    if (!this.closed && this.pending.size > 0)
      this.fire()
  }

  /** Whether a build is running. */
  get building(): boolean {
    return this.running !== undefined
  }

  /** Resolves once no build runs and none is pending. */
  settled(): Promise<void> {
    if (this.idle())
      return Promise.resolve()
    return new Promise(resolve => this.idleWaiters.push(resolve))
  }

  /**
   * Stops: pending changes are dropped, no build starts again, and a running
   * build becomes stale (it publishes nothing and is not delivered).
   * Resolves once that build has ended.
   */
  close(): Promise<void> {
    this.closed = true
    this.clearTimers()
    this.pending.clear()
    this.due = false
    if (this.running)
      this.running.stale = true
    return this.settled()
  }

  private idle(): boolean {
    return !this.running && (this.closed || this.pending.size === 0)
  }

  private clearTimers(): void {
    if (this.settleTimer !== undefined)
      this.timers.clearTimeout(this.settleTimer)
    if (this.maxWaitTimer !== undefined)
      this.timers.clearTimeout(this.maxWaitTimer)
    this.settleTimer = undefined
    this.maxWaitTimer = undefined
  }

  private fire(): void {
    this.clearTimers()
    if (this.closed || this.pending.size === 0)
      return
    if (this.running)
      this.due = true
    else
      void this.start()
  }

  private async start(): Promise<void> {
    this.due = false
    const state = { stale: false }
    const context: RebuildContext = { changes: [...this.pending], stale: () => state.stale }
    this.pending.clear()
    this.running = state
    let outcome: { ok: true, result: T } | { ok: false, error: unknown }
    try {
      outcome = { ok: true, result: await this.options.build(context) }
    }
    catch (error) {
      outcome = { ok: false, error }
    }
    this.running = undefined
    if (state.stale) {
      // Its changes are not published yet: the next build covers them too, listed first.
      if (!this.closed)
        this.pending = new Set([...context.changes, ...this.pending])
      this.report(() => this.options.onDiscard?.(context), context)
    }
    else if (outcome.ok) {
      this.report(() => this.options.onResult?.(outcome.result, context), context)
    }
    else {
      this.options.onError?.(outcome.error, context)
    }
    // Changes that came after the timer fired get their quiet time first: their timer starts the build.
    if (this.due && !this.closed && this.settleTimer === undefined)
      void this.start()
    else if (this.idle())
      this.idleWaiters.splice(0).forEach(resolve => resolve())
  }

  /** Runs a callback; what it throws goes to `onError` rather than breaking the loop. */
  private report(callback: () => void, context: RebuildContext): void {
    try {
      callback()
    }
    catch (error) {
      this.options.onError?.(error, context)
    }
  }
}
