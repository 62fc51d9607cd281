import type { Diagnostic } from '../core/diagnostics'
import type { Chunk } from './chunk'
import type { ChunkConfig } from './config'
import type { KnowledgeDocument } from './document'
import type { Embedder } from './embedder'
import type { KnowledgeFolder } from './load-folder'
import type { SnapshotDocumentInput } from './snapshot'
import type { KnowledgeProgress } from './progress'
import { hash } from '../core/hash'
import { mapLimit } from '../core/pool'
import { estimateTokens } from '../runtime/tokens'
import { chunkDocument } from './chunk'
import { loadKnowledgeFolder } from './load-folder'
import { encodeSnapshot } from './snapshot'
import { EmbeddingServerError, planRequests } from './server-embedder'
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
  /** Called once the folder is read and cut into windows, then after each call of the embedder (a batch, or a server's request) answers. */
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
  // A server without the model's tokenizer cuts windows on code points, `units` of them to a token.
  const units = embedder.unitsPerToken ?? 1
  const windowOptions = {
    maxTokens: Math.min(chunking.maxTokens * units, embedder.maxTokens),
    overlapTokens: chunking.overlapTokens * units,
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
  await embedMissing(embedder, missing, inputs, cache, options.onProgress)
  const tokenCount = (text: string) => {
    const key = hash(text)
    let count = memo.tokenCount(key)
    if (count === undefined) {
      count = Math.ceil(embedder.tokenize(text).length / units)
      memo.setTokenCount(key, count)
    }
    return count
  }

  const snapshot = encodeSnapshot({
    model: embedder.fingerprint,
    dimensions: cache.dimensions,
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

/** Windows per call of an embedder that does not say how it is fed (see `Embedder.requests`). */
const LOCAL_BATCH = 64

/**
 * Embeds the `missing` windows into the cache: in calls planned by the
 * embedder's `requests` (bounded windows and tokens, several in flight) or 64
 * at a time. Each call's vectors go into the cache as they arrive. When a call
 * fails, no new one starts, those in flight settle, and the cache is saved
 * before the failure is thrown: a rebuild asks only for what is still missing.
 */
async function embedMissing(embedder: Embedder, missing: readonly string[], inputs: ReadonlyMap<string, number[]>, cache: VectorCache, onProgress: KnowledgeBuildOptions['onProgress']): Promise<void> {
  const { requests } = embedder
  const reserved = embedder.reservedTokens.document
  const units = embedder.unitsPerToken ?? 1
  const calls = requests
    ? planRequests(missing.map(key => Math.ceil((inputs.get(key)!.length + reserved) / units)), requests).map(call => call.map(i => missing[i]!))
    : Array.from({ length: Math.ceil(missing.length / LOCAL_BATCH) }, (_, i) => missing.slice(i * LOCAL_BATCH, (i + 1) * LOCAL_BATCH))
  let done = 0
  let inFlight = 0
  try {
    await mapLimit(calls, requests?.concurrency ?? 1, async (keys) => {
      inFlight++
      let vectors: Float32Array[]
      try {
        vectors = await embedder.embedTokens(keys.map(key => inputs.get(key)!), 'document', { log: line => onProgress?.({ phase: 'retry', line }) })
      }
      finally {
        inFlight--
      }
      for (const [i, key] of keys.entries()) {
        const vector = vectors[i]!
        if (cache.dimensions > 0 && vector.length !== cache.dimensions)
          throw new EmbeddingServerError(`The embedding model answered ${vector.length}-dimensional vectors, but the vectors cached for it have ${cache.dimensions}. If the server now runs another model, change "model.id" or set "model.dimensions", so that its vectors are cached apart.`)
        cache.set(key, vector)
      }
      done += keys.length
      cache.checkpoint()
      // In flight as this answer arrived, itself included.
      onProgress?.({ phase: 'embed', done, total: missing.length, ...(requests ? { inFlight: inFlight + 1 } : {}) })
    })
  }
  catch (error) {
    if (!(error instanceof EmbeddingServerError))
      throw error
    const rest = missing.length - done
    throw new EmbeddingServerError(`${error.message} ${done} of ${missing.length} ${missing.length === 1 ? 'window to embed is' : 'windows to embed are'} embedded and cached, so the next build requests only the other ${rest}.`, { cause: error })
  }
  finally {
    cache.save()
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
