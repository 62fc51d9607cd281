import type { Diagnostic } from '../core/diagnostics'
import type { Chunk } from './chunk'
import type { ChunkConfig } from './config'
import type { KnowledgeDocument } from './document'
import type { Embedder } from './embedder'
import { chunkDocument } from './chunk'
import { loadKnowledgeFolder } from './load-folder'
import { encodeSnapshot } from './snapshot'
import { VectorCache, vectorKey } from './vector-cache'
import { tokenWindows } from './windows'

/** Bump when chunking or embedded text changes: it invalidates every cached vector. */
export const PIPELINE_VERSION = 1

/** Options of {@link buildKnowledgeIndex}. */
export interface KnowledgeBuildOptions {
  embedder: Embedder
  chunk: ChunkConfig
  /** Folder of the vector cache. */
  cacheDir: string
  /** Re-embed everything, ignoring cached vectors (the cache is refreshed). */
  force?: boolean
  /** Vector storage in the snapshot (default `int8`). */
  encoding?: 'int8' | 'float32'
  /** Called as windows get embedded. */
  onProgress?: (done: number, total: number) => void
}

/** A built knowledge index: what the snapshot holds and what it took. */
export interface KnowledgeIndex {
  documents: KnowledgeDocument[]
  chunks: Chunk[]
  /** The binary snapshot (see `src/runtime/snapshot-reader.ts`). */
  snapshot: Uint8Array
  /** Markdown files read, for watching. */
  files: string[]
  /** Hash of the folder's paths and texts the index was built from. */
  digest: string
  /** The embedder's fingerprint. */
  model: string
  /** Warnings of the folder (errors stop the build). */
  diagnostics: Diagnostic[]
  stats: { windows: number, embedded: number, cached: number }
}

/** What failed a build: the problems of the folder. */
export interface KnowledgeBuildFailure {
  diagnostics: Diagnostic[]
  files: string[]
}

/** The text put before a chunk in every window: document ID, category and the headings above it. */
export function chunkContext(document: KnowledgeDocument, chunk: Chunk): string {
  const head = document.category ? `${document.id} (${document.category})` : document.id
  return [head, ...chunk.context].join('\n')
}

/**
 * Builds the searchable index of a knowledge folder: documents, heading
 * chunks, windows cut on token IDs, vectors (from the cache where the same
 * window was embedded before with the same model and settings), snapshot.
 */
export async function buildKnowledgeIndex(dir: string, options: KnowledgeBuildOptions): Promise<KnowledgeIndex | KnowledgeBuildFailure> {
  const { embedder, chunk: chunking } = options
  const folder = loadKnowledgeFolder(dir)
  if (folder.diagnostics.some(d => d.severity === 'error'))
    return { diagnostics: folder.diagnostics, files: folder.files }

  const chunks = folder.documents.flatMap((document, index) => chunkDocument(document, index))
  const windowOptions = {
    maxTokens: Math.min(chunking.maxTokens, embedder.maxTokens),
    overlapTokens: chunking.overlapTokens,
    reserved: embedder.reservedTokens.document,
  }
  const windows = chunks.map((chunk) => {
    const context = embedder.tokenize(`${chunkContext(folder.documents[chunk.document]!, chunk)}\n`)
    return tokenWindows(context, embedder.tokenize(chunk.text), windowOptions)
  })

  const cache = new VectorCache(options.cacheDir, JSON.stringify([embedder.fingerprint, PIPELINE_VERSION, windowOptions]), embedder.dimensions)
  const flat = windows.flat()
  const keys = flat.map(window => vectorKey(window))
  const missing = [...new Set(keys.filter(key => options.force || !cache.get(key)))]
  const inputs = new Map(flat.map((window, i) => [keys[i]!, window]))
  const BATCH = 64
  for (let start = 0; start < missing.length; start += BATCH) {
    const batch = missing.slice(start, start + BATCH)
    const vectors = await embedder.embedTokens(batch.map(key => inputs.get(key)!), 'document')
    batch.forEach((key, i) => cache.set(key, vectors[i]!))
    options.onProgress?.(Math.min(start + BATCH, missing.length), missing.length)
  }
  cache.save()

  const snapshot = encodeSnapshot({
    model: embedder.fingerprint,
    dimensions: embedder.dimensions,
    encoding: options.encoding ?? 'int8',
    lexical: true,
    documents: folder.documents.map(d => ({
      id: d.id,
      description: d.description,
      category: d.category,
      categories: d.categories,
      tags: d.tags,
      path: d.path,
      tokenCount: embedder.tokenize(d.body).length,
    })),
    chunks: chunks.flatMap((chunk, c) => windows[c]!.map((window, w) => {
      const heading = chunk.title === undefined ? chunk.context : [...chunk.context, chunk.title]
      // The lexical index counts a chunk's words once, with its first window.
      return { documentIndex: chunk.document, vector: cache.get(vectorKey(window))!, heading, text: w === 0 ? chunk.text : '' }
    })),
  })
  return {
    documents: folder.documents,
    chunks,
    snapshot,
    files: folder.files,
    digest: folder.digest,
    model: embedder.fingerprint,
    diagnostics: folder.diagnostics,
    stats: { windows: flat.length, embedded: missing.length, cached: flat.length - missing.length },
  }
}
