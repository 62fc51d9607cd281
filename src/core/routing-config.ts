import type { DiagnosticBag, Position } from './diagnostics'
import type { YamlValue } from './yaml-value'
import { baseUrlProblem as sharedBaseUrlProblem, DEFAULT_RETRY_BUDGET_MS, MAX_RETRY_BUDGET_MS } from './http-json'
import { didYouMean } from './did-you-mean'
import { isYamlMapping } from './yaml-value'

/** How routed index pages are built (`routing` in `skill-kit.json`). */
export interface RoutingConfig {
  /** An OpenAI-compatible Chat Completions API (default `https://api.openai.com/v1`); HTTPS unless on loopback. */
  baseUrl: string
  /** The chat model; empty (the default): `SKILL_KIT_LLM_MODEL`, else the offline router. */
  model: string
  /** The environment variable holding the API key (default `OPENAI_API_KEY`); the key itself never goes in the file. */
  apiKeyEnv: string
  /** The language of generated titles, summaries and tasks (default `English`). */
  language: string
  /** Characters of document text in one card request (default 12,000); longer documents are split into windows. */
  maxInputChars: number
  /** Most entries on one index or catalog page, 2–12 (default 8). */
  pageSize: number
  /** How long one request may take, in milliseconds (default 120,000). */
  timeoutMs: number
  /** How long one request may wait in all before its retries (Retry-After and backoff), in milliseconds (default 120,000). */
  retryBudgetMs: number
  /** Requests in flight at once (default 4). */
  concurrency: number
  /** The bound of the entry `SKILL.md`, in tokens (default 2,000): parent indexes are added until it fits. */
  maxEntryTokens: number
  /**
   * What the offline router groups documents that name no topic by: their
   * `words` (the default), or the `vectors` of the project's index, built
   * first when it is not current (a project with a model only).
   */
  topics: 'words' | 'vectors'
}

export const DEFAULT_ROUTING: RoutingConfig = {
  baseUrl: 'https://api.openai.com/v1',
  model: '',
  apiKeyEnv: 'OPENAI_API_KEY',
  language: 'English',
  maxInputChars: 12_000,
  pageSize: 8,
  timeoutMs: 120_000,
  retryBudgetMs: DEFAULT_RETRY_BUDGET_MS,
  concurrency: 4,
  maxEntryTokens: 2_000,
  topics: 'words',
}

const KEYS = Object.keys(DEFAULT_ROUTING)

/**
 * Why `baseUrl` cannot be used as `routing.baseUrl`, or `undefined`: it must be an
 * `https://` URL, or `http://` on loopback (see {@link sharedBaseUrlProblem}).
 */
export function baseUrlProblem(baseUrl: string): string | undefined {
  return sharedBaseUrlProblem(baseUrl, { settings: 'routing', exampleUrl: DEFAULT_ROUTING.baseUrl })
}

/**
 * Reads the `routing` object of `skill-kit.json`, every problem to `bag` at
 * its position (`at` locates a key path in the file). Defaults fill what is missing.
 */
export function readRoutingConfig(value: YamlValue | undefined, at: (path: string[], part?: 'key') => Position, bag: DiagnosticBag): RoutingConfig {
  if (value === undefined)
    return { ...DEFAULT_ROUTING }
  if (!isYamlMapping(value)) {
    bag.error('config-invalid', '"routing" must be an object (the settings of routed index pages).', at(['routing']))
    return { ...DEFAULT_ROUTING }
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) {
      bag.warning('config-unknown-key', `Unknown key "routing.${key}".${didYouMean(key, KEYS, known => known in value, known => `routing.${known}`)}`, at(['routing', key], 'key'))
    }
  }
  const text = (key: 'baseUrl' | 'model' | 'apiKeyEnv' | 'language', allowEmpty: boolean): string => {
    const v = value[key]
    if (v === undefined)
      return DEFAULT_ROUTING[key]
    if (typeof v === 'string' && (allowEmpty || v.trim() !== ''))
      return v.trim()
    bag.error('config-invalid', `"routing.${key}" must be a ${allowEmpty ? '' : 'non-empty '}string.`, at(['routing', key]))
    return DEFAULT_ROUTING[key]
  }
  const integer = (key: 'maxInputChars' | 'pageSize' | 'timeoutMs' | 'retryBudgetMs' | 'concurrency' | 'maxEntryTokens', min: number, max = Infinity): number => {
    const v = value[key]
    if (v === undefined)
      return DEFAULT_ROUTING[key]
    if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max)
      return v
    bag.error('config-invalid', `"routing.${key}" must be an integer ${max === Infinity ? `of at least ${min}` : `from ${min} to ${max}`}.`, at(['routing', key]))
    return DEFAULT_ROUTING[key]
  }
  const config: RoutingConfig = {
    baseUrl: text('baseUrl', false),
    model: text('model', true),
    apiKeyEnv: text('apiKeyEnv', false),
    language: text('language', false),
    maxInputChars: integer('maxInputChars', 500),
    pageSize: integer('pageSize', 2, 12),
    timeoutMs: integer('timeoutMs', 100),
    retryBudgetMs: integer('retryBudgetMs', 0, MAX_RETRY_BUDGET_MS),
    concurrency: integer('concurrency', 1, 32),
    maxEntryTokens: integer('maxEntryTokens', 1000),
    topics: DEFAULT_ROUTING.topics,
  }
  if (value.topics !== undefined) {
    if (value.topics === 'words' || value.topics === 'vectors')
      config.topics = value.topics
    else bag.error('config-invalid', '"routing.topics" must be "words" (group documents by their words) or "vectors" (by the vectors of the project\'s index).', at(['routing', 'topics']))
  }
  const problem = value.baseUrl === undefined ? undefined : baseUrlProblem(config.baseUrl)
  if (problem)
    bag.error('config-invalid', problem, at(['routing', 'baseUrl']))
  if (config.apiKeyEnv !== DEFAULT_ROUTING.apiKeyEnv && !/^[A-Z_]\w*$/i.test(config.apiKeyEnv))
    bag.error('config-invalid', `"routing.apiKeyEnv" names the environment variable holding the key, e.g. "${DEFAULT_ROUTING.apiKeyEnv}"; the key itself never goes in skill-kit.json.`, at(['routing', 'apiKeyEnv']))
  return config
}
