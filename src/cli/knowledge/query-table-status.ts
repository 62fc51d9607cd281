// What `skill-kit status` says of the published query table (the static
// query encoder's): whether it is there, the model it was distilled from,
// its size and file count (what a static host counts), and whether it was
// made for the published index or for earlier documents.

import type { IndexManifest } from '../../knowledge/publish'
import type { KnowledgeConfig } from '../../knowledge/config'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { queryTableSource, wantsQueryTable } from '../../knowledge/project-query-table'
import { QUERY_TABLE_CORE_NAME, readQueryTableCore } from '../../runtime/knowledge/vector/encoder/read'
import { KnowledgeError } from '../../runtime/knowledge/errors'

/** The `queryTable` of `skill-kit status`; `false` for a project that makes none. */
export type QueryTableStatus = false | {
  /** `fresh`: made for the published index; `stale`: see `reason`; `missing`: the index names none, or its files are gone; `damaged`: its core cannot be read. */
  state: 'fresh' | 'stale' | 'missing' | 'damaged'
  reason: string | null
  /** The fingerprint of the model it was distilled from. */
  model: string | null
  /** Its folder, relative as `status` prints paths. */
  folder: string | null
  /** Files in the folder: its core and shards. */
  files: number | null
  bytes: number | null
}

/** The published query table's state, next to the index `manifest` names (`undefined`: none published). */
export function queryTableStatus(config: KnowledgeConfig, manifest: IndexManifest | undefined, path: (absolute: string) => string): QueryTableStatus {
  if (!wantsQueryTable(config))
    return false
  const missing = { state: 'missing', reason: null, model: null, folder: null, files: null, bytes: null } as const
  const table = manifest?.queryTable
  if (!manifest || !table)
    return missing
  const dir = join(config.output, table.folder)
  let entries: string[]
  try {
    entries = readdirSync(dir)
  }
  catch {
    return missing
  }
  const bytes = entries.reduce((sum, name) => sum + statSync(join(dir, name)).size, 0)
  const found = { folder: path(dir), files: entries.length, bytes }
  let model: string
  try {
    model = readQueryTableCore(readFileSync(join(dir, QUERY_TABLE_CORE_NAME)), path(join(dir, QUERY_TABLE_CORE_NAME))).model
  }
  catch (error) {
    const reason = error instanceof KnowledgeError ? error.message : `Cannot read ${path(join(dir, QUERY_TABLE_CORE_NAME))}: run "skill-kit build".`
    return { state: 'damaged', reason, model: null, ...found }
  }
  if (model !== manifest.model)
    return { state: 'stale', reason: 'distilled from another model than the index\'s', model, ...found }
  let snapshot: Uint8Array
  try {
    snapshot = readFileSync(join(config.output, manifest.snapshot))
  }
  catch {
    return { state: 'stale', reason: 'the index\'s snapshot is gone', model, ...found }
  }
  // skill-kit watch and the Vite dev server keep the table they have while documents change.
  if (table.source !== queryTableSource({ model: manifest.model, snapshot }))
    return { state: 'stale', reason: 'made for earlier documents', model, ...found }
  return { state: 'fresh', reason: null, model, ...found }
}
