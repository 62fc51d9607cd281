// How a knowledge module points at its snapshot (and, with `includeModel`, at
// the model files), by the way its bundler takes assets (`bundlers/asset-mode.ts`):
// emitted assets and their file URLs; `new URL(path, import.meta.url)`, which
// the bundler turns into an asset itself; a file the bundler's `file` loader
// copies when it is imported; the Vite dev server serving the published files.
// The model keeps its folder layout, so where files have fixed names it is
// emitted under them and found at run time from the output folder's URL. Every URL
// of a build is relative to the bundle, so it runs wherever it is copied; only
// the Vite dev server, which runs in place, names the build machine's files.

import type { AssetMode, FixedOutput, Platform } from '../bundlers/asset-mode'
import type { ShardedSnapshotFiles } from '../../knowledge/snapshot-shards'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { endpointOf } from '../../core/http-json'
import { hash } from '../../core/hash'
import { locateModelFiles, onnxFileOf } from '../../knowledge/embedder-files'
import { emittedUrl, FILE_LOADER_SNAPSHOT_URL, fixedOutput } from '../bundlers/asset-mode'

/** The ONNX Runtime Web files Transformers.js loads in browsers (its default `asyncify` build). */
export const ORT_WASM_FILES = { mjs: 'ort-wasm-simd-threaded.asyncify.mjs', wasm: 'ort-wasm-simd-threaded.asyncify.wasm' } as const

const json = (value: unknown) => JSON.stringify(value)

/** An expression for `file`'s URL in the bundle, the imports it needs, and the URL it is relative to. */
export function snapshotReference(mode: AssetMode, file: string, name: string, bytes: Uint8Array): { url: string, imports?: string, base?: string } {
  switch (mode.kind) {
    case 'emit':
      return { url: emittedUrl(mode.emit(undefined, `${name}.skillkit`, bytes)) }
    case 'url-asset':
      return { url: json(file) }
    case 'file-loader':
      return { url: FILE_LOADER_SNAPSHOT_URL, imports: `import ${FILE_LOADER_SNAPSHOT_URL} from ${json(file)}`, base: mode.base }
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

/**
 * Expressions of the URLs (`URL` objects) of a sharded snapshot's core and shards (in the
 * core's order), emitted as assets under names made from their content (and,
 * where the bundler emits them, the core's reference id); or
 * why this build cannot. `undefined` where the snapshot is served in place (the
 * Vite dev server and its SSR), which read the whole snapshot.
 */
export function shardedReference(mode: AssetMode, name: string, files: ShardedSnapshotFiles): { core: string, shards: string[], coreReference?: string } | { error: string } | undefined {
  switch (mode.kind) {
    case 'emit': {
      const url = (ref: string) => `new URL(${emittedUrl(ref)}, import.meta.url)`
      const coreReference = mode.emit(undefined, `${name}.skillkit`, files.core)
      return {
        coreReference,
        core: url(coreReference),
        shards: files.shards.map(shard => url(mode.emit(undefined, `${name}-shard.skillkit`, shard))),
      }
    }
    case 'url-asset':
    case 'file-loader': {
      const output = fixedOutput(mode)
      if ('error' in output)
        return { error: mode.kind === 'file-loader' && !mode.emit ? `shards with ${mode.bundler} writes the core and its shards into the output folder: set outdir.` : output.error.replace('includeModel', 'shards') }
      const emit = (bytes: Uint8Array, kind: string) => {
        const fileName = `skill-kit/knowledge/${name.replace(/[^\w-]/g, '_')}-${kind}-${hash(bytes).slice(0, 10)}.skillkit`
        output.emit(fileName, bytes)
        return output.url(fileName)
      }
      return { core: emit(files.core, 'core'), shards: files.shards.map(shard => emit(shard, 'shard')) }
    }
    default:
      return undefined
  }
}

type ModelSpec = { id: string, revision: string, dtype: string, cacheDir: string, server?: { baseUrl: string } }
type WasmFiles = Record<'mjs' | 'wasm', string>

/** The files of `includeModel`: the model's, then ONNX Runtime Web's (none for Node only: there the installed Transformers.js runs ONNX Runtime Node). */
function modelFiles(model: ModelSpec, platform: Platform): { model: Record<string, string>, wasm?: WasmFiles } | { missing: string } {
  const located = locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype)
  if (located.missing.length > 0)
    return { missing: `${located.localDir} lacks ${located.missing.join(', ')}` }
  const files: Record<string, string> = {}
  for (const file of ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxFileOf(model.dtype)])
    files[file] = located.found[file]!
  if (platform === 'node')
    return { model: files }
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
  return { model: files, wasm }
}

/**
 * Expressions of the URLs of the bundle's copy of the model (`localModelPath`,
 * the folder above `<model id>/`) and, for builds that may run in browsers, of
 * ONNX Runtime Web's files.
 */
export interface BundledModelReference {
  modelUrl: string
  wasm?: { mjsUrl: string, wasmUrl: string }
}

/** URL expressions of the bundle's copy of the model and ONNX Runtime Web's files; or why this build cannot ship them. */
export function modelReference(mode: Exclude<AssetMode, { kind: 'file' }>, model: ModelSpec, read: (file: string) => Uint8Array): BundledModelReference | { error: string } {
  const files = modelFiles(model, mode.kind === 'dev-server' ? 'browser' : mode.platform)
  if ('missing' in files && model.server)
    return { error: `includeModel ships the local copy of ${model.id}, which embeds queries as the server at ${endpointOf(model.server.baseUrl)} does only when that server runs the same weights, but ${files.missing}. Run "skill-kit model" first, or leave includeModel out and embed queries with serverQueryEmbedder.` }
  if ('missing' in files)
    return { error: `includeModel cannot ship ${model.id}: ${files.missing}. Run "skill-kit model" first.` }
  // Under a hash of the files: Transformers.js keeps them in the browser's Cache API by URL, and a
  // rebuild with other weights for the same model ID must not be served the old ones.
  const bytes = Object.fromEntries(Object.entries(files.model).map(([file, path]) => [file, read(path)]))
  const version = hash(...Object.entries(bytes).flat()).slice(0, 10)
  switch (mode.kind) {
    case 'dev-server':
      return servedModel(mode, files, version, model.id)
    case 'emit':
      return emittedModel(mode, bytes, files.wasm, read, `skill-kit/models/${version}/`, model.id)
    default: {
      const output = fixedOutput(mode)
      return 'error' in output ? output : fixedModel(output, bytes, files.wasm, read, `skill-kit/models/${version}/`, model.id)
    }
  }
}

/** The Vite dev server: the plugin's middleware serves the files where they are. */
function servedModel(mode: Extract<AssetMode, { kind: 'dev-server' }>, files: { model: Record<string, string>, wasm?: WasmFiles }, version: string, id: string): BundledModelReference {
  for (const [file, path] of Object.entries(files.model))
    mode.serve(`@skill-kit/models/${version}/${id}/${file}`, path)
  for (const [kind, path] of Object.entries(files.wasm ?? {}))
    mode.serve(`@skill-kit/ort/${ORT_WASM_FILES[kind as 'mjs' | 'wasm']}`, path)
  // Not literals, which Vite's dev server would rewrite (see snapshotReference).
  const url = (path: string) => `new URL(String(${json(`${mode.base}${path}`)}), import.meta.url)`
  return {
    modelUrl: url(`@skill-kit/models/${version}/`),
    wasm: { mjsUrl: url(`@skill-kit/ort/${ORT_WASM_FILES.mjs}`), wasmUrl: url(`@skill-kit/ort/${ORT_WASM_FILES.wasm}`) },
  }
}

/** Emitted assets (`emit` mode): the model's under fixed names that keep the layout Transformers.js expects (<model id>/onnx/…). */
function emittedModel(mode: Extract<AssetMode, { kind: 'emit' }>, bytes: Record<string, Uint8Array>, wasm: WasmFiles | undefined, read: (file: string) => Uint8Array, folder: string, id: string): BundledModelReference {
  let configRef = ''
  for (const [file, source] of Object.entries(bytes)) {
    const ref = mode.emit(`${folder}${id}/${file}`, file, source)
    if (file === 'config.json')
      configRef = ref
  }
  // From <folder><model id>/config.json up to <folder>.
  const up = json('../'.repeat(id.split('/').length))
  const fileUrl = (ref: string) => `new URL(${emittedUrl(ref)}, import.meta.url)`
  return {
    modelUrl: `new URL(${up}, ${fileUrl(configRef)})`,
    wasm: wasm && {
      mjsUrl: fileUrl(mode.emit(undefined, ORT_WASM_FILES.mjs, read(wasm.mjs))),
      wasmUrl: fileUrl(mode.emit(undefined, ORT_WASM_FILES.wasm, read(wasm.wasm))),
    },
  }
}

/** Files under fixed names (`url-asset`, `file-loader`): the model under its layout, ONNX Runtime's files under a folder named by their hash (for caches). */
function fixedModel(output: FixedOutput, bytes: Record<string, Uint8Array>, wasm: WasmFiles | undefined, read: (file: string) => Uint8Array, folder: string, id: string): BundledModelReference {
  for (const [file, source] of Object.entries(bytes))
    output.emit(`${folder}${id}/${file}`, source)
  if (!wasm)
    return { modelUrl: output.url(folder) }
  const runtime = { mjs: read(wasm.mjs), wasm: read(wasm.wasm) }
  const ortFolder = `skill-kit/ort/${hash(runtime.mjs, runtime.wasm).slice(0, 10)}/`
  output.emit(`${ortFolder}${ORT_WASM_FILES.mjs}`, runtime.mjs)
  output.emit(`${ortFolder}${ORT_WASM_FILES.wasm}`, runtime.wasm)
  return {
    modelUrl: output.url(folder),
    wasm: { mjsUrl: output.url(`${ortFolder}${ORT_WASM_FILES.mjs}`), wasmUrl: output.url(`${ortFolder}${ORT_WASM_FILES.wasm}`) },
  }
}
