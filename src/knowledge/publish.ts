// The published index of a knowledge project: content-addressed snapshot and
// document files, and a manifest naming the pair that belongs together. The
// manifest is written last (atomically), so a reader that follows it never
// mixes the vectors of one build with the texts of another.

import type { KnowledgeIndex } from './build'
import type { QueryTableSource } from '../runtime/knowledge/vector/encoder/static-embedder'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { removeDeadTemporaries, replaceDirAtomic, writeFileAtomic, writeFileAtomicAsync } from '../core/atomic'
import { hash } from '../core/hash'
import { QUERY_TABLE_CORE_NAME, queryTableShardName } from '../runtime/knowledge/vector/encoder/read'
import { SNAPSHOT_VERSION } from '../runtime/knowledge/format/snapshot-layout'

export const MANIFEST_FILE = 'manifest.json'
export const MANIFEST_FORMAT = 1

/** What `manifest.json` says about the published index. */
export interface IndexManifest {
  format: typeof MANIFEST_FORMAT
  name: string
  /** File name of the snapshot, beside the manifest. */
  snapshot: string
  /** The snapshot's format version (absent before version 2). */
  snapshotFormat?: number
  /** File name of the document bodies (JSON), beside the manifest. */
  documents: string
  /** Digest of the knowledge folder the index was built from. */
  digest: string
  /** Digest of the settings that shape the index (model and chunking). */
  settings: string
  /** The embedding model's fingerprint; `null` for an index built with no model (`"model": false`). */
  model: string | null
  documentCount: number
  /** Chunks: the documents' sections (and metadata), as `chunkDocument` cuts them. */
  chunkCount: number
  /**
   * Windows: the model inputs the chunks are cut into, one searchable row of
   * the snapshot each (one per chunk with no model). Absent before it was
   * written; `chunkCount` then counted windows.
   */
  windowCount?: number
  /** The query table of the static query encoder, when the project has one (see {@link PublishedQueryTable}). */
  queryTable?: PublishedQueryTable
}

/**
 * A query table as published: a folder named by the core's content, holding
 * `query-table.json` and `query-table-<s>.bin` (see
 * `runtime/knowledge/vector/encoder/format.ts`).
 */
export interface PublishedQueryTable {
  /** The folder's name, beside the manifest. */
  folder: string
  /** Shards in the folder. */
  shards: number
  /** What the table was made from (snapshot, model, distillation): equal, it need not be made again. */
  source: string
}

/** A query table's files, as `encodeQueryTable` writes them, and the {@link PublishedQueryTable.source} they were made from. */
export interface QueryTableFiles {
  core: Uint8Array
  shards: Uint8Array[]
  source: string
}

/** One document's text as published. */
export interface PublishedDocument {
  id: string
  path: string
  body: string
}

const PUBLISHED = /^(?:snapshot-[\w-]+\.skillkit|documents-[\w-]+\.json)$/
const TABLE_FOLDER = /^query-table-[\w-]{16}$/

/**
 * Unreferenced files younger than this stay: another process (the CLI and a
 * dev server on one project) may have written them and not yet its manifest.
 */
const GRACE_MS = 60_000

/**
 * Writes the index into `output`: the snapshot and the bodies under names
 * derived from their content, then the manifest. Files of older builds are
 * removed, except the previous manifest's, which a reader may still be
 * following, and any written in the last minute. `stale()` is asked right
 * before the manifest is written, in the same turn of the event loop: `true`
 * writes no manifest (the index stays as it was) and resolves `undefined`.
 */
export async function publishIndex(output: string, { name, index, settings, queryTable, stale }: { name: string, index: KnowledgeIndex, settings: string, queryTable?: QueryTableFiles, stale?: () => boolean }): Promise<{ snapshotFile: string, documentsFile: string, manifest: IndexManifest } | undefined> {
  removeDeadTemporaries(output)
  const snapshotName = `snapshot-${hash(index.snapshot).slice(0, 16)}.skillkit`
  const snapshotFile = join(output, snapshotName)
  // The snapshot (tens of megabytes for a large folder) is written on libuv's threads while this one serialises the bodies.
  const snapshotWritten = existsSync(snapshotFile) ? Promise.resolve() : writeFileAtomicAsync(snapshotFile, index.snapshot)
  let documentsName: string
  try {
    const documents: PublishedDocument[] = index.documents.map(d => ({ id: d.id, path: d.path, body: d.body }))
    const documentsText = JSON.stringify({ format: MANIFEST_FORMAT, documents })
    documentsName = `documents-${hash(documentsText).slice(0, 16)}.json`
    if (!existsSync(join(output, documentsName)))
      writeFileAtomic(join(output, documentsName), documentsText)
  }
  catch (error) {
    await snapshotWritten.catch(() => {})
    throw error
  }
  await snapshotWritten
  const table = queryTable && await publishQueryTable(output, queryTable)
  // A change noticed while the snapshot was written: its files are unreferenced and go with the next build's clean-up.
  if (stale?.())
    return undefined
  const manifest: IndexManifest = {
    format: MANIFEST_FORMAT,
    name,
    snapshot: snapshotName,
    snapshotFormat: SNAPSHOT_VERSION,
    documents: documentsName,
    digest: index.digest,
    settings,
    model: index.model,
    documentCount: index.documents.length,
    chunkCount: index.chunks.length,
    windowCount: index.stats.windows,
    ...(table && { queryTable: table }),
  }
  const documentsFile = join(output, documentsName)
  const previous = readManifest(output)
  const text = `${JSON.stringify(manifest, null, 2)}\n`
  if (!existsSync(join(output, MANIFEST_FILE)) || readFileSync(join(output, MANIFEST_FILE), 'utf8') !== text)
    writeFileAtomic(join(output, MANIFEST_FILE), text)
  const keep = new Set([manifest.snapshot, manifest.documents, manifest.queryTable?.folder, previous?.snapshot, previous?.documents, previous?.queryTable?.folder])
  const recent = Date.now() - GRACE_MS
  for (const file of readdirSync(output)) {
    if (!(PUBLISHED.test(file) || TABLE_FOLDER.test(file)) || keep.has(file))
      continue
    try {
      if (statSync(join(output, file)).mtimeMs < recent)
        rmSync(join(output, file), { force: true, recursive: true })
    }
    catch {
      // Removed by another build meanwhile.
    }
  }
  return { snapshotFile, documentsFile, manifest }
}

/** Writes a query table's folder (whole or not at all), unless it is there already: its name is its core's content, which names every shard's bytes and CRC. */
async function publishQueryTable(output: string, files: QueryTableFiles): Promise<PublishedQueryTable> {
  const folder = `query-table-${hash(files.core).slice(0, 16)}`
  if (!existsSync(join(output, folder, QUERY_TABLE_CORE_NAME))) {
    await replaceDirAtomic(join(output, folder), async (temporary) => {
      files.shards.forEach((shard, s) => writeFileSync(join(temporary, queryTableShardName(s)), shard))
      writeFileSync(join(temporary, QUERY_TABLE_CORE_NAME), files.core)
    }, { keep: async () => existsSync(join(output, folder, QUERY_TABLE_CORE_NAME)) })
  }
  return { folder, shards: files.shards.length, source: files.source }
}

/**
 * The query table `manifest` names, as a static query embedder reads it: the
 * core and each shard read from disk when asked for, so that a search reads
 * its own pieces' shards only. `undefined` when it names none or its core is gone.
 */
export function publishedQueryTableSource(output: string, manifest: IndexManifest): QueryTableSource | undefined {
  const table = manifest.queryTable
  if (!table || !TABLE_FOLDER.test(table.folder) || !existsSync(join(output, table.folder, QUERY_TABLE_CORE_NAME)))
    return undefined
  const path = (file: string) => join(output, table.folder, file)
  return {
    core: () => readFile(path(QUERY_TABLE_CORE_NAME)),
    shard: index => readFile(path(queryTableShardName(index))),
    name: index => path(queryTableShardName(index)),
    coreName: path(QUERY_TABLE_CORE_NAME),
    model: manifest.model ?? undefined,
  }
}

/** The files of the query table `manifest` names, read; `undefined` when it names none or they are gone. */
export function readQueryTable(output: string, manifest: IndexManifest): QueryTableFiles | undefined {
  const table = manifest.queryTable
  if (!table || !TABLE_FOLDER.test(table.folder))
    return undefined
  try {
    const read = (file: string) => new Uint8Array(readFileSync(join(output, table.folder, file)))
    return { core: read(QUERY_TABLE_CORE_NAME), shards: Array.from({ length: table.shards }, (_, s) => read(queryTableShardName(s))), source: table.source }
  }
  catch {
    return undefined
  }
}

/** The manifest in `output`, or `undefined` when there is none or it is not ours. */
export function readManifest(output: string): IndexManifest | undefined {
  let value: unknown
  try {
    value = JSON.parse(readFileSync(join(output, MANIFEST_FILE), 'utf8'))
  }
  catch {
    return undefined
  }
  const m = value as Partial<IndexManifest> | null
  if (!m || m.format !== MANIFEST_FORMAT || typeof m.snapshot !== 'string' || typeof m.documents !== 'string' || !PUBLISHED.test(m.snapshot) || !PUBLISHED.test(m.documents))
    return undefined
  return m as IndexManifest
}

/** The published pair the manifest names, read. */
export interface PublishedIndex {
  manifest: IndexManifest
  snapshot: Uint8Array
  documents: PublishedDocument[]
}

/** Reads the index published in `output`; `undefined` when there is none (or it was replaced while reading). */
export function readPublishedIndex(output: string): PublishedIndex | undefined {
  const manifest = readManifest(output)
  if (!manifest)
    return undefined
  try {
    const snapshot = readFileSync(join(output, manifest.snapshot))
    const documents = (JSON.parse(readFileSync(join(output, manifest.documents), 'utf8')) as { documents: PublishedDocument[] }).documents
    return { manifest, snapshot: new Uint8Array(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength), documents }
  }
  catch {
    return undefined
  }
}
