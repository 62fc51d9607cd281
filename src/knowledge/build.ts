import type { Diagnostic } from '../core/diagnostics'
import type { Chunk } from './chunk'
import type { ChunkConfig } from './config'
import type { KnowledgeDocument } from './document'
import type { Embedder } from './embedder'
import type { KnowledgeFolder } from './load-folder'
import type { SnapshotDocumentInput } from './snapshot'
import type { KnowledgeProgress } from './progress'
import { hash } from '../core/hash'
import { estimateTokens } from '../runtime/tokens'
import { chunkDocument } from './chunk'
import { loadKnowledgeFolder } from './load-folder'
import { encodeSnapshot } from './snapshot'
import { TokenMemo, VectorCache, vectorKey } from './vector-cache'
import { tokenWindows } from './windows'

/** Bump when chunking or embedded text changes: it invalidates every cached vector. */
export const PIPELINE_VERSION = 1

/** Options of {@link buildKnowledgeIndex}. */
export interface KnowledgeBuildOptions {
  /**
   * The embedding model; `null` builds with no model: the lexical index only,
   * no vectors, no vector cache, and token counts estimated from the text.
   */
  embedder: Embedder | null
  chunk: ChunkConfig
  /** Folder of the vector cache. */
  cacheDir: string
  /** Re-embed everything, ignoring cached vectors (the cache is refreshed). */
  force?: boolean
  /** Vector storage in the snapshot (default `int8`). */
  encoding?: 'int8' | 'float32'
  /** Called once the folder is read and cut into windows, then after each batch of windows embedded. */
  onProgress?: (event: KnowledgeProgress) => void
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
  /** The embedder's fingerprint; `null` for an index built with no model. */
  model: string | null
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
  if (!embedder)
    return lexicalOnlyIndex(folder, chunks)
  const windowOptions = {
    maxTokens: Math.min(chunking.maxTokens, embedder.maxTokens),
    overlapTokens: chunking.overlapTokens,
    reserved: embedder.reservedTokens.document,
  }
  const identity = JSON.stringify([embedder.fingerprint, PIPELINE_VERSION, windowOptions])
  const cache = new VectorCache(options.cacheDir, identity, embedder.dimensions)
  const memo = new TokenMemo(options.cacheDir, identity)
  // Each chunk's windows, as the keys of their vectors. A chunk is tokenized only when the
  // memo does not know it (new or edited) or misses one of its vectors; the token IDs are
  // kept for the windows that get embedded.
  const inputs = new Map<string, number[]>()
  const windowKeys = chunks.map((chunk) => {
    const context = `${chunkContext(folder.documents[chunk.document]!, chunk)}\n`
    const memoKey = hash(context, chunk.text)
    const known = options.force ? undefined : memo.windowKeys(memoKey)
    if (known && known.length > 0 && known.every(key => cache.get(key)))
      return known
    const windows = tokenWindows(embedder.tokenize(context), embedder.tokenize(chunk.text), windowOptions)
    const keys = windows.map(window => vectorKey(window))
    keys.forEach((key, i) => inputs.set(key, windows[i]!))
    memo.setWindowKeys(memoKey, keys)
    return keys
  })
  const keys = windowKeys.flat()
  const missing = [...new Set(keys.filter(key => options.force || !cache.get(key)))]
  options.onProgress?.({ phase: 'read', documents: folder.documents.length, chunks: chunks.length, windows: keys.length, cached: keys.length - missing.length })
  const BATCH = 64
  for (let start = 0; start < missing.length; start += BATCH) {
    const batch = missing.slice(start, start + BATCH)
    const vectors = await embedder.embedTokens(batch.map(key => inputs.get(key)!), 'document')
    batch.forEach((key, i) => cache.set(key, vectors[i]!))
    cache.checkpoint()
    options.onProgress?.({ phase: 'embed', done: Math.min(start + BATCH, missing.length), total: missing.length })
  }
  cache.save()
  const tokenCount = (text: string) => {
    const key = hash(text)
    let count = memo.tokenCount(key)
    if (count === undefined) {
      count = embedder.tokenize(text).length
      memo.setTokenCount(key, count)
    }
    return count
  }

  const snapshot = encodeSnapshot({
    model: embedder.fingerprint,
    dimensions: embedder.dimensions,
    encoding: options.encoding ?? 'int8',
    lexical: true,
    documents: snapshotDocuments(folder.documents, tokenCount),
    chunks: chunks.flatMap((chunk, c) => windowKeys[c]!.map((key, w) => {
      // The lexical index counts a chunk's words once, with its first window.
      return { documentIndex: chunk.document, vector: cache.get(key)!, heading: headingPath(chunk), text: w === 0 ? chunk.text : '' }
    })),
  })
  memo.save()
  return {
    documents: folder.documents,
    chunks,
    snapshot,
    files: folder.files,
    digest: folder.digest,
    model: embedder.fingerprint,
    diagnostics: folder.diagnostics,
    stats: { windows: keys.length, embedded: missing.length, cached: keys.length - missing.length },
  }
}

function snapshotDocuments(documents: readonly KnowledgeDocument[], tokenCount: (text: string) => number): SnapshotDocumentInput[] {
  return documents.map(d => ({
    id: d.id,
    description: d.description,
    category: d.category,
    categories: d.categories,
    tags: d.tags,
    path: d.path,
    tokenCount: tokenCount(d.body),
  }))
}

/** The headings of a chunk's section, its own included. */
function headingPath(chunk: Chunk): string[] {
  return chunk.title === undefined ? chunk.context : [...chunk.context, chunk.title]
}

/**
 * The index of a folder built with no model: one snapshot chunk per heading
 * chunk (no token windows: those are cut on a model's tokens), the lexical
 * index, no vectors and nothing cached. Token counts are estimates.
 */
function lexicalOnlyIndex(folder: KnowledgeFolder, chunks: Chunk[]): KnowledgeIndex {
  const snapshot = encodeSnapshot({
    model: '',
    encoding: 'none',
    lexical: true,
    documents: snapshotDocuments(folder.documents, estimateTokens),
    chunks: chunks.map(chunk => ({ documentIndex: chunk.document, heading: headingPath(chunk), text: chunk.text })),
  })
  return {
    documents: folder.documents,
    chunks,
    snapshot,
    files: folder.files,
    digest: folder.digest,
    model: null,
    diagnostics: folder.diagnostics,
    stats: { windows: chunks.length, embedded: 0, cached: 0 },
  }
}
