// How a knowledge module points at its snapshot (and, with `includeModel`, at
// the model files), bundler by bundler: Rollup, Rolldown and Vite builds emit
// assets and use their file URLs; webpack and rspack turn `new URL(path,
// import.meta.url)` into an asset themselves; esbuild copies a file it imports
// with its `file` loader; the Vite dev server serves the published files.

import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { hash } from '../core/hash'
import { locateModelFiles, onnxFileOf } from '../knowledge/embedder-files'

/** Where the module runs and how its bundler takes assets. */
export type AssetMode =
  | { kind: 'emit', emit: (fileName: string | undefined, name: string, source: Uint8Array) => string }
  | { kind: 'url-asset' }
  | { kind: 'esbuild' }
  | { kind: 'dev-server', base: string, serve: (urlPath: string, file: string) => void }
  | { kind: 'file' }

/** The ONNX Runtime Web files Transformers.js loads in browsers (its default `asyncify` build). */
export const ORT_WASM_FILES = { mjs: 'ort-wasm-simd-threaded.asyncify.mjs', wasm: 'ort-wasm-simd-threaded.asyncify.wasm' } as const

const json = (value: unknown) => JSON.stringify(value)

/** An expression for `file`'s URL in the bundle, and the imports it needs. */
export function snapshotReference(mode: AssetMode, file: string, name: string, bytes: Uint8Array): { url: string, imports?: string } {
  switch (mode.kind) {
    case 'emit':
      return { url: `import.meta.ROLLUP_FILE_URL_${mode.emit(undefined, `${name}.skillkit`, bytes)}` }
    case 'url-asset':
      return { url: json(file) }
    case 'esbuild':
      return { url: 'snapshotUrl', imports: `import snapshotUrl from ${json(file)}` }
    case 'dev-server': {
      const path = `@skill-kit/knowledge/${basename(file)}`
      mode.serve(path, file)
      // In a variable: Vite's dev server rewrites `new URL('<literal>', import.meta.url)` to a file path.
      return { url: 'snapshotPath', imports: `const snapshotPath = ${json(`${mode.base}${path}`)}` }
    }
    case 'file':
      return { url: json(pathToFileURL(file).href) }
  }
}

/** The files of `includeModel`: the model's, then ONNX Runtime Web's. */
function modelFiles(model: { id: string, revision: string, dtype: string, cacheDir: string }): { model: Record<string, string>, wasm: Record<'mjs' | 'wasm', string> } | { missing: string } {
  const located = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype)
  if (located.missing.length > 0)
    return { missing: `${located.localDir} lacks ${located.missing.join(', ')}` }
  let ortDir: string
  try {
    ortDir = dirname(createRequire(import.meta.url).resolve('onnxruntime-web'))
  }
  catch {
    return { missing: 'the onnxruntime-web package is not installed' }
  }
  const wasm = { mjs: join(ortDir, ORT_WASM_FILES.mjs), wasm: join(ortDir, ORT_WASM_FILES.wasm) }
  if (!existsSync(wasm.mjs) || !existsSync(wasm.wasm))
    return { missing: `onnxruntime-web has no ${ORT_WASM_FILES.wasm}` }
  const files: Record<string, string> = {}
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxFileOf(model.dtype)])
    files[file] = located.found[file]!
  return { model: files, wasm }
}

/**
 * URL expressions for the browser's copy of the model (`localModelPath`, the
 * folder above `<model id>/`) and ONNX Runtime's files; or why they cannot be
 * shipped with this bundler.
 */
export function modelReference(
  mode: AssetMode,
  model: { id: string, revision: string, dtype: string, cacheDir: string },
  read: (file: string) => Uint8Array,
): { modelUrl: string, wasmMjsUrl: string, wasmUrl: string } | { error: string } {
  if (mode.kind !== 'emit' && mode.kind !== 'dev-server')
    return { error: 'includeModel ships the model with Vite, Rollup and Rolldown builds; with this bundler, pass embedQuery to search() or use mode: \'lexical\'.' }
  const files = modelFiles(model)
  if ('missing' in files)
    return { error: `includeModel cannot ship ${model.id}: ${files.missing}. Run "skill-kit model" first.` }
  // Under a hash of the files: Transformers.js keeps them in the browser's Cache API by URL, and a
  // rebuild with other weights for the same model ID must not be served the old ones.
  const bytes = Object.fromEntries(Object.entries(files.model).map(([file, path]) => [file, read(path)]))
  const version = hash(...Object.entries(bytes).flat()).slice(0, 10)
  const up = json('../'.repeat(model.id.split('/').length))
  const prefix = `skill-kit/models/${version}/${model.id}`
  if (mode.kind === 'dev-server') {
    for (const [file, path] of Object.entries(files.model))
      mode.serve(`@${prefix}/${file}`, path)
    for (const [kind, path] of Object.entries(files.wasm))
      mode.serve(`@skill-kit/ort/${ORT_WASM_FILES[kind as 'mjs' | 'wasm']}`, path)
    // Not literals, which Vite's dev server would rewrite (see snapshotReference).
    return {
      modelUrl: `String(${json(`${mode.base}@skill-kit/models/${version}/`)})`,
      wasmMjsUrl: `String(${json(`${mode.base}@skill-kit/ort/${ORT_WASM_FILES.mjs}`)})`,
      wasmUrl: `String(${json(`${mode.base}@skill-kit/ort/${ORT_WASM_FILES.wasm}`)})`,
    }
  }
  // Fixed names keep the layout Transformers.js expects (<model id>/onnx/…).
  let configRef = ''
  for (const [file, source] of Object.entries(bytes)) {
    const ref = mode.emit(`${prefix}/${file}`, file, source)
    if (file === 'config.json')
      configRef = ref
  }
  const mjs = mode.emit(undefined, ORT_WASM_FILES.mjs, read(files.wasm.mjs))
  const wasm = mode.emit(undefined, ORT_WASM_FILES.wasm, read(files.wasm.wasm))
  return {
    modelUrl: `new URL(${up}, new URL(import.meta.ROLLUP_FILE_URL_${configRef}, import.meta.url))`,
    wasmMjsUrl: `import.meta.ROLLUP_FILE_URL_${mjs}`,
    wasmUrl: `import.meta.ROLLUP_FILE_URL_${wasm}`,
  }
}
