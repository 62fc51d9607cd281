import type { KnowledgeSearchMode } from '../../runtime/knowledge/ranking/search-modes'
import type { EmbedQuery } from '../../runtime/knowledge/query-embedder'
import type { Command, ParsedArgs } from '../command'
import type { EmbeddedProject, KnowledgeProject } from '../../knowledge/project'
import type { PublishedIndex } from '../../knowledge/publish'
import type { KnowledgeSearchResult } from '../../runtime/knowledge/knowledge'
import { locateModelFiles } from '../../knowledge/embedder-files'
import { hasModel } from '../../knowledge/project'
import { publishedQueryTableSource } from '../../knowledge/publish'
import { staticQueryEmbedder } from '../../runtime/knowledge/vector/encoder/static-embedder'
import { isSearchMode, SEARCH_MODE_LIST } from '../../runtime/knowledge/ranking/search-modes'
import { THRESHOLD_RULE, TOP_K_RULE } from '../../runtime/knowledge/ranking/search-options'
import { flag, PROJECT_HELP, PROJECT_OPTION, stringOption } from '../command'
import { CliError, json, UsageError } from '../io'
import { publishedKnowledgeBase } from './base'
import { loadEmbedder } from './embedder'
import { freshIndex, openCliProject } from './project'

/**
 * How `queryEncoder: "auto"` embeds the query here: with the model when it
 * can run without a download (a server, or its files in the cache), since it
 * ranks best (bench/RESULTS.md: up to 11 points of top-1 on long prompts);
 * else with the published table, which needs no model; else with the model,
 * which the CLI downloads as `build` does.
 */
function autoEncoder(project: EmbeddedProject, hasTable: boolean): 'static' | 'model' {
  const { model } = project.config
  if (!hasTable || model.server)
    return 'model'
  return locateModelFiles(model.cacheDir, model.id, model.revision, model.dtype).missing.length === 0 ? 'model' : 'static'
}

/** `--top-k`: a positive integer, or the project's default. */
function topKOption(args: ParsedArgs): number | undefined {
  const text = stringOption(args, 'top-k')
  if (text === undefined)
    return undefined
  const value = Number(text)
  if (!/^\d+$/.test(text.trim()) || !TOP_K_RULE.test(value))
    throw new UsageError(`--top-k must be ${TOP_K_RULE.expected}, got "${text}".`)
  return value
}

/** `--threshold`: a number from -1 to 1, or the mode's default. */
function thresholdOption(args: ParsedArgs): number | undefined {
  const text = stringOption(args, 'threshold')
  if (text === undefined)
    return undefined
  const value = Number(text)
  if (text.trim() === '' || !THRESHOLD_RULE.test(value))
    throw new UsageError(`--threshold must be ${THRESHOLD_RULE.expected}, got "${text}".`)
  return value
}

/** `--mode`, or `undefined` for the project's default. */
function modeOption(args: ParsedArgs): KnowledgeSearchMode | undefined {
  const text = stringOption(args, 'mode')
  if (text === undefined)
    return undefined
  if (!isSearchMode(text))
    throw new UsageError(`--mode must be ${SEARCH_MODE_LIST}, got "${text}".`)
  return text
}

const ENCODERS = ['static', 'model'] as const

/** `--encoder`, or `undefined` for the project's `queryEncoder`. */
function encoderOption(args: ParsedArgs): typeof ENCODERS[number] | undefined {
  const text = stringOption(args, 'encoder')
  if (text === undefined)
    return undefined
  const encoder = ENCODERS.find(e => e === text)
  if (!encoder)
    throw new UsageError(`--encoder must be static or model, got "${text}".`)
  return encoder
}

/** What {@link searchPublished} takes: the query and the options of `skill-kit search`, `undefined` for the project's defaults. */
export interface PublishedSearch {
  query: string
  mode?: KnowledgeSearchMode
  topK?: number
  threshold?: number
  encoder?: typeof ENCODERS[number]
  /** Never download the model. */
  offline?: boolean
}

/**
 * Ranks a published index's documents as `skill-kit search` does: the same
 * mode and encoder defaults, the same refusals (a `CliError` naming the fix),
 * so that `skill-kit mcp` answers exactly as the command. `index` is read
 * once the request is checked: a refused mode is refused alike with no index.
 */
export async function searchPublished(project: KnowledgeProject, index: () => PublishedIndex, { query, mode: requested, topK, threshold, encoder: encoderRequested, offline = false }: PublishedSearch): Promise<KnowledgeSearchResult[]> {
  const { model, name } = project.config
  const mode = requested ?? (model ? 'auto' : 'lexical')
  if (!model && mode !== 'lexical' && mode !== 'auto')
    throw new CliError(`"${name}" has no model ("model": false in skill-kit.json), so its index has no vectors for a ${mode} search: search with --mode lexical, or replace "model": false with the model's settings ({} for the default) and run "skill-kit build".`)
  const published = index()
  let embedQuery: EmbedQuery | undefined
  const table = hasModel(project) && mode !== 'lexical' ? publishedQueryTableSource(project.config.output, published.manifest) : undefined
  const { queryEncoder } = project.config
  const encoder = encoderRequested ?? (!hasModel(project) || queryEncoder !== 'auto' ? queryEncoder : autoEncoder(project, table !== undefined))
  if (hasModel(project) && mode !== 'lexical' && encoder === 'static') {
    if (!table)
      throw new CliError(`"${name}" has no query table to embed the query with${project.config.queryEncoder === 'model' ? ' ("queryEncoder": "model" in skill-kit.json)' : ''}: search with --encoder model, or set "queryEncoder" to "auto" or "static" and run "skill-kit build".`)
    embedQuery = staticQueryEmbedder(table)
  }
  else if (hasModel(project) && mode !== 'lexical') {
    const embedder = await loadEmbedder(project, offline)
    // Same settings, other weights (model files replaced in place): the vectors would not be comparable.
    if (embedder.fingerprint !== published.manifest.model)
      throw new CliError(`The index was built with another model (${published.manifest.model}; the project's is ${embedder.fingerprint}). Run "skill-kit build" to update it.`)
    embedQuery = async text => (await embedder.embed([text], 'query'))[0]!
  }
  return publishedKnowledgeBase(project, published, embedQuery).search(query, { mode, topK, threshold })
}

/** `skill-kit search "<query>"`: ranks the published index's documents; metadata only, never bodies. */
export const searchCommand: Command = {
  name: 'search',
  summary: '  search "<query>"      Rank the documents of the published index for a query (JSON)',
  usage: `Usage: skill-kit search "<query>" [options]

Prints the best documents for the query as a JSON array (id, title, description,
category, categories, tags, path, tokenCount, score, heading), best first.
Bodies are not printed: use "skill-kit retrieve <id>". The index must be
up to date with the documents ("skill-kit build").

Options:
  --top-k <n>           Documents to return (default: search.topK of skill-kit.json)
  --threshold <x>       Lowest score returned, -1 to 1 (default: search.threshold for
                        vector and hybrid, 0.25 for lexical)
  --mode <m>            auto (the default): vector and lexical scores fused,
                        or lexical for a project whose skill-kit.json has
                        "model": false. vector: the query embedded with the
                        project's model (Transformers.js and the model files
                        must be installed; auto and vector fail rather than
                        fall back to lexical). lexical: BM25 over the same
                        chunks, no model. hybrid: both, fused by reciprocal rank
  --encoder <e>         How the query is embedded: static (the query table the build
                        distilled from the model: no model is loaded) or model (the
                        model itself). Default: as "queryEncoder" of skill-kit.json;
                        for "auto", the model when its files are here, else the table
  --offline             Never download the model; fail when its files are missing
${PROJECT_HELP}`,
  options: {
    ...PROJECT_OPTION,
    'top-k': { type: 'string' },
    'threshold': { type: 'string' },
    'mode': { type: 'string' },
    'encoder': { type: 'string' },
    'offline': { type: 'boolean' },
  },
  maxPositionals: Infinity,
  async run(args, io) {
    // Unquoted words are one query, as a shell user typing `search restore a backup` means.
    const query = args.positionals.join(' ')
    if (query.trim() === '')
      throw new UsageError('search needs a query, e.g. skill-kit search "restore a deleted file".')
    const topK = topKOption(args)
    const threshold = thresholdOption(args)
    const requested = modeOption(args)
    const encoderRequested = encoderOption(args)

    const project = openCliProject(args, io)
    const results = await searchPublished(project, () => freshIndex(project), { query, mode: requested, topK, threshold, encoder: encoderRequested, offline: flag(args, 'offline') })
    io.out(json(results))
    return 0
  },
}
