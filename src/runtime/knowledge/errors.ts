// The error of every request a knowledge base or its search functions refuse,
// apart from the modules that use it, so that the low-level searches throw it
// too without importing the knowledge base.

/** What a {@link KnowledgeError} is about, for code that handles some of them. */
export type KnowledgeErrorCode = 'unknown-document' | 'ambiguous-document' | 'no-embedder' | 'no-vectors' | 'no-lexical-index' | 'model-unavailable' | 'invalid-query' | 'invalid-options' | 'snapshot-unavailable' | 'snapshot-mismatch'

/** A request the knowledge base cannot answer; the message says what to do instead. */
export class KnowledgeError extends Error {
  override name = 'KnowledgeError'
  constructor(readonly code: KnowledgeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}
