// A knowledge base at run time: document metadata up front, the snapshot and
// the document bodies loaded on first use. Vector search needs a query
// embedder (the build's model, or one the caller passes); without one, search
// is lexical, over the BM25 index the snapshot carries.

import type { EmbedQuery } from './query-embedder'
import type { KnowledgeSearchMode } from './ranking/search-modes'
import type { SearchResult } from './ranking/search-rank'
import type { Snapshot, SnapshotDocument } from './format/snapshot-layout'
import type { ShardSource } from './format/snapshot-shards'
import { closestMatches } from '../closest'
import { matchDocumentId } from './document-id'
import { KnowledgeError, QueryModelUnavailableError } from './errors'
import { LEXICAL_THRESHOLD, searchLexical } from './lexical/lexical'
import { searchHybrid } from './ranking/search-hybrid'
import { DEFAULT_THRESHOLD, DEFAULT_TOP_K, searchVectors } from './vector/search'
import { searchFused } from './ranking/search-fused'
import { isSearchMode, SEARCH_MODES } from './ranking/search-modes'
import { THRESHOLD_RULE, TOP_K_RULE } from './ranking/search-options'
import { decodeSnapshot } from './format/snapshot-reader'
import { openShardedSnapshot, unreadableSnapshot } from './format/snapshot-shards'

export { KnowledgeError, QueryModelUnavailableError } from './errors'
export type { KnowledgeErrorCode } from './errors'

/** A document's metadata (its body comes from `retrieve`). */
export interface KnowledgeDocumentInfo extends SnapshotDocument {
  /** Its page's URL, when the knowledge base has a `url` mapping (the plugin's `url` option). */
  url?: string
}

export type { KnowledgeSearchMode }

export interface KnowledgeSearchOptions {
  /** Documents to return (default: the build's `search.topK`, 5). */
  topK?: number
  /**
   * Which documents compete, by the score of their best chunk: its cosine
   * similarity for `vector`, `hybrid` and `auto` (default: the build's
   * `search.threshold`, 0.3), its normalised BM25 for `lexical` (default 0.25,
   * see `searchLexical`). `hybrid` and `auto` also keep the documents whose best
   * chunk reaches lexical's default. An `auto` search that falls back to lexical
   * uses lexical's default. Results are ranked (and scored) by each mode's
   * document score, which for a document of several chunks can be below its
   * best chunk's.
   */
  threshold?: number
  mode?: KnowledgeSearchMode
  /** Embeds the query for this search, instead of the knowledge base's embedder. */
  embedQuery?: EmbedQuery
  /**
   * Called when an `auto` search ranks by words alone, with why: the query
   * model cannot be loaded where it runs, the knowledge base has no query
   * embedder, or it was built without a model. A search UI then says which
   * ranking it shows.
   */
  onLexicalFallback?: (reason: string) => void
}

/** A found document: metadata, score and the heading path of its best chunk. */
export interface KnowledgeSearchResult extends KnowledgeDocumentInfo {
  /**
   * The document's score in the mode used: soft maximum of its chunks' cosine
   * similarities (vector), of their normalised BM25 (lexical), vector + weight ·
   * lexical (auto with a model, from −1 to 1.5) or fused reciprocal rank (hybrid).
   */
  score: number
  /** Heading path of the document's best chunk (empty for its metadata). */
  heading: string[]
}

export interface KnowledgeBase {
  readonly name: string
  /** Every document's metadata, sorted by ID. */
  readonly documents: readonly KnowledgeDocumentInfo[]
  /** Ranks documents for a query: metadata and scores, never bodies. */
  search: (query: string, options?: KnowledgeSearchOptions) => Promise<KnowledgeSearchResult[]>
  /**
   * The complete body of a document (loaded on first request). An ID matches
   * ignoring case when exactly one document's does (`MD045` for `md045`).
   * Throws {@link KnowledgeError}: `unknown-document` for an unknown ID,
   * `ambiguous-document` for one that matches several IDs ignoring case.
   */
  retrieve: (id: string) => Promise<string>
  /** The decoded snapshot (loaded on first use). */
  snapshot: () => Promise<Snapshot>
  /**
   * Loads, before any query, what every search in `mode` (default `auto`)
   * needs first, so that the first one waits only for its own parts: the
   * snapshot (of a sharded one, its core, and for vector searches its vector
   * cells' centroids, or its vector shards without cells) and the query
   * embedder's start (the query table's core, or the model). Never a query's
   * own shards. Rejects as that search would: the snapshot cannot be loaded,
   * or (`vector`, `hybrid`) the query model cannot; an `auto` search whose
   * model cannot load searches lexically, so its preload resolves.
   */
  preload: (options?: { mode?: KnowledgeSearchMode }) => Promise<void>
}

/** A value a caller passed, as an error message quotes it (cut to a readable length). */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value)
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

/** The search mode a caller asked for (`auto` when none), or the error that names the modes. */
function checkedMode(mode: unknown): KnowledgeSearchMode {
  const requested = mode ?? 'auto'
  if (!isSearchMode(requested))
    throw new KnowledgeError('invalid-options', `mode must be ${SEARCH_MODES.map(m => `'${m}'`).join(', ')}; got ${shown(requested)}.`)
  return requested
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** The error of a `vector` or `hybrid` search (`mode`) whose query model cannot load. */
function modelUnavailable(name: string, mode: string, error: QueryModelUnavailableError): KnowledgeError {
  return new KnowledgeError('model-unavailable', `A ${mode} search of "${name}" needs its query model, but ${error.reason}. ${capitalize(error.fix)}, or search with mode: 'lexical'.`)
}

/**
 * The query model's failure that lets a search of `requested` mode go on
 * lexically (only `auto` does); any other error, or that one for another
 * mode, is thrown.
 */
function lexicalFallback(error: unknown, name: string, requested: KnowledgeSearchMode): QueryModelUnavailableError {
  if (!(error instanceof QueryModelUnavailableError))
    throw error
  if (requested !== 'auto')
    throw modelUnavailable(name, requested, error)
  return error
}

/** What {@link createKnowledgeBase} is built from (generated modules pass it). */
export interface KnowledgeBaseInit {
  name: string
  documents: readonly KnowledgeDocumentInfo[]
  /** The snapshot's bytes; with `shards`, its core's. */
  loadSnapshot: () => Promise<ArrayBuffer | ArrayBufferView>
  /** The snapshot's file or URL, as messages name it (default: the knowledge base's name). */
  snapshotName?: () => string
  /**
   * A sharded snapshot's shards (see snapshot-shards.ts): a search loads the
   * ones it reads, lexical search only its terms' postings.
   */
  shards?: ShardSource
  /** Loaders of the documents' bodies, in the order of `documents`. */
  bodies: readonly (() => Promise<string | { default: string }>)[]
  /** Search defaults. */
  search?: { topK?: number, threshold?: number }
  /**
   * The query embedder of `auto`, `vector` and `hybrid` searches. When it
   * throws {@link QueryModelUnavailableError}, `auto` searches lexically and
   * warns once.
   */
  embedQuery?: EmbedQuery
  /** `false`: the snapshot has no vectors (built with no model), so every search is lexical (default true). */
  vectors?: boolean
  /**
   * The Vite dev server serves this snapshot (no vectors) while it embeds
   * the documents: `auto` searches lexically, and a `vector` or `hybrid`
   * search says the vectors are on their way (needs `vectors: false`).
   */
  vectorsPending?: boolean
  /**
   * Readies the query embedder without a query, for `preload` (loads the
   * query table's core, or the model); without it, `preload` loads the
   * snapshot only. Throws as `embedQuery` would.
   */
  prepareQuery?: () => Promise<unknown>
}

/** A loaded snapshot, and what a search awaits before reading it: nothing for a whole snapshot, its shards for a sharded one. */
interface LoadedSnapshot {
  snapshot: Snapshot
  lexical: (query: string) => Promise<void>
  vectors: () => Promise<void>
  /** Runs a search, loading the refinement bits it wants and running it again (sharded int8 snapshots). */
  ranked: <T>(rank: () => T) => Promise<T>
  all: () => Promise<Snapshot>
}

/**
 * Loads and decodes the snapshot. A damaged one (truncated, wrong magic
 * bytes, bad checksum) rejects with a KnowledgeError `snapshot-unavailable`,
 * as one that cannot be read or fetched does, never with a SnapshotError.
 */
async function loadedSnapshot(init: KnowledgeBaseInit): Promise<LoadedSnapshot> {
  const bytes = await init.loadSnapshot()
  const name = init.snapshotName?.()
  if (!init.shards) {
    let snapshot: Snapshot
    try {
      snapshot = decodeSnapshot(bytes)
    }
    catch (error) {
      throw unreadableSnapshot(error, name ? `knowledge snapshot ${name}` : `knowledge snapshot of "${init.name}"`)
    }
    const ready = () => Promise.resolve()
    return { snapshot, lexical: ready, vectors: ready, ranked: async rank => rank(), all: () => Promise.resolve(snapshot) }
  }
  const sharded = openShardedSnapshot(bytes, init.documents, { coreName: name ?? `of "${init.name}"`, ...init.shards })
  return { snapshot: sharded.snapshot, lexical: sharded.loadLexical, vectors: sharded.loadVectorRows, ranked: sharded.ranked, all: sharded.loadAll }
}

/** Candidates each list gives hybrid fusion, so that it has something to reorder. */
const HYBRID_DEPTH = 20

export function createKnowledgeBase(init: KnowledgeBaseInit): KnowledgeBase {
  const ids = init.documents.map(d => d.id)
  const positions = new Map(ids.map((id, i) => [id, i]))
  const topKDefault = init.search?.topK ?? DEFAULT_TOP_K
  const thresholdDefault = init.search?.threshold ?? DEFAULT_THRESHOLD
  let snapshot: Promise<LoadedSnapshot> | undefined
  /** Whether an `auto` search has said it falls back to lexical: once per knowledge base. */
  let warnedFallback = false
  const bodies = new Map<string, Promise<string>>()

  const loadSnapshot = () => snapshot ??= loadedSnapshot(init).catch((error: unknown) => {
    snapshot = undefined
    throw error
  })

  const result = (hit: SearchResult): KnowledgeSearchResult => {
    const { documentIndex: _, chunk: __, ...rest } = hit
    // The page's URL is the module's (a sharded snapshot's documents are the module's already).
    const url = init.documents[positions.get(rest.id)!]?.url
    return url === undefined || 'url' in rest ? rest : { ...rest, url }
  }

  return {
    name: init.name,
    documents: init.documents,
    snapshot: () => loadSnapshot().then(loaded => loaded.all()),

    async preload(options = {}) {
      const requested = checkedMode(options.mode)
      const semantic = requested !== 'lexical' && init.vectors !== false && init.embedQuery !== undefined
      // As a search does: the embedder starts while the snapshot loads.
      const preparing = semantic && init.prepareQuery ? Promise.resolve().then(init.prepareQuery) : undefined
      preparing?.catch(() => {})
      const loaded = await loadSnapshot()
      if (!semantic)
        return
      const vectorsReady = loaded.vectors()
      vectorsReady.catch(() => {})
      try {
        await preparing
      }
      catch (error) {
        lexicalFallback(error, init.name, requested)
        // Its searches are lexical: the vectors are not waited for.
        return
      }
      await vectorsReady
    },

    async search(query, options = {}) {
      if (typeof query !== 'string')
        throw new KnowledgeError('invalid-query', `Search for a string, not ${query === null ? 'null' : typeof query}.`)
      const embedQuery = options.embedQuery ?? init.embedQuery
      const vectors = init.vectors !== false
      const requested = checkedMode(options.mode)
      const mode = requested === 'auto' ? (vectors && embedQuery ? 'fused' : 'lexical') : requested
      if (requested === 'auto' && mode === 'lexical')
        options.onLexicalFallback?.(vectors ? `"${init.name}" has no query embedder` : `"${init.name}" was built without a model`)
      const topK = options.topK ?? topKDefault
      if (!TOP_K_RULE.test(topK))
        throw new KnowledgeError('invalid-options', `topK must be ${TOP_K_RULE.expected}, got ${shown(topK)}.`)
      if (options.threshold !== undefined && !THRESHOLD_RULE.test(options.threshold))
        throw new KnowledgeError('invalid-options', `threshold must be ${THRESHOLD_RULE.expected}, got ${shown(options.threshold)}.`)
      if ((mode === 'vector' || mode === 'hybrid') && init.vectorsPending)
        throw new KnowledgeError('vectors-pending', `"${init.name}" is still being embedded by the Vite dev server, so it has no vectors for a ${mode} search yet: search with mode 'lexical' or 'auto' until they arrive (onUpdate tells when; the knowledge base's vectors then reads 'complete').`)
      if ((mode === 'vector' || mode === 'hybrid') && !vectors)
        throw new KnowledgeError('no-vectors', `"${init.name}" was built without a model ("model": false), so it has no vectors for a ${mode} search: search with mode 'lexical' or 'auto', or replace "model": false with the model's settings and build again.`)
      if (mode !== 'lexical' && !embedQuery)
        throw new KnowledgeError('no-embedder', `A ${mode} search of "${init.name}" needs a query embedder: pass embedQuery, build with includeModel for browsers, or search with mode: 'lexical'.`)
      // The query is embedded while the snapshot loads: the query table's core (or the model) and the snapshot's core are fetched in parallel.
      const embedding = mode === 'lexical' || query.trim() === '' ? undefined : Promise.resolve(query).then(embedQuery!)
      // Awaited below; a failure before then (the snapshot's) must not leave it unhandled.
      embedding?.catch(() => {})
      const loaded = await loadSnapshot()
      const data = loaded.snapshot
      if (query.trim() === '')
        return []
      // A sharded snapshot loads the shards this search reads while the query is embedded (and its model loads).
      const lexicalReady = mode === 'vector' ? undefined : loaded.lexical(query)
      const vectorsReady = mode === 'lexical' ? undefined : loaded.vectors()
      // Awaited below; a failure before then (the embedder's) must not leave them unhandled.
      lexicalReady?.catch(() => {})
      vectorsReady?.catch(() => {})
      let vector: ArrayLike<number> | undefined
      if (mode !== 'lexical') {
        try {
          vector = await embedding!
          await vectorsReady
        }
        catch (error) {
          const unavailable = lexicalFallback(error, init.name, requested)
          options.onLexicalFallback?.(unavailable.reason)
          if (!warnedFallback) {
            warnedFallback = true
            console.warn(`[skill-kit] Knowledge base "${init.name}" searches lexically: ${unavailable.reason}. For vector search, ${unavailable.fix}.`)
          }
          // The caller's threshold, if any, is on the scale of the vector search it expected.
          await (lexicalReady ?? loaded.lexical(query))
          return searchLexical(data, query, { topK, threshold: LEXICAL_THRESHOLD }).map(result)
        }
      }
      await lexicalReady
      if (mode === 'lexical')
        return searchLexical(data, query, { topK, threshold: options.threshold ?? LEXICAL_THRESHOLD }).map(result)
      const threshold = options.threshold ?? thresholdDefault
      if (mode === 'fused')
        return (await loaded.ranked(() => data.lexical ? searchFused(data, query, vector!, { topK, threshold }) : searchVectors(data, vector!, { topK, threshold }))).map(result)
      if (mode === 'vector')
        return (await loaded.ranked(() => searchVectors(data, vector!, { topK, threshold }))).map(result)
      const depth = Math.max(topK, HYBRID_DEPTH)
      const fused = searchHybrid(
        await loaded.ranked(() => searchVectors(data, vector!, { topK: depth, threshold })),
        searchLexical(data, query, { topK: depth, threshold: LEXICAL_THRESHOLD }),
        { topK },
      )
      return fused.map(({ vectorRank: _, lexicalRank: __, vectorScore: ___, lexicalScore: ____, ...hit }) => result(hit))
    },

    async retrieve(requested) {
      const match = typeof requested === 'string' ? matchDocumentId(requested, ids) : { candidates: [] }
      const id = 'id' in match ? match.id : undefined
      const load = id === undefined ? undefined : init.bodies[positions.get(id)!]
      if (id === undefined || !load) {
        const candidates = 'candidates' in match ? match.candidates : []
        if (candidates.length > 1)
          throw new KnowledgeError('ambiguous-document', `"${String(requested)}" matches several documents of "${init.name}" that differ only in case: ${candidates.map(n => `"${n}"`).join(', ')}. Retrieve one of them by its exact ID.`)
        const near = closestMatches(String(requested), ids)
        throw new KnowledgeError('unknown-document', `"${String(requested)}" is not a document of "${init.name}".${near.length ? ` Did you mean ${near.map(n => `"${n}"`).join(' or ')}?` : ' Search first, and retrieve an ID from the results.'}`)
      }
      let body = bodies.get(id)
      if (!body) {
        body = load().then(m => typeof m === 'string' ? m : m.default)
        body.catch(() => bodies.delete(id))
        bodies.set(id, body)
      }
      return body
    },
  }
}
