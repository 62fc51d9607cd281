import type { Diagnostic } from '../core/diagnostics'
import type { Chunk } from './chunk'
import type { ChunkConfig } from './config'
import type { KnowledgeDocument } from './document'
import type { Embedder } from './embedder'
import type { KnowledgeFolder } from './load-folder'
import type { SnapshotChunkInput, SnapshotDocumentInput } from './snapshot'
import type { KnowledgeProgress } from './progress'
import { hash } from '../core/hash'
import { LexicalIndexBuilder } from '../runtime/knowledge/lexical/lexical-index'
import { estimateTokens } from '../runtime/tokens'
import { chunkDocument } from './chunk'
import { EmbeddingQueue } from './embedding-queue'
import { loadKnowledgeFolder } from './load-folder'
import { encodeSnapshot, SnapshotVectors } from './snapshot'
import { EmbeddingServerError } from './server-embedder'
import { TokenMemo, VectorCache, vectorKey } from './vector-cache'
import { tokenWindows } from './windows'

/** Bump when chunking or embedded text changes: it invalidates every cached vector. */
export const PIPELINE_VERSION = 1

/** Documents cut into windows between two turns of the event loop. */
const YIELD_EVERY = 8

/** Options of {@link buildKnowledgeIndex}. */
export interface KnowledgeBuildOptions {
  /**
   * The embedding model; `null` builds with no model: the lexical index only,
   * no vectors, no vector cache, and token counts estimated from the text.
   */
  embedder: Embedder | null
  chunk: ChunkConfig
  /** Most bytes of one document (default 4 MiB): a larger one fails the build, and is never read. */
  maxDocumentBytes?: number
  /** Folder of the vector cache. */
  cacheDir: string
  /** Re-embed everything, ignoring cached vectors (the cache is refreshed). */
  force?: boolean
  /** Vector storage in the snapshot (default `int8`). */
  encoding?: 'int8' | 'float32'
  /** Called after each call of the embedder (a batch, or a server's request) answers, from while the folder is still being cut into windows on, and once it is (see `KnowledgeProgress`). */
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
 *
 * Once the folder is read and checked, the build streams: each document is
 * chunked and cut into windows, whose rows of the lexical index are added at
 * once and whose missing vectors go out in requests while the next documents
 * are cut (see {@link EmbeddingQueue}); each vector is quantized into the
 * snapshot as it arrives. So only the windows of requests being filled or in
 * flight are held as tokens, and the server's time covers most of the build's.
 * An in-process model's windows are embedded once the pass is over.
 */
export async function buildKnowledgeIndex(dir: string, options: KnowledgeBuildOptions): Promise<KnowledgeIndex | KnowledgeBuildFailure> {
  const { embedder, chunk: chunking } = options
  const folder = loadKnowledgeFolder(dir, { maxDocumentBytes: options.maxDocumentBytes })
  if (folder.diagnostics.some(d => d.severity === 'error'))
    return { diagnostics: folder.diagnostics, files: folder.files }

  if (!embedder)
    return lexicalOnlyIndex(folder, folder.documents.flatMap((document, index) => chunkDocument(document, index)))
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
  const encoding = options.encoding ?? 'int8'
  // The snapshot is filled as the windows are cut and their vectors arrive: each window is a
  // row of the lexical index at once, and of the vectors when its vector is cached or answered.
  const lexical = new LexicalIndexBuilder()
  const vectors = new SnapshotVectors(encoding, cache.dimensions)
  const rows: SnapshotChunkInput[] = []
  const waiting = new Map<string, number[]>()
  const queue = new EmbeddingQueue(embedder, {
    onVector: (key, vector) => {
      if (cache.dimensions > 0 && vector.length !== cache.dimensions)
        throw new EmbeddingServerError(`The embedding model answered ${vector.length}-dimensional vectors, but the vectors cached for it have ${cache.dimensions}. If the server now runs another model, change "model.id" or set "model.dimensions", so that its vectors are cached apart.`)
      cache.set(key, vector)
      for (const row of waiting.get(key)!)
        vectors.set(row, vector)
      waiting.delete(key)
    },
    onAnswer: () => cache.checkpoint(),
    onProgress: options.onProgress,
  })
  const tokenCount = (text: string) => {
    const key = hash(text)
    let count = memo.tokenCount(key)
    if (count === undefined) {
      count = Math.ceil(embedder.tokenize(text).length / units)
      memo.setTokenCount(key, count)
    }
    return count
  }

  // Documents are chunked, counted and cut into windows one by one, while earlier windows are embedded.
  const chunks: Chunk[] = []
  const documents: SnapshotDocumentInput[] = []
  try {
    for (const [d, document] of folder.documents.entries()) {
      // Tokenizing is synchronous: a dev server building in the background keeps answering between documents.
      if (d % YIELD_EVERY === YIELD_EVERY - 1)
        await new Promise(resolve => setImmediate(resolve))
      documents.push(snapshotDocument(document, tokenCount))
      for (const chunk of chunkDocument(document, d)) {
        chunks.push(chunk)
        const context = `${chunkContext(document, chunk)}\n`
        const memoKey = hash(context, chunk.text)
        // A chunk is tokenized only when the memo does not know it (new or edited) or misses one
        // of its vectors; its windows' token IDs are kept only until their request is sent.
        const known = options.force ? undefined : memo.windowKeys(memoKey)
        let cut: number[][] | undefined
        let keys = known && known.length > 0 && known.every(key => cache.has(key)) ? known : undefined
        if (!keys) {
          cut = tokenWindows(embedder.tokenize(context), embedder.tokenize(chunk.text), windowOptions)
          keys = cut.map(window => vectorKey(window))
          memo.setWindowKeys(memoKey, keys)
        }
        for (const [w, key] of keys.entries()) {
          const row = rows.length
          const heading = headingPath(chunk)
          rows.push({ documentIndex: chunk.document, heading })
          // The lexical index counts a chunk's words once, with its first window.
          lexical.add(w === 0 ? { text: chunk.text, documentIndex: chunk.document, heading, documentId: document.id } : { text: '', documentIndex: chunk.document })
          const cached = options.force ? undefined : cache.get(key)
          if (cached) {
            vectors.set(row, cached)
            continue
          }
          const queued = waiting.get(key)
          if (queued) {
            queued.push(row)
            continue
          }
          waiting.set(key, [row])
          await queue.push(key, cut![w]!)
        }
      }
    }
    options.onProgress?.({ phase: 'read', documents: folder.documents.length, chunks: chunks.length, windows: rows.length, cached: rows.length - queue.size })
    await queue.finish()
  }
  finally {
    try {
      cache.save()
    }
    finally {
      cache.close()
    }
  }
  const snapshot = encodeSnapshot({
    model: embedder.fingerprint,
    dimensions: cache.dimensions,
    encoding,
    lexical: lexical.finish(),
    vectors,
    documents,
    chunks: rows,
  })
  memo.save()
  const embedded = queue.size
  return folderIndex(folder, chunks, snapshot, embedder.fingerprint, { windows: rows.length, embedded, cached: rows.length - embedded })
}

/** The index of `folder`: its documents, files and problems, with the chunks and snapshot made of them. */
function folderIndex(folder: KnowledgeFolder, chunks: Chunk[], snapshot: Uint8Array, model: KnowledgeIndex['model'], stats: KnowledgeIndex['stats']): KnowledgeIndex {
  return { documents: folder.documents, chunks, snapshot, files: folder.files, digest: folder.digest, model, diagnostics: folder.diagnostics, stats }
}

function snapshotDocument(d: KnowledgeDocument, tokenCount: (text: string) => number): SnapshotDocumentInput {
  return {
    id: d.id,
    title: d.title,
    description: d.description,
    category: d.category,
    categories: d.categories,
    tags: d.tags,
    path: d.path,
    tokenCount: tokenCount(d.body),
  }
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
export function lexicalOnlyIndex(folder: KnowledgeFolder, chunks: Chunk[]): KnowledgeIndex {
  const snapshot = encodeSnapshot({
    model: '',
    encoding: 'none',
    lexical: true,
    documents: folder.documents.map(d => snapshotDocument(d, estimateTokens)),
    chunks: chunks.map(chunk => ({ documentIndex: chunk.document, heading: headingPath(chunk), text: chunk.text })),
  })
  return folderIndex(folder, chunks, snapshot, null, { windows: chunks.length, embedded: 0, cached: 0 })
}
