import type { DiagnosticBag } from '../core/diagnostics'
import type { YamlValue } from '../core/yaml-value'
import type { RoutingConfig } from '../core/routing-config'
import { isAbsolute, join, normalize, relative, resolve, sep } from 'node:path'
import { baseUrlProblem, DEFAULT_RETRY_BUDGET_MS, MAX_RETRY_BUDGET_MS } from '../core/http-json'
import { didYouMean } from '../core/did-you-mean'
import { isYamlMapping } from '../core/yaml-value'
import { MAX_YAML_CHARS, parseYaml } from '../core/yaml'
import { DEFAULT_ROUTING, readRoutingConfig } from '../core/routing-config'
import { DEFAULT_MAX_DOCUMENT_BYTES } from './document'
import { isPageUrlPattern } from './page-urls'
import { DEFAULT_MAX_WAIT_MS, DEFAULT_SETTLE_MS } from './rebuild-loop'

/** The sentence-embedding model and how texts are fed to it. */
export interface ModelConfig {
  /** A Transformers.js feature-extraction model (default `Xenova/all-MiniLM-L6-v2`). */
  id: string
  /** An immutable revision (default: the pinned all-MiniLM-L6-v2 commit). */
  revision: string
  /** ONNX weights: `q8` (default), `fp32`, `fp16`, `int8`, `uint8`, `q4`, `bnb4`, `q4f16`. */
  dtype: string
  /** Where model files live, relative to the project (default `.skill-kit/models`). */
  cacheDir: string
  /** The model's token limit, special tokens included (default 256). */
  maxTokens: number
  /** Put before every query (e.g. `query: ` for E5 models). */
  queryPrefix: string
  /** Put before every embedded document chunk. */
  documentPrefix: string
  /** An embedding server that computes the vectors instead of Transformers.js (`"provider": "openai-compatible"`); absent: the model runs in the build. */
  server?: EmbeddingServerConfig
}

/**
 * An embedding server speaking the OpenAI-compatible `POST /v1/embeddings` API
 * (Text Embeddings Inference, vLLM, Ollama, hosted providers). In
 * `skill-kit.json` its keys sit in `model` beside the others.
 */
export interface EmbeddingServerConfig {
  /** The API's base URL, e.g. `http://127.0.0.1:8080/v1`; HTTPS unless on loopback. */
  baseUrl: string
  /** The environment variable holding the API key (default `OPENAI_API_KEY`); unset: requests carry no key. */
  apiKeyEnv: string
  /** Length of the vectors, sent as the API's `dimensions` and checked; absent: the server's own, learned from its first answer. */
  dimensions?: number
  /** Most inputs in one request (default 32). */
  batchSize: number
  /** Most estimated tokens in one request (default 16,384). */
  maxBatchTokens: number
  /** Requests in flight at once (default 4). */
  concurrency: number
  /** How long one request may take, in milliseconds (default 60,000). */
  timeoutMs: number
  /** How long one request may wait in all before its retries (Retry-After and backoff), in milliseconds (default 120,000). */
  retryBudgetMs: number
}

/** Who computes the vectors: Transformers.js in the build, or an OpenAI-compatible embedding server. */
export type ModelProvider = 'transformers' | 'openai-compatible'

/** `model` as `skill-kit.json` and the plugin's options spell it: the server's keys beside the model's. */
export type ModelSettings = Omit<ModelConfig, 'server'> & { provider: ModelProvider } & Partial<EmbeddingServerConfig>

/** How documents are cut for embedding. */
export interface ChunkConfig {
  /** Tokens of one embedded window, metadata context included (default 256, at most `model.maxTokens`). */
  maxTokens: number
  /** Tokens shared by consecutive windows of an oversized section (default 32). */
  overlapTokens: number
}

/** Search defaults. */
export interface SearchConfig {
  /** Most documents a search returns (default 5). */
  topK: number
  /** Lowest best-chunk cosine similarity returned (default 0.3). */
  threshold: number
}

/**
 * How a watcher (`skill-kit watch`) turns file events into builds. The
 * Semantic Skill Kit's `watch.intervalMs` (its polling period) is accepted and
 * unused: file-system events replace polling.
 */
export interface WatchConfig {
  /** Quiet time after the last change of a burst before a build starts (default 50 ms). */
  settleMs: number
  /** Longest wait from a burst's first change to its build, for changes that never settle (default 1,000 ms). */
  maxWaitMs: number
}

/**
 * How queries are embedded where the knowledge base is searched: `static`, a
 * table distilled from the model at build time (no transformer, no model
 * download, a few KB a query); `model`, the model itself (Transformers.js and
 * its files); `auto`, the table unless the app loads the model (`useModel`)
 * or the build bundles it (`includeModel`).
 */
export type QueryEncoder = 'auto' | 'static' | 'model'

/** A knowledge project (`skill-kit.json`), with defaults filled in and paths absolute. */
export interface KnowledgeConfig {
  name: string
  description: string
  /** The folder of Markdown documents. */
  knowledge: string
  /** Where the CLI publishes the index. */
  output: string
  /** Where embedding vectors are cached. */
  cache: string
  /** The embedding model; `false` (`"model": false`): no model, no vectors, lexical search only. */
  model: ModelConfig | false
  chunk: ChunkConfig
  search: SearchConfig
  /** How queries are embedded at run time (default `auto`); a model on an embedding server has no static table, so `auto` is `model` there. */
  queryEncoder: QueryEncoder
  watch: WatchConfig
  /** Routed index pages (see `src/core/routing-config.ts`). */
  routing: RoutingConfig
  /** Most bytes of one document (default 4 MiB): a larger one is an error, never read. */
  maxDocumentBytes: number
  /** Each document's page URL for the search UI: a preset (`vitepress`, `vitepress-html`, `astro`) or a pattern with `{path}` or `{id}` (see page-urls.ts); none by default. */
  url?: string
}

export const DEFAULT_MODEL: ModelConfig = {
  id: 'Xenova/all-MiniLM-L6-v2',
  revision: '751bff37182d3f1213fa05d7196b954e230abad9',
  dtype: 'q8',
  cacheDir: '.skill-kit/models',
  maxTokens: 256,
  queryPrefix: '',
  documentPrefix: '',
}
export const DEFAULT_SERVER: Omit<EmbeddingServerConfig, 'baseUrl'> = {
  apiKeyEnv: 'OPENAI_API_KEY',
  batchSize: 32,
  maxBatchTokens: 16_384,
  concurrency: 4,
  timeoutMs: 60_000,
  retryBudgetMs: DEFAULT_RETRY_BUDGET_MS,
}
export const DEFAULT_CHUNK: ChunkConfig = { maxTokens: 256, overlapTokens: 32 }
export const DEFAULT_SEARCH: SearchConfig = { topK: 5, threshold: 0.3 }
export const DEFAULT_WATCH: WatchConfig = { settleMs: DEFAULT_SETTLE_MS, maxWaitMs: DEFAULT_MAX_WAIT_MS }
const WATCH_KEYS = ['settleMs', 'maxWaitMs', 'intervalMs']
const DTYPES = ['q8', 'fp32', 'fp16', 'int8', 'uint8', 'q4', 'bnb4', 'q4f16']
/** `owner/name` or `name`, as Hugging Face spells model IDs. */
const MODEL_ID = /^[\w.-]+(?:\/[\w.-]+)?$/
/** A model's name on a server may carry a tag (`nomic-embed-text:v1.5`). */
const SERVER_MODEL_ID = /^[\w.:-]+(?:\/[\w.:-]+)?$/
const PROVIDERS: ModelProvider[] = ['transformers', 'openai-compatible']
const SERVER_KEYS = ['baseUrl', 'apiKeyEnv', 'dimensions', 'batchSize', 'maxBatchTokens', 'concurrency', 'timeoutMs', 'retryBudgetMs'] as const
/** The example of `model.baseUrl` in messages. */
const EXAMPLE_SERVER_URL = 'https://api.openai.com/v1'

export const QUERY_ENCODERS: readonly QueryEncoder[] = ['auto', 'static', 'model']
export const DEFAULT_QUERY_ENCODER: QueryEncoder = 'auto'

const TOP_KEYS = ['name', 'description', 'knowledge', 'output', 'cache', 'model', 'chunk', 'search', 'queryEncoder', 'watch', 'routing', 'maxDocumentBytes', '$schema', 'url']
/** Largest `maxDocumentBytes`: past it a document's text would not fit in one JavaScript string. */
const MAX_DOCUMENT_BYTES_LIMIT = 256 * 1024 * 1024

/**
 * Most bytes of a `skill-kit.json` (256 KiB): it holds settings, never text,
 * and its parser (the YAML parser, for positions) reads no more than this.
 */
export const MAX_CONFIG_BYTES = MAX_YAML_CHARS

/** The error of a `skill-kit.json` over {@link MAX_CONFIG_BYTES}, in the file's own terms. */
export function configTooLarge(bytes: number): string {
  return `skill-kit.json has ${bytes.toLocaleString('en-US')} bytes; at most ${MAX_CONFIG_BYTES.toLocaleString('en-US')} (256 KiB) are read. It holds settings only: remove what is not a setting, and keep documents in the knowledge folder.`
}

/** What `skill-kit init` writes: every default, spelled out. */
export function defaultProjectConfig(name: string): Record<string, unknown> {
  return {
    name,
    description: `Search the ${name} knowledge base, then read only the documents that answer the question.`,
    knowledge: 'knowledge',
    output: '.skill-kit/index',
    cache: '.skill-kit/cache',
    model: { ...DEFAULT_MODEL },
    chunk: { ...DEFAULT_CHUNK },
    search: { ...DEFAULT_SEARCH },
    queryEncoder: DEFAULT_QUERY_ENCODER,
    watch: { ...DEFAULT_WATCH },
    routing: { ...DEFAULT_ROUTING },
    maxDocumentBytes: DEFAULT_MAX_DOCUMENT_BYTES,
  }
}

/**
 * Reads a project's `skill-kit.json` text (JSON, read with the YAML parser
 * for positions) against `projectDir`. Every problem goes to `bag`;
 * `undefined` when the configuration cannot be used. `bare`: settings made up
 * for a folder without `skill-kit.json`, whose paths may point outside it.
 */
export function parseProjectConfig(projectDir: string, source: string, bag: DiagnosticBag, { bare = false }: { bare?: boolean } = {}): KnowledgeConfig | undefined {
  // Editors on Windows may save a byte order mark, which JSON.parse rejects.
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source
  // Before any parsing: the file is too large to be settings, whatever it holds.
  const bytes = Buffer.byteLength(text)
  if (bytes > MAX_CONFIG_BYTES) {
    bag.error('config-too-large', configTooLarge(bytes), { line: 1, column: 1 })
    return undefined
  }
  try {
    JSON.parse(text)
  }
  catch (error) {
    const position = Number(/position (\d+)/.exec((error as Error).message)?.[1] ?? 0)
    const before = text.slice(0, position).split('\n')
    bag.error('config-json', `skill-kit.json is not valid JSON: ${(error as Error).message}.`, { line: before.length, column: before.at(-1)!.length + 1 })
    return undefined
  }
  const doc = parseYaml(text, 1, bag)
  if (doc.value === undefined)
    return undefined
  const raw = doc.value ?? {}
  if (!isYamlMapping(raw)) {
    bag.error('config-invalid', 'skill-kit.json must hold a JSON object.', { line: 1, column: 1 })
    return undefined
  }
  for (const key of Object.keys(raw)) {
    if (!TOP_KEYS.includes(key)) {
      bag.warning('config-unknown-key', `Unknown key "${key}".${didYouMean(key, TOP_KEYS, known => known in raw)}`, doc.locate([key], 'key'))
    }
  }
  const at = (path: string[]) => doc.locate(path)
  const section = (key: string): Record<string, YamlValue> => {
    const value = raw[key]
    if (value === undefined)
      return {}
    if (isYamlMapping(value))
      return value
    bag.error('config-invalid', `"${key}" must be an object.`, at([key]))
    return {}
  }
  const string = (path: string[], value: YamlValue | undefined, fallback: string, allowEmpty = false): string => {
    if (value === undefined)
      return fallback
    if (typeof value === 'string' && (allowEmpty || value.trim() !== ''))
      return value
    bag.error('config-invalid', `"${path.join('.')}" must be a ${allowEmpty ? '' : 'non-empty '}string.`, at(path))
    return fallback
  }
  const number = (path: string[], value: YamlValue | undefined, fallback: number, check: (n: number) => boolean, rule: string): number => {
    if (value === undefined)
      return fallback
    if (typeof value === 'number' && check(value))
      return value
    bag.error('config-invalid', `"${path.join('.')}" must be ${rule}.`, at(path))
    return fallback
  }
  const folder = (key: string, fallback: string): string => {
    const value = string([key], raw[key], fallback)
    const absolute = normalize(join(projectDir, value))
    const inside = relative(projectDir, absolute)
    if (!bare && (isAbsolute(value) || inside === '' || inside.startsWith('..')))
      bag.error('config-path-outside', `"${key}" must be a subfolder of the project, e.g. "${fallback}".`, at([key]))
    return absolute
  }

  const positive = (n: number) => Number.isInteger(n) && n > 0
  // `"model": false` builds with no model at all; anything else must be the model's settings.
  const modelConfig = (): ModelConfig | false => {
    if (raw.model === false)
      return false
    if (raw.model !== undefined && !isYamlMapping(raw.model))
      bag.error('config-invalid', '"model" must be an object (the embedding model\'s settings, {} for the default) or false (no model: lexical search only).', at(['model']))
    const model = isYamlMapping(raw.model) ? raw.model : {}
    const dtype = string(['model', 'dtype'], model.dtype, DEFAULT_MODEL.dtype)
    if (!DTYPES.includes(dtype))
      bag.error('config-invalid', `"model.dtype" must be one of ${DTYPES.join(', ')}.`, at(['model', 'dtype']))
    const providerValue = model.provider ?? 'transformers'
    const provider = PROVIDERS.find(p => p === providerValue)
    if (!provider)
      bag.error('config-invalid', '"model.provider" must be "transformers" (the model runs in the build) or "openai-compatible" (an embedding server\'s POST /v1/embeddings).', at(['model', 'provider']))
    const onServer = provider === 'openai-compatible'
    const id = string(['model', 'id'], model.id, DEFAULT_MODEL.id)
    if (onServer && model.id === undefined)
      bag.error('config-invalid', '"model.provider" "openai-compatible" needs "model.id": the model\'s name on the server (the "model" of its requests).', at(['model', 'provider']))
    // The ID names a folder under the cache (`<cacheDir>/<id>/`, replaced whole by `skill-kit model`): never a path elsewhere.
    else if (!(onServer ? SERVER_MODEL_ID : MODEL_ID).test(id) || id.split('/').some(part => /^\.+$/.test(part)))
      bag.error('config-invalid', `"model.id" must be a model ID such as "${DEFAULT_MODEL.id}": letters, digits, ".", "_" and "-"${onServer ? ', ":" before a tag' : ''}, with at most one "/".`, at(['model', 'id']))
    const settings: ModelConfig = {
      id,
      revision: string(['model', 'revision'], model.revision, DEFAULT_MODEL.revision),
      dtype,
      cacheDir: resolve(projectDir, string(['model', 'cacheDir'], model.cacheDir, DEFAULT_MODEL.cacheDir)),
      maxTokens: number(['model', 'maxTokens'], model.maxTokens, DEFAULT_MODEL.maxTokens, n => positive(n) && n >= 8, 'an integer of at least 8'),
      queryPrefix: string(['model', 'queryPrefix'], model.queryPrefix, '', true),
      documentPrefix: string(['model', 'documentPrefix'], model.documentPrefix, '', true),
    }
    if (!onServer) {
      for (const key of SERVER_KEYS.filter(key => model[key] !== undefined))
        bag.error('config-invalid', `"model.${key}" applies to an embedding server only: set "model.provider" to "openai-compatible", or remove it.`, at(['model', key]))
      return settings
    }
    settings.server = embeddingServer(model, settings.maxTokens)
    return settings
  }
  const embeddingServer = (model: Record<string, YamlValue>, maxTokens: number): EmbeddingServerConfig => {
    const integer = (key: 'batchSize' | 'maxBatchTokens' | 'concurrency' | 'timeoutMs' | 'retryBudgetMs', min: number, max = Infinity): number =>
      number(['model', key], model[key], DEFAULT_SERVER[key], n => Number.isInteger(n) && n >= min && n <= max, `an integer ${max === Infinity ? `of at least ${min}` : `from ${min} to ${max}`}`)
    const baseUrl = string(['model', 'baseUrl'], model.baseUrl, '').trim()
    if (model.baseUrl === undefined)
      bag.error('config-invalid', `"model.provider" "openai-compatible" needs "model.baseUrl": the server's OpenAI-compatible API, e.g. "http://127.0.0.1:8080/v1" for a server on this machine.`, at(['model', 'provider']))
    const problem = baseUrl && baseUrlProblem(baseUrl, { settings: 'model', exampleUrl: EXAMPLE_SERVER_URL })
    if (problem)
      bag.error('config-invalid', problem, at(['model', 'baseUrl']))
    const apiKeyEnv = string(['model', 'apiKeyEnv'], model.apiKeyEnv, DEFAULT_SERVER.apiKeyEnv).trim()
    if (!/^[A-Z_]\w*$/i.test(apiKeyEnv))
      bag.error('config-invalid', `"model.apiKeyEnv" names the environment variable holding the key, e.g. "${DEFAULT_SERVER.apiKeyEnv}"; the key itself never goes in skill-kit.json.`, at(['model', 'apiKeyEnv']))
    const server: EmbeddingServerConfig = {
      baseUrl,
      apiKeyEnv,
      batchSize: integer('batchSize', 1, 2048),
      maxBatchTokens: integer('maxBatchTokens', maxTokens),
      concurrency: integer('concurrency', 1, 64),
      timeoutMs: integer('timeoutMs', 100),
      retryBudgetMs: integer('retryBudgetMs', 0, MAX_RETRY_BUDGET_MS),
    }
    if (model.dimensions !== undefined)
      server.dimensions = number(['model', 'dimensions'], model.dimensions, 0, n => positive(n) && n <= 65_536, 'an integer from 1 to 65536')
    return server
  }
  const queryEncoder = (): QueryEncoder => {
    const value = raw.queryEncoder
    if (value === undefined)
      return DEFAULT_QUERY_ENCODER
    const encoder = QUERY_ENCODERS.find(e => e === value)
    if (!encoder) {
      bag.error('config-invalid', '"queryEncoder" must be "auto" (a static table distilled from the model, unless the app loads the model), "static" (the table only: no model at run time) or "model" (the model embeds every query).', at(['queryEncoder']))
      return DEFAULT_QUERY_ENCODER
    }
    return encoder
  }
  const chunk = section('chunk')
  const search = section('search')
  const watch = section('watch')
  for (const key of Object.keys(watch)) {
    if (!WATCH_KEYS.includes(key)) {
      bag.warning('config-unknown-key', `Unknown key "${key}" in "watch".${didYouMean(key, WATCH_KEYS, known => known in watch)}`, doc.locate(['watch', key], 'key'))
    }
  }
  // The seed's polling period: checked by its rule, then unused (see WatchConfig).
  number(['watch', 'intervalMs'], watch.intervalMs, 1000, n => Number.isInteger(n) && n >= 50, 'an integer of at least 50 (milliseconds)')
  const config: KnowledgeConfig = {
    name: string(['name'], raw.name, projectDir.split(sep).pop() || 'knowledge'),
    description: string(['description'], raw.description, ''),
    knowledge: folder('knowledge', 'knowledge'),
    output: folder('output', '.skill-kit/index'),
    cache: folder('cache', '.skill-kit/cache'),
    model: modelConfig(),
    chunk: {
      maxTokens: number(['chunk', 'maxTokens'], chunk.maxTokens, DEFAULT_CHUNK.maxTokens, n => positive(n) && n >= 16, 'an integer of at least 16'),
      overlapTokens: number(['chunk', 'overlapTokens'], chunk.overlapTokens, DEFAULT_CHUNK.overlapTokens, n => Number.isInteger(n) && n >= 0, 'a non-negative integer'),
    },
    search: {
      topK: number(['search', 'topK'], search.topK, DEFAULT_SEARCH.topK, positive, 'a positive integer'),
      threshold: number(['search', 'threshold'], search.threshold, DEFAULT_SEARCH.threshold, n => n >= -1 && n <= 1, 'a number from -1 to 1'),
    },
    queryEncoder: queryEncoder(),
    watch: {
      settleMs: number(['watch', 'settleMs'], watch.settleMs, DEFAULT_WATCH.settleMs, n => Number.isInteger(n) && n >= 0 && n <= 60_000, 'an integer from 0 to 60000 (milliseconds)'),
      maxWaitMs: number(['watch', 'maxWaitMs'], watch.maxWaitMs, DEFAULT_WATCH.maxWaitMs, n => Number.isInteger(n) && n >= 0 && n <= 600_000, 'an integer from 0 to 600000 (milliseconds)'),
    },
    routing: readRoutingConfig(raw.routing, (path, part) => doc.locate(path, part), bag),
    maxDocumentBytes: number(['maxDocumentBytes'], raw.maxDocumentBytes, DEFAULT_MAX_DOCUMENT_BYTES, n => Number.isInteger(n) && n >= 1024 && n <= MAX_DOCUMENT_BYTES_LIMIT, `an integer from 1024 to ${MAX_DOCUMENT_BYTES_LIMIT} (bytes of one document)`),
  }
  if (raw.url !== undefined) {
    if (typeof raw.url === 'string' && isPageUrlPattern(raw.url))
      config.url = raw.url
    else
      bag.error('config-invalid', '"url" must be "vitepress", "vitepress-html", "astro" or a pattern with {path} or {id}, such as "/docs/{path}": each document\'s page URL, for the search UI.', at(['url']))
  }
  if (config.model && config.chunk.maxTokens > config.model.maxTokens)
    bag.error('config-invalid', `"chunk.maxTokens" (${config.chunk.maxTokens}) cannot exceed "model.maxTokens" (${config.model.maxTokens}).`, at(['chunk', 'maxTokens']))
  // Only `static` insists on a table; `auto` is `model` where none can be made.
  if (config.queryEncoder === 'static') {
    if (!config.model)
      bag.error('config-invalid', '"queryEncoder" "static" embeds queries with a table distilled from the model, but "model" is false (no vectors to search): remove "queryEncoder", or give the model\'s settings.', at(['queryEncoder']))
    else if (config.model.server)
      bag.error('config-invalid', '"queryEncoder" "static" distils a table from the model\'s token vectors, which an embedding server does not give: set "queryEncoder" to "model", or run the model in the build ("model.provider": "transformers").', at(['queryEncoder']))
  }
  if (config.watch.maxWaitMs < config.watch.settleMs)
    bag.error('config-invalid', `"watch.maxWaitMs" (${config.watch.maxWaitMs}) cannot be less than "watch.settleMs" (${config.watch.settleMs}).`, at(['watch', 'maxWaitMs']))
  if (config.chunk.overlapTokens * 2 >= config.chunk.maxTokens)
    bag.error('config-invalid', '"chunk.overlapTokens" must be less than half of "chunk.maxTokens".', at(['chunk', 'overlapTokens']))
  const folders = (['knowledge', 'output', 'cache'] as const).map(key => [key, config[key]] as const)
  // A bare folder is its own knowledge folder; its index and cache live in a hidden folder the documents never include.
  for (const [i, [key, path]] of (bare ? [] : folders).entries()) {
    for (const [otherKey, other] of folders.slice(i + 1)) {
      if (path === other || path.startsWith(other + sep) || other.startsWith(path + sep))
        bag.error('config-path-overlap', `"${key}" and "${otherKey}" must be separate folders of the project.`, at([otherKey]))
    }
  }
  return bag.hasErrors ? undefined : config
}
