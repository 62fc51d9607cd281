// Where a knowledge module's query embedder comes from at run time. With a
// query table (`queryEncoder` `auto` or `static`): the table, unless `auto`
// and the app chose the model (`useModel`, or SKILL_KIT_MODEL_PATH in Node).
// The model itself, in Node: the
// folder the app names (`useModel`), else the copy the build emitted beside the
// bundle (`includeModel`), else (Vite dev server only) the build's model cache,
// else SKILL_KIT_MODEL_PATH; its files are checked before Transformers.js is
// imported, so a missing model is a message that says what to do, and `auto`
// search falls back to lexical. In browsers: the folder the app names with
// its Transformers.js, else the model the build emitted, else none.

import type { NodeFs, NodePath, NodeUrl } from './node-host'
import type { EmbedQuery, QueryModel, TransformersModule } from './query-embedder'
import { KnowledgeError, QueryModelUnavailableError } from './errors'
import { modelFilesOf } from './model-files'
import { inNode, nodeBuiltin, nodeProcess } from './node-host'
import { transformersQueryEmbedder } from './query-embedder'

/** The environment variable naming a folder of query models, for Node bundles built without `includeModel`. */
export const MODEL_PATH_VARIABLE = 'SKILL_KIT_MODEL_PATH'

/** Kept in a variable, so that bundlers leave the import to Node at run time. */
const TRANSFORMERS = '@huggingface/transformers'

/** A URL, as far as these types need one: apps may compile without the DOM's or Node's types. */
export interface UrlLike {
  readonly href: string
}

/** Where the query model of a knowledge base is, given at run time with `useModel`. */
export interface KnowledgeModelOptions {
  /**
   * The folder that holds `<model id>/config.json`, `<model id>/tokenizer.json`,
   * `<model id>/onnx/…`: a project's `model.cacheDir`, or the
   * `skill-kit/models/<hash>/` folder of an `includeModel` build. A path
   * (relative to the working folder) or a `file:` URL in Node; a URL
   * (relative to the page) in browsers.
   */
  path: string | UrlLike
  /**
   * Loads Transformers.js. Browsers need it (the app's bundled copy:
   * `() => import('@huggingface/transformers')`); Node imports the installed
   * `@huggingface/transformers` by default.
   */
  transformers?: () => Promise<TransformersModule>
}

/** The model's identity, as the snapshot was built with it. */
export type QueryModelSpec = Omit<QueryModel, 'localModelPath' | 'wasmPaths' | 'device'>

/** The copy of the model a build emitted (`includeModel`). */
export interface BundledModel {
  /** The emitted folder that holds `<model id>/`. */
  url: () => UrlLike
  /** Browsers: the app's bundled Transformers.js and ONNX Runtime Web's files (absent from builds for Node only). */
  browser?: { load: () => Promise<TransformersModule>, wasmUrls: () => { mjs: UrlLike, wasm: UrlLike } }
}

export interface QueryModelPlaces {
  model: QueryModelSpec
  bundled?: BundledModel
  /** The Vite dev server: the build's model cache folder, used in place. */
  devModelPath?: string
  /** The static query encoder of the table the build emitted (`queryEncoder` `auto` or `static`). */
  table?: { encoder: 'auto' | 'static', embed: EmbedQuery }
  /** For messages: the knowledge base's name. */
  name?: string
}

/** The query embedder of a knowledge module as it stands (`undefined`: none in this browser), and how the app names another model. */
export interface QueryModelSource {
  current: () => EmbedQuery | undefined
  use: (options: KnowledgeModelOptions) => void
}

const isNotInstalled = (error: unknown) => (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(`'${TRANSFORMERS}'`)

function importInstalled(): Promise<TransformersModule> {
  return (import(/* @vite-ignore */ /* webpackIgnore: true */ TRANSFORMERS) as Promise<TransformersModule>).catch((error: unknown) => {
    if (isNotInstalled(error))
      throw new QueryModelUnavailableError(`Transformers.js (${TRANSFORMERS}) is not installed where this bundle runs`, `install it there: npm i ${TRANSFORMERS}`, { cause: error })
    throw error
  })
}

/** A `file:` URL or a path, as an absolute path. */
function nodePath(path: string | UrlLike): string {
  const text = typeof path === 'string' ? path : path.href
  if (/^file:/i.test(text))
    return nodeBuiltin<NodeUrl>('node:url').fileURLToPath(text)
  return nodeBuiltin<NodePath>('node:path').resolve(text)
}

/** Node: the files of `model` missing from `folder`, where Transformers.js looks (`<id>/<revision>/` as it downloads, or `<id>/`). */
function missingFiles(folder: string, model: QueryModelSpec): { dir: string, missing: string[] } {
  const { join } = nodeBuiltin<NodePath>('node:path')
  const { existsSync } = nodeBuiltin<NodeFs>('node:fs')
  const dir = join(folder, ...model.id.split('/'))
  const missing = modelFilesOf(model.dtype).filter(file => !existsSync(join(dir, model.revision, file)) && !existsSync(join(dir, file)))
  return { dir, missing }
}

function nodeSource(places: QueryModelPlaces): QueryModelSource {
  const { model } = places
  const fix = `build with includeModel and deploy the whole output folder, or pass the folder that holds ${model.id}/ to useModel({ path }) or ${MODEL_PATH_VARIABLE}`
  let app: KnowledgeModelOptions | undefined
  /** One embedder per folder and loader, so the model loads once. */
  const embedders = new Map<string, { load: () => Promise<TransformersModule>, embed: EmbedQuery }>()

  const folder = (): { path: string, load: () => Promise<TransformersModule> } | undefined => {
    if (app)
      return { path: nodePath(app.path), load: app.transformers ?? importInstalled }
    const given = places.bundled ? places.bundled.url() : places.devModelPath ?? nodeProcess?.env?.[MODEL_PATH_VARIABLE]
    return given ? { path: nodePath(given), load: importInstalled } : undefined
  }

  const embed: EmbedQuery = async (query) => {
    const place = folder()
    if (!place)
      throw new QueryModelUnavailableError('this bundle has no query model: it was built without includeModel, and no model folder was given', fix)
    const { dir, missing } = missingFiles(place.path, model)
    if (missing.length > 0)
      throw new QueryModelUnavailableError(`${dir} lacks ${missing.join(', ')}`, fix)
    let embedder = embedders.get(place.path)
    if (embedder?.load !== place.load) {
      embedder = { load: place.load, embed: transformersQueryEmbedder(place.load, { ...model, localModelPath: place.path, device: 'cpu' }) }
      embedders.set(place.path, embedder)
    }
    try {
      return await embedder.embed(query)
    }
    catch (error) {
      // The loader's own advice (install Transformers.js) stands; a failed load gets this knowledge base's.
      if (error instanceof QueryModelUnavailableError && !isNotInstalled(error.cause))
        throw new QueryModelUnavailableError(error.reason, fix, { cause: error.cause })
      throw error
    }
  }

  return {
    current: () => embed,
    use: (options) => {
      app = options
    },
  }
}

function browserSource(places: QueryModelPlaces): QueryModelSource {
  const { model, bundled } = places
  const browser = bundled?.browser
  const embedderOf = (load: () => Promise<TransformersModule>, localModelPath: string) => {
    const wasm = browser?.wasmUrls()
    return transformersQueryEmbedder(load, { ...model, localModelPath, wasmPaths: wasm && { mjs: wasm.mjs.href, wasm: wasm.wasm.href }, device: 'wasm' })
  }
  let embed = browser && bundled ? embedderOf(browser.load, bundled.url().href) : undefined
  return {
    current: () => embed,
    use: (options) => {
      if (!options.transformers)
        throw new TypeError(`useModel() in a browser needs the app's Transformers.js: pass transformers: () => import('${TRANSFORMERS}').`)
      embed = embedderOf(options.transformers, typeof options.path === 'string' ? options.path : options.path.href)
    },
  }
}

/**
 * The query embedder of a generated knowledge module, wherever it runs: the
 * static table where the build emitted one, unless `auto` and the app chose
 * the model; else the model.
 */
export function queryModelSource(places: QueryModelPlaces): QueryModelSource {
  const model = inNode ? nodeSource(places) : browserSource(places)
  const { table } = places
  if (!table)
    return model
  // The model's folder named by the environment is the app's choice, as useModel is.
  let chosen = table.encoder === 'auto' && inNode && Boolean(nodeProcess?.env?.[MODEL_PATH_VARIABLE])
  return {
    current: () => chosen ? model.current() : table.embed,
    use: (options) => {
      if (table.encoder === 'static')
        throw new KnowledgeError('invalid-options', `"${places.name ?? 'knowledge'}" was built with queryEncoder "static", whose queries never load the model: build it with queryEncoder "auto" to switch to the model with useModel().`)
      model.use(options)
      chosen = true
    },
  }
}
