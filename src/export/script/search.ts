// The search command of an exported semantic skill, `node search.mjs`: bundled
// with the knowledge runtime into one self-contained file at the package's
// build (dist/export/search.mjs), so that lexical search and retrieval need
// Node alone. Vector search imports @huggingface/transformers from the
// skill's own node_modules (its package.json and lockfile pin it) and loads
// the model from the skill's models/ folder (export --include-model) or from
// SKILL_KIT_MODEL_PATH; without either, `auto` searches lexically and says
// so on stderr. An index embedded by a server, exported without its model,
// embeds queries through that server (fetch alone). It ranks and retrieves exactly as `skill-kit search` and
// `skill-kit retrieve` do, through the same runtime, and prints the same JSON.

import type { KnowledgeBase } from '../../runtime/knowledge/knowledge'
import type { EmbedQuery, QueryModel, TransformersModule } from '../../runtime/knowledge/query-embedder'
import type { KnowledgeSearchMode } from '../../runtime/knowledge/ranking/search-modes'
import type { SearchOptionRule } from '../../runtime/knowledge/ranking/search-options'
import type { ExportSettings } from '../settings'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createKnowledgeBase, KnowledgeError, QueryModelUnavailableError } from '../../runtime/knowledge/knowledge'
import { modelFilesOf } from '../../runtime/knowledge/model-files'
import { transformersQueryEmbedder } from '../../runtime/knowledge/query-embedder'
import { isSearchMode, SEARCH_MODE_LIST } from '../../runtime/knowledge/ranking/search-modes'
import { THRESHOLD_RULE, TOP_K_RULE } from '../../runtime/knowledge/ranking/search-options'
import { serverQueryEmbedder } from '../../runtime/knowledge/server-query-embedder'
import { decodeSnapshot } from '../../runtime/knowledge/format/snapshot-reader'
import { SnapshotError } from '../../runtime/knowledge/format/snapshot-container'
import { SETTINGS_FILE } from '../settings'

/** The environment variable naming a folder that holds `<model id>/`, for an export without its model. */
const MODEL_PATH_VARIABLE = 'SKILL_KIT_MODEL_PATH'
/** Kept in a variable, so that the bundle leaves the import to Node at run time. */
const TRANSFORMERS = '@huggingface/transformers'

const USAGE = `Usage:
  node search.mjs "<query>" [--mode auto|vector|lexical|hybrid] [--top-k <n>] [--threshold <x>]
  node search.mjs retrieve <id>

search prints the best documents for the query as a JSON array (id,
description, category, categories, tags, path, tokenCount, score, heading),
best first, never their text. retrieve prints one document's complete text.
--mode auto (the default) searches by vector when the embedding model and
@huggingface/transformers are here (or, for an index embedded by a server,
when that server answers), else lexically (and says so on stderr).
`

/** A command line that makes no sense: exit 2 with the usage. */
class UsageError extends Error {}

const folder = dirname(fileURLToPath(import.meta.url))

function readSettings(): ExportSettings {
  return JSON.parse(readFileSync(join(folder, SETTINGS_FILE), 'utf8')) as ExportSettings
}

/**
 * The query embedder of the export's model: its files are checked before
 * Transformers.js is imported, so a missing model or package is a
 * {@link QueryModelUnavailableError} that says what to do (an `auto` search
 * then falls back to lexical).
 */
function exportEmbedder(model: Exclude<ExportSettings['model'], false>, modelFolder: string | null): EmbedQuery {
  const given = modelFolder ? join(folder, modelFolder) : process.env[MODEL_PATH_VARIABLE]
  const fix = `export the skill again with --include-model, or set ${MODEL_PATH_VARIABLE} to a folder that holds ${model.id}/`
  let embed: EmbedQuery | undefined
  return async (query) => {
    if (!given)
      throw new QueryModelUnavailableError('this skill was exported without its embedding model', fix)
    const localModelPath = resolve(given)
    const dir = join(localModelPath, ...model.id.split('/'))
    const missing = modelFilesOf(model.dtype).filter(file => !existsSync(join(dir, model.revision, file)) && !existsSync(join(dir, file)))
    if (missing.length > 0)
      throw new QueryModelUnavailableError(`${dir} lacks ${missing.join(', ')}`, fix)
    const load = () => (import(TRANSFORMERS) as Promise<TransformersModule>).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' && String((error as Error).message).includes(`'${TRANSFORMERS}'`))
        throw new QueryModelUnavailableError(`${TRANSFORMERS} is not installed in this skill's folder`, `run "npm ci" in ${folder} once`, { cause: error })
      throw error
    })
    const spec: QueryModel = { ...model, localModelPath, device: 'cpu' }
    embed ??= transformersQueryEmbedder(load, spec)
    return embed(query)
  }
}

/** The export's own model when it has one, else the server that embedded the index, else the model named by SKILL_KIT_MODEL_PATH. */
function queryEmbedder(model: Exclude<ExportSettings['model'], false>, modelFolder: string | null): EmbedQuery {
  const { server } = model
  if (server && !modelFolder)
    return serverQueryEmbedder({ baseUrl: server.baseUrl, model: model.id, apiKeyEnv: server.apiKeyEnv, dimensions: server.dimensions, queryPrefix: model.queryPrefix })
  return exportEmbedder(model, modelFolder)
}

function numberOption(text: string | undefined, name: string, { test, expected }: SearchOptionRule): number | undefined {
  if (text === undefined)
    return undefined
  const value = Number(text)
  if (text.trim() === '' || !Number.isFinite(value) || !test(value))
    throw new UsageError(`--${name} must be ${expected}, got "${text}".`)
  return value
}

/** `--threshold -0.5` as `--threshold=-0.5`: parseArgs takes a value starting with a dash for an option. */
function joinNegativeNumbers(argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1]
    if ((argv[i] === '--threshold' || argv[i] === '--top-k') && next !== undefined && /^-(?:\d|\.\d)/.test(next))
      out.push(`${argv[i++]}=${next}`)
    else out.push(argv[i]!)
  }
  return out
}

/** What the command line asks for, checked before any file is read. */
type Request = { verb: 'retrieve', id: string } | { verb: 'search', query: string, mode: KnowledgeSearchMode, topK?: number, threshold?: number }

function parseRequest(argv: string[]): Request | undefined {
  const { values, positionals } = parseArgs({
    args: joinNegativeNumbers(argv),
    allowPositionals: true,
    options: { 'mode': { type: 'string' }, 'top-k': { type: 'string' }, 'threshold': { type: 'string' }, 'help': { type: 'boolean', short: 'h' } },
  })
  if (values.help)
    return undefined
  if (positionals[0] === 'retrieve') {
    if (positionals.length !== 2 || positionals[1] === '')
      throw new UsageError('retrieve takes one document ID, e.g. node search.mjs retrieve <id from a search>.')
    return { verb: 'retrieve', id: positionals[1]! }
  }
  // Unquoted words are one query, as a shell user typing `node search.mjs restore a backup` means.
  const query = positionals.join(' ')
  if (query.trim() === '')
    throw new UsageError('Give a query, e.g. node search.mjs "restore a deleted file".')
  const mode = values.mode ?? 'auto'
  if (!isSearchMode(mode))
    throw new UsageError(`--mode must be ${SEARCH_MODE_LIST}, got "${mode}".`)
  return {
    verb: 'search',
    query,
    mode,
    topK: numberOption(values['top-k'], 'top-k', TOP_K_RULE),
    threshold: numberOption(values.threshold, 'threshold', THRESHOLD_RULE),
  }
}

/** The exported index as the runtime's knowledge base, exactly as `skill-kit search` and `retrieve` read a published one. */
function exportedKnowledgeBase(): KnowledgeBase {
  const settings = readSettings()
  const snapshot = new Uint8Array(readFileSync(join(folder, settings.snapshot)))
  const bodies = new Map((JSON.parse(readFileSync(join(folder, settings.documents), 'utf8')) as { documents: { id: string, body: string }[] }).documents.map(d => [d.id, d.body]))
  const { documents } = decodeSnapshot(snapshot, { verify: false })
  return createKnowledgeBase({
    name: settings.name,
    documents,
    loadSnapshot: async () => snapshot,
    snapshotName: () => join(folder, settings.snapshot),
    bodies: documents.map(d => async () => bodies.get(d.id) ?? ''),
    search: settings.search,
    embedQuery: settings.model ? queryEmbedder(settings.model, settings.modelFolder) : undefined,
    vectors: settings.model !== false,
  })
}

async function main(argv: string[]): Promise<{ out: string, code: number }> {
  const request = parseRequest(argv)
  if (!request)
    return { out: USAGE, code: 0 }
  const base = exportedKnowledgeBase()
  if (request.verb === 'retrieve') {
    const body = await base.retrieve(request.id)
    return { out: body.endsWith('\n') ? body : `${body}\n`, code: 0 }
  }
  const results = await base.search(request.query, { mode: request.mode, topK: request.topK, threshold: request.threshold })
  return { out: `${JSON.stringify(results, null, 2)}\n`, code: 0 }
}

function fail(error: unknown): { out: string, code: number } {
  const verb = process.argv[2] === 'retrieve' ? 'search.mjs retrieve' : 'search.mjs'
  const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
  if (usage)
    process.stderr.write(`${verb}: ${(error as Error).message}\n\n${USAGE}`)
  else if (error instanceof KnowledgeError || error instanceof SnapshotError)
    process.stderr.write(`${verb}: ${error.message}\n`)
  else if ((error as { code?: string }).code === 'ENOENT')
    process.stderr.write(`${verb}: ${(error as { path?: string }).path} is missing: search.mjs runs in the folder of an exported skill, beside its index/. Export the skill again with "skill-kit export".\n`)
  else throw error
  return { out: '', code: usage ? 2 : 1 }
}

const { out, code } = await main(process.argv.slice(2)).catch(fail)
// A loaded ONNX session keeps native threads alive: exit once the output is written.
process.stdout.write(out, () => process.exit(code))
