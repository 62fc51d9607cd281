// The search modes, in one table: the runtime, the CLI and an exported
// skill's search script check a requested mode against it, so a mode added
// here is accepted (and named in their messages) everywhere at once.

/**
 * How a search ranks: `vector` (cosine similarity of the query's embedding,
 * a soft maximum of each document's chunks), `lexical` (BM25 over the same
 * chunks, no model), `hybrid` (both, fused by reciprocal rank: behind `auto` on
 * each whole benchmark set, kept for a ranking made of ranks alone), or `auto` (the
 * default: with a query embedder, both fused by score, the lexical side
 * weighted by how much surer of itself it is than the vector side on this
 * query, see `fusion-weight.ts`; without one, `lexical`).
 */
export type KnowledgeSearchMode = 'auto' | 'vector' | 'lexical' | 'hybrid'

/** Every search mode, the default first. */
export const SEARCH_MODES: readonly KnowledgeSearchMode[] = ['auto', 'vector', 'lexical', 'hybrid']

/** Whether `value` names a search mode. */
export function isSearchMode(value: unknown): value is KnowledgeSearchMode {
  return SEARCH_MODES.includes(value as KnowledgeSearchMode)
}

/** The modes as a message lists them: `auto, vector, lexical or hybrid`. */
export const SEARCH_MODE_LIST = `${SEARCH_MODES.slice(0, -1).join(', ')} or ${SEARCH_MODES.at(-1)}`
