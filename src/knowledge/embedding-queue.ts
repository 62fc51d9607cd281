// Embeds a build's windows while the folder is still being cut into them: a
// window joins the request being filled, a full request goes out at once, and
// the producer waits only when the embedder's requests in flight are at its
// bound. So reading, indexing and the server's work overlap, and only the
// windows of requests being filled or in flight are held.

import type { Embedder } from './embedder'
import type { KnowledgeProgress } from './progress'
import { EmbeddingServerError, requestIsFull } from './server-embedder'

/** Windows per call of an embedder that does not say how it is fed (see `Embedder.requests`). */
const LOCAL_BATCH = 64

/** Where embedded vectors go, and who hears of the progress. */
export interface EmbeddingQueueOptions {
  /** Receives each window's vector, by the key it was pushed with, as its request answers. */
  onVector: (key: string, vector: Float32Array) => void
  /** After each answer: vectors are checkpointed there (the cache). */
  onAnswer?: () => void
  onProgress?: (event: KnowledgeProgress) => void
}

/**
 * The windows a build sends to its embedder, in calls planned by the
 * embedder's `requests` (bounded windows and estimated tokens, several in
 * flight) or 64 at a time, one after another. After a call fails no new one
 * starts; {@link EmbeddingQueue.finish} throws once those in flight settle.
 */
export class EmbeddingQueue {
  private readonly limits: { inputs: number, tokens: number }
  private readonly concurrency: number
  private keys: string[] = []
  private windows: number[][] = []
  private tokens = 0
  private readonly inFlight = new Set<Promise<void>>()
  private failure: { error: unknown } | undefined
  /** Windows pushed, and embedded. */
  private pushed = 0
  private done = 0
  /**
   * An in-process model (no `requests`) embeds on the build's own cores, so
   * overlapping it with the pass gains nothing: its windows wait for `finish`,
   * and the folder is cut whole before the first batch, as progress says.
   */
  private deferred: [string, number[]][] | undefined

  constructor(private readonly embedder: Embedder, private readonly options: EmbeddingQueueOptions) {
    const { requests } = embedder
    this.limits = requests ?? { inputs: LOCAL_BATCH, tokens: Number.POSITIVE_INFINITY }
    this.concurrency = requests?.concurrency ?? 1
    this.deferred = requests ? undefined : []
  }

  /** Whether a call failed: pushing more sends nothing. */
  get failed(): boolean {
    return this.failure !== undefined
  }

  /** Windows pushed (each to be embedded once). */
  get size(): number {
    return this.pushed
  }

  /**
   * Adds a window (token IDs, keyed by its vector's cache key). Resolves at
   * once, or, when this fills a request and the calls in flight are at the
   * bound, once one of them settles.
   */
  async push(key: string, window: number[]): Promise<void> {
    this.pushed++
    if (this.deferred) {
      this.deferred.push([key, window])
      return
    }
    await this.enqueue(key, window)
  }

  private async enqueue(key: string, window: number[]): Promise<void> {
    if (this.failure)
      return
    const estimate = Math.ceil((window.length + this.embedder.reservedTokens.document) / (this.embedder.unitsPerToken ?? 1))
    if (requestIsFull(this.keys.length, this.tokens, estimate, this.limits))
      await this.send()
    this.keys.push(key)
    this.windows.push(window)
    this.tokens += estimate
  }

  /**
   * Sends what is left and waits for every call. Throws the first failure; an
   * embedding server's says how many of the pushed windows were embedded and
   * cached, and what the next build will request.
   */
  async finish(): Promise<void> {
    const deferred = this.deferred ?? []
    this.deferred = undefined
    for (const [key, window] of deferred)
      await this.enqueue(key, window)
    if (!this.failure)
      await this.send()
    await Promise.all(this.inFlight)
    if (!this.failure)
      return
    const { error } = this.failure
    if (!(error instanceof EmbeddingServerError))
      throw error
    const total = this.pushed
    throw new EmbeddingServerError(`${error.message} ${this.done} of ${total} ${total === 1 ? 'window to embed is' : 'windows to embed are'} embedded and cached, so the next build requests only the other ${total - this.done}.`, { cause: error })
  }

  /** Starts a call of the request being filled, after waiting for room among those in flight. */
  private async send(): Promise<void> {
    while (this.inFlight.size >= this.concurrency && !this.failure)
      await Promise.race(this.inFlight)
    if (this.failure || this.keys.length === 0)
      return
    const keys = this.keys
    const windows = this.windows
    this.keys = []
    this.windows = []
    this.tokens = 0
    const call = this.call(keys, windows).then(() => {
      this.inFlight.delete(call)
    })
    this.inFlight.add(call)
  }

  private async call(keys: readonly string[], windows: readonly number[][]): Promise<void> {
    const { onVector, onAnswer, onProgress } = this.options
    try {
      const vectors = await this.embedder.embedTokens(windows, 'document', { log: line => onProgress?.({ phase: 'retry', line }) })
      // Answers that arrive after another call failed are kept too: the next build needs them no more.
      for (const [i, key] of keys.entries())
        onVector(key, vectors[i]!)
      this.done += keys.length
      onAnswer?.()
      // In flight as this answer arrived, itself included.
      onProgress?.({ phase: 'embed', done: this.done, total: this.pushed, ...(this.embedder.requests ? { inFlight: this.inFlight.size } : {}) })
    }
    catch (error) {
      this.failure ??= { error }
    }
  }
}
