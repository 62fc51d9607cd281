// The query table a project publishes beside its snapshot, for the static
// query encoder (`queryEncoder` `auto` or `static`): distilled from the
// project's model for its documents, encoded into a core and shards. Made
// again only when the snapshot or the distillation changes: the published
// table names what it was made from.

import type { KnowledgeIndex } from './build'
import type { KnowledgeConfig } from './config'
import type { Embedder } from './embedder'
import type { QueryTableFiles } from './publish'
import { hash } from '../core/hash'
import { QUERY_TABLE_FORMAT } from '../runtime/knowledge/vector/encoder/format'
import { readManifest, readQueryTable } from './publish'
import { queryTableCorpus } from './query-table/corpus'
import { DistilAbandoned, distilQueryTable } from './query-table/distil'
import { encodeQueryTable } from './query-table/encode'
import { loadModelVocabulary } from './query-table/vocabulary'

/** Bump when what a project's table is made from changes (the corpus's texts, the options): it makes every table again. */
const PROJECT_TABLE_VERSION = 1

/** A project whose queries must be embedded statically, but whose model gives no table. */
export class QueryTableUnavailableError extends Error {
  override name = 'QueryTableUnavailableError'
}

/** Whether a project's queries may be embedded with a static table: a model that runs in the build, and not `queryEncoder` `model`. */
export function wantsQueryTable(config: KnowledgeConfig): boolean {
  return config.model !== false && !config.model.server && config.queryEncoder !== 'model'
}

/** The format a table's core says it is in; `undefined` for one that is not JSON. */
function formatOf(core: Uint8Array): unknown {
  try {
    return (JSON.parse(new TextDecoder().decode(core)) as { format?: unknown }).format
  }
  catch {
    return undefined
  }
}

/**
 * What the table of `index` is made from: a published table whose
 * `source` differs was made for other documents (or another model), and a
 * full build makes it again.
 */
export function queryTableSource(index: Pick<KnowledgeIndex, 'model' | 'snapshot'>): string {
  return hash(JSON.stringify([index.model, hash(index.snapshot), PROJECT_TABLE_VERSION, QUERY_TABLE_FORMAT]))
}

/**
 * The query table of a built index: the published one when it was made from
 * the same snapshot and model, else distilled now (the model's rows come from
 * its cache in `model.cacheDir`, shared by every project using the model).
 * `undefined` where the project has none: `queryEncoder` `model`, a model on
 * a server, or `auto` with a model whose tokenizer is not WordPiece. With
 * `reuse`, the published table of the same model stands for a changed
 * snapshot too: it encodes queries as well, only without pieces new to the
 * documents, and saves the seconds of a distillation. `stale()`, asked between
 * the distillation's steps, stops it: `undefined` (the build publishes nothing).
 */
export async function projectQueryTable(config: KnowledgeConfig, embedder: Embedder, index: KnowledgeIndex, { reuse = false, stale }: { reuse?: boolean, stale?: () => boolean } = {}): Promise<QueryTableFiles | undefined> {
  if (!wantsQueryTable(config) || !config.model || index.model === null)
    return undefined
  const source = queryTableSource(index)
  const manifest = readManifest(config.output)
  // `reuse`: any table of this model will do (it keeps its source, so the next full build makes the right one).
  if (manifest?.queryTable && (manifest.queryTable.source === source || (reuse && manifest.model === index.model))) {
    const published = readQueryTable(config.output, manifest)
    // One of an earlier version's format would be refused where queries are embedded.
    if (published && formatOf(published.core) === QUERY_TABLE_FORMAT)
      return published
  }
  const { cacheDir, id, revision } = config.model
  const vocabulary = (embedder.unitsPerToken ?? 1) === 1 ? loadModelVocabulary(cacheDir, id, revision) : undefined
  if (!vocabulary) {
    if (config.queryEncoder === 'static')
      throw new QueryTableUnavailableError(`"queryEncoder" "static" needs a table distilled from ${id}, but its tokenizer is not a BERT WordPiece tokenizer (or its tokenizer.json is missing from ${cacheDir}): set "queryEncoder" to "model" or "auto".`)
    return undefined
  }
  // The snapshot's windows and vectors are training pairs the model need not compute again.
  try {
    const table = await distilQueryTable(embedder, queryTableCorpus(index, embedder, config.chunk), { vocabulary, cacheDir, stale })
    return { ...encodeQueryTable(table), source }
  }
  catch (error) {
    if (error instanceof DistilAbandoned)
      return undefined
    throw error
  }
}
