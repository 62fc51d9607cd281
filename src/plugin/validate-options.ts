// The plugin's options, checked when the plugin is created: a wrong shape is one
// error that names every problem, before any build reads an option it cannot use
// (a knowledge base without a folder would otherwise fail deep in an asynchronous
// build step, where no bundler reports it).

import { didYouMean } from '../core/did-you-mean'
import type { QueryEncoder } from '../knowledge/config'
import { DEFAULT_CHUNK, DEFAULT_MODEL, DEFAULT_SEARCH, DEFAULT_SERVER, QUERY_ENCODERS } from '../knowledge/config'
import { isPageUrlPattern } from '../knowledge/page-urls'
import { excerptForMessage, quoteForMessage } from '../runtime/redact'

const TOP_KEYS = ['include', 'exclude', 'strict', 'onInvalid', 'root', 'skills', 'knowledge', 'offline', 'includeModel', 'agentSkills']
const SKILLS_KEYS = ['dirs']
const KNOWLEDGE_KEYS = ['dir', 'model', 'chunk', 'search', 'shards', 'preloadHtml', 'queryEncoder', 'includeModel', 'export', 'url', 'description']
const MODEL_KEYS = [...Object.keys(DEFAULT_MODEL), 'provider', 'baseUrl', 'dimensions', ...Object.keys(DEFAULT_SERVER)]
const SHARD_SIZE_KEYS = ['lexicalBytes', 'vectorBytes', 'refinementBytes']
const SHARDS_KEYS = [...SHARD_SIZE_KEYS, 'cells', 'probe']
const EXPORT_KEYS = ['mode', 'outDir', 'includeModel']
const AGENT_SKILLS_KEYS = ['llmsTxt', 'title', 'summary']

/** Plugin options of the wrong shape: `message` lists every problem, a line each. */
export class OptionsError extends Error {
  override name = 'OptionsError'
  constructor(readonly problems: readonly string[]) {
    super(`Invalid unplugin-skill-kit options (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map(p => `- ${p}`).join('\n')}`)
    // The message says all a person needs: no stack of the plugin's under it.
    this.stack = ''
  }
}

/** Throws an {@link OptionsError} naming every option of the wrong shape. */
export function validateOptions(options: unknown): void {
  const problems = optionProblems(options)
  if (problems.length > 0)
    throw new OptionsError(problems)
}

/** What is wrong with the plugin's options, a sentence each: the option's path, what it expects, what it got. */
export function optionProblems(options: unknown): string[] {
  const problems: string[] = []
  const expect = (path: string, expected: string, value: unknown, hint = '') =>
    problems.push(`${path}: expected ${expected}, got ${describe(value)}.${hint}`)
  /** The object at `path` (its keys not in `keys` reported; `null`: any key), or `undefined` after reporting that it is none. */
  const object = (path: string, value: unknown, keys: readonly string[] | null, expected: string): Record<string, unknown> | undefined => {
    if (!isObject(value)) {
      expect(path || 'options', expected, value)
      return undefined
    }
    if (!keys)
      return value
    for (const key of Object.keys(value).filter(key => !keys.includes(key)))
      problems.push(`${join(path, key)}: unknown option.${didYouMean(key, keys, known => known in value)} The options here are ${keys.join(', ')}.`)
    return value
  }
  const optional = (path: string, value: unknown, test: (value: unknown) => boolean, expected: string) => {
    if (value !== undefined && !test(value))
      expect(path, expected, value)
  }
  const boolean = (value: unknown) => typeof value === 'boolean'
  const text = (value: unknown) => typeof value === 'string' && value.trim() !== ''
  const pattern = (value: unknown) => text(value) || value instanceof RegExp
  const FILTER = 'a glob, a RegExp or a list of them'

  if (options === undefined)
    return problems
  const top = object('', options, TOP_KEYS, 'an object')
  if (!top)
    return problems
  for (const key of ['include', 'exclude']) {
    const value = top[key]
    if (Array.isArray(value))
      value.forEach((item, i) => optional(`${key}[${i}]`, item, pattern, 'a glob or a RegExp'))
    else
      optional(key, value, pattern, FILTER)
  }
  for (const key of ['strict', 'offline', 'includeModel'])
    optional(key, top[key], boolean, 'true or false')
  optional('onInvalid', top.onInvalid, value => value === 'error' || value === 'fallback', '"error" or "fallback"')
  optional('root', top.root, text, 'a folder (a non-empty string)')
  if (top.skills !== undefined) {
    const skills = object('skills', top.skills, SKILLS_KEYS, 'an object ({ dirs: [\'skills\'] })')
    optional('skills.dirs', skills?.dirs, value => Array.isArray(value) && value.every(text), 'a list of folders (non-empty strings)')
  }
  if (top.agentSkills !== undefined && !boolean(top.agentSkills)) {
    const published = object('agentSkills', top.agentSkills, AGENT_SKILLS_KEYS, 'true, false or { llmsTxt, title, summary }')
    optional('agentSkills.llmsTxt', published?.llmsTxt, boolean, 'true or false')
    optional('agentSkills.title', published?.title, text, 'a title (a non-empty string)')
    optional('agentSkills.summary', published?.summary, value => typeof value === 'string', 'a sentence (a string)')
  }
  if (top.knowledge !== undefined) {
    // Its keys are the bases' names.
    const knowledge = object('knowledge', top.knowledge, null, 'an object of knowledge bases by name ({ docs: \'./docs\' })')
    for (const [name, entry] of Object.entries(knowledge ?? {}))
      knowledgeProblems(join('knowledge', name), name, entry, { expect, object, optional, boolean, text })
  }
  return problems
}

interface Checks {
  expect: (path: string, expected: string, value: unknown, hint?: string) => void
  object: (path: string, value: unknown, keys: readonly string[] | null, expected: string) => Record<string, unknown> | undefined
  optional: (path: string, value: unknown, test: (value: unknown) => boolean, expected: string) => void
  boolean: (value: unknown) => boolean
  text: (value: unknown) => boolean
}

/** One knowledge base: a folder, or `{ dir, … }`. */
function knowledgeProblems(path: string, name: string, entry: unknown, { expect, object, optional, boolean, text }: Checks): void {
  const EXPECTED = 'a folder (a string) or a knowledge base\'s options ({ dir, model, … })'
  if (typeof entry === 'string') {
    if (!text(entry))
      expect(path, EXPECTED, entry)
    return
  }
  if (!isObject(entry)) {
    // `knowledge: { model: false }` reads as a base named "model": the option belongs inside one base.
    const hint = KNOWLEDGE_KEYS.includes(name)
      ? ` "${name}" is an option of one knowledge base: knowledge: { docs: { dir: './docs', ${name}: ${describe(entry)} } }.`
      : ''
    expect(path, EXPECTED, entry, hint)
    return
  }
  const base = object(path, entry, KNOWLEDGE_KEYS, EXPECTED)!
  if (base.dir === undefined)
    expect(join(path, 'dir'), 'the knowledge base\'s folder (a string)', undefined, ` Write ${path}: { dir: './docs', … }.`)
  else
    optional(join(path, 'dir'), base.dir, text, 'the knowledge base\'s folder (a non-empty string)')
  if (base.model !== undefined && base.model !== false)
    object(join(path, 'model'), base.model, MODEL_KEYS, 'the model\'s settings (an object) or false (no model: lexical search only)')
  if (base.chunk !== undefined)
    object(join(path, 'chunk'), base.chunk, Object.keys(DEFAULT_CHUNK), 'an object ({ maxTokens, overlapTokens })')
  if (base.search !== undefined)
    object(join(path, 'search'), base.search, Object.keys(DEFAULT_SEARCH), 'an object ({ topK, threshold })')
  if (base.shards !== undefined && !boolean(base.shards)) {
    const shards = object(join(path, 'shards'), base.shards, SHARDS_KEYS, 'true, false or { lexicalBytes, vectorBytes, refinementBytes, cells, probe }')
    const positive = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 1
    for (const key of SHARD_SIZE_KEYS)
      optional(join(join(path, 'shards'), key), shards?.[key], positive, 'a positive integer (bytes a shard)')
    optional(join(join(path, 'shards'), 'cells'), shards?.cells, value => value === 'auto' || (Number.isSafeInteger(value) && (value as number) >= 0), '"auto" or a number of vector cells (0: exact search only)')
    optional(join(join(path, 'shards'), 'probe'), shards?.probe, positive, 'a positive integer (vector cells a search reads)')
  }
  optional(join(path, 'queryEncoder'), base.queryEncoder, value => QUERY_ENCODERS.includes(value as QueryEncoder), '"auto", "static" or "model"')
  optional(join(path, 'includeModel'), base.includeModel, boolean, 'true or false')
  optional(join(path, 'preloadHtml'), base.preloadHtml, boolean, 'true or false')
  optional(join(path, 'description'), base.description, text, 'a sentence saying what the base holds')
  optional(join(path, 'url'), base.url, value => typeof value === 'function' || (typeof value === 'string' && isPageUrlPattern(value)), `'vitepress', 'vitepress-html', 'astro', a pattern with {path} or {id} ('/docs/{path}'), or a function of the document returning its page's URL`)
  if (base.preloadHtml === true && (base.shards === undefined || base.shards === false))
    expect(join(path, 'preloadHtml'), 'false without shards', true, ' It preloads the files of a sharded snapshot: set shards: true too, or remove preloadHtml.')
  if (base.export !== undefined) {
    const exported = object(join(path, 'export'), base.export, EXPORT_KEYS, 'an object ({ mode, outDir, includeModel })')
    const at = join(path, 'export')
    optional(join(at, 'mode'), exported?.mode, value => value === 'semantic' || value === 'routed', '"semantic" or "routed"')
    optional(join(at, 'outDir'), exported?.outDir, text, 'a folder in the build output (a non-empty string)')
    optional(join(at, 'includeModel'), exported?.includeModel, boolean, 'true or false')
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RegExp)
}

/** `path.key`, with a key that is no identifier in brackets (`knowledge["my docs"]`). */
function join(path: string, key: string): string {
  if (/^[A-Z_$][\w$]*$/i.test(key))
    return path ? `${path}.${key}` : key
  return `${path}[${quoteForMessage(key)}]`
}

/** A value as a message shows it: short, and never a whole object. */
function describe(value: unknown): string {
  if (value === undefined)
    return 'nothing'
  if (value === null || typeof value === 'boolean' || typeof value === 'number')
    return String(value)
  if (typeof value === 'string')
    return quoteForMessage(value)
  if (value instanceof RegExp)
    return excerptForMessage(String(value))
  if (Array.isArray(value))
    return 'an array'
  return typeof value === 'function' ? 'a function' : 'an object'
}
