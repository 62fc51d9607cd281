// The Modern Web Guidance guides as the plugin imports them (playground/guides, see
// vite.config.ts), and the state of their query model, which loads in the background.

import guides from 'virtual:skill-kit/knowledge/guides'

export { guides }

/** `loading` until semantic search is ready (`loadModel`); `failed` leaves lexical search only. */
export type ModelState = { state: 'loading' } | { state: 'ready', ms: number } | { state: 'failed', reason: string }

let model: ModelState = { state: 'loading' }
const listeners = new Set<(state: ModelState) => void>()

export function modelState(): ModelState {
  return model
}

/** Calls `listener` when the model becomes ready or fails. */
export function onModelState(listener: (state: ModelState) => void): void {
  listeners.add(listener)
}

/**
 * Readies semantic search, once: the snapshot's core, its vector cells'
 * centroids, and the query table's core (or, built with the model, the model,
 * Transformers.js and ONNX Runtime), all from this origin. Never a query's
 * own shards: a warm-up query would fetch vector cells no one asked for.
 */
export function loadModel(): void {
  const start = performance.now()
  guides.preload({ mode: 'vector' }).then(
    () => {
      model = { state: 'ready', ms: Math.round(performance.now() - start) }
    },
    (error: unknown) => {
      model = { state: 'failed', reason: error instanceof Error ? error.message : String(error) }
    },
  ).finally(() => {
    for (const listener of listeners)
      listener(model)
  })
}
