// The errors of a knowledge base: every request it or its search functions
// refuse, and a query model that cannot load; apart from the modules that use
// them, so that the low-level searches and the query embedders throw them
// without importing the knowledge base.

/** What a {@link KnowledgeError} is about, for code that handles some of them. */
export type KnowledgeErrorCode = 'unknown-document' | 'ambiguous-document' | 'no-embedder' | 'no-vectors' | 'vectors-pending' | 'no-lexical-index' | 'model-unavailable' | 'invalid-query' | 'invalid-options' | 'snapshot-unavailable' | 'snapshot-mismatch'

/** A request the knowledge base cannot answer; the message says what to do instead. */
export class KnowledgeError extends Error {
  override name = 'KnowledgeError'
  constructor(readonly code: KnowledgeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/**
 * Thrown by a query embedder whose model cannot be loaded where it runs (no
 * model files, no Transformers.js): an `auto` search then falls back to
 * lexical, and a `vector` or `hybrid` one fails with a {@link KnowledgeError}
 * (`model-unavailable`) built from `reason` and `fix`.
 */
export class QueryModelUnavailableError extends Error {
  override name = 'QueryModelUnavailableError'
  /**
   * @param reason Why, as a clause: `/srv/app/models/Xenova/all-MiniLM-L6-v2 lacks config.json`.
   * @param fix What gives vector search, as a clause: `build with includeModel`.
   */
  constructor(readonly reason: string, readonly fix: string, options?: { cause?: unknown }) {
    super(`${reason}. To search by vector, ${fix}.`, options)
  }
}
