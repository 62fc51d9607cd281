// The Modern Web Guidance guides as the plugin imports them (playground/guides, see
// vite.config.ts), and the state of their query model, which loads in the background.

import guides from 'virtual:skill-kit/knowledge/guides'

export { guides }

/** `loading` until a first vector search has run; `failed` leaves lexical search only. */
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
 * Loads the model (Transformers.js, ONNX Runtime and the model's files, all from
 * this origin) with one vector search, once.
 */
export function loadModel(): void {
  const start = performance.now()
  guides.search('web platform', { mode: 'vector', topK: 1 }).then(
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
