// Transformers.js is an optional peer dependency: apps that only import skills never
// install it (nor the ONNX Runtime packages it pulls in, about 430 MB). Only building
// embeddings loads it, and a build without it stops before anything is read, with the
// command that installs it. Here too: the lock on Transformers.js's one global `env`, and
// where ONNX Runtime Web finds its WASM files.

import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'

/** The npm package of Transformers.js. */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers'

/** The whole answer to a missing Transformers.js, for the CLI and every bundler alike. */
export const TRANSFORMERS_MISSING_MESSAGE = `Knowledge bases are embedded with Transformers.js, which is not installed. `
  + `Install it: npm i -D ${TRANSFORMERS_PACKAGE} `
  + `(where onnxruntime-node's install script cannot download its CUDA libraries from api.nuget.org: `
  + `ONNXRUNTIME_NODE_INSTALL=skip npm i -D ${TRANSFORMERS_PACKAGE}). `
  + `A knowledge base with "model": false (in skill-kit.json, or model: false in the plugin's knowledge option) is searched lexically and needs no model.`

/** Transformers.js is not installed where this package can import it. */
export class TransformersMissingError extends Error {
  override name = 'TransformersMissingError'
  constructor(options?: { cause?: unknown }) {
    super(TRANSFORMERS_MISSING_MESSAGE, options)
  }
}

/**
 * Whether `error` says that `specifier`'s package itself cannot be found (Node's
 * ERR_MODULE_NOT_FOUND for `import`, MODULE_NOT_FOUND for `require`), rather than a
 * package it imports or anything else that went wrong while loading it.
 */
export function isPackageMissing(error: unknown, specifier: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown, message?: unknown }
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND')
    return false
  // "Cannot find package '<name>' imported from …" / "Cannot find module '<name>'\nRequire stack: …"
  return typeof message === 'string' && new RegExp(`^Cannot find (?:package|module) '${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}'`).test(message)
}

/**
 * Throws a {@link TransformersMissingError} when Transformers.js cannot be resolved from
 * this package. Resolving reads a few `package.json` files, not the library, so callers
 * check this before anything slow (reading model files, importing ONNX Runtime).
 */
export function assertTransformersInstalled(resolveFrom: string = import.meta.url): void {
  try {
    createRequire(resolveFrom).resolve(TRANSFORMERS_PACKAGE)
  }
  catch (error) {
    // Any other failure (an `exports` map without a `require` condition, say) is not
    // "missing": the import itself then reports what is wrong.
    if (isPackageMissing(error, TRANSFORMERS_PACKAGE))
      throw new TransformersMissingError({ cause: error })
  }
}

/**
 * Runs `load` (an import of Transformers.js): a missing package becomes a
 * {@link TransformersMissingError}; any other failure (a missing ONNX Runtime binary, a
 * package of Transformers.js that is not installed) says that the library is installed
 * but failed to load, and why.
 */
export async function importTransformers<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  }
  catch (error) {
    if (isPackageMissing(error, TRANSFORMERS_PACKAGE))
      throw new TransformersMissingError({ cause: error })
    throw new Error(`Transformers.js (${TRANSFORMERS_PACKAGE}) is installed but cannot be loaded: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
  }
}

/** Imports Transformers.js, the only place this package does. */
export function loadTransformers(): Promise<typeof import('@huggingface/transformers')> {
  return importTransformers(() => import('@huggingface/transformers'))
}

// Transformers.js keeps its settings in one global `env`: embedders are created one at a time.
let envLock: Promise<unknown> = Promise.resolve()
export function withEnvLock<T>(fn: () => Promise<T>): Promise<T> {
  const run = envLock.then(fn, fn)
  envLock = run.catch(() => {})
  return run
}

/** Points ONNX Runtime Web at the installed WASM files instead of a CDN (a no-op under onnxruntime-node). */
export function pinWasmPaths(wasm: { wasmPaths?: unknown } | undefined): void {
  if (!wasm)
    return
  const current = wasm.wasmPaths
  const text = typeof current === 'string' ? current : current ? Object.values(current).join(' ') : ''
  if (text && !/^https?:/.test(text))
    return
  try {
    const entry = createRequire(import.meta.url).resolve('onnxruntime-web')
    wasm.wasmPaths = `${pathToFileURL(dirname(entry)).href}/`
  }
  catch {
    // onnxruntime-web is not installed: nothing can fetch its WASM files either.
  }
}
