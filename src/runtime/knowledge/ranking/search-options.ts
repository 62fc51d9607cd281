// The rule of each search option, in one place: the knowledge base, the
// low-level searches, the CLI and an exported skill's search script test a
// value with it and word their message from it, so that they accept the same
// values and say so alike ("topK must be a positive integer, got …").

/** What a search option's value must be. */
export interface SearchOptionRule {
  /** The rule as a message ends "… must be": `a positive integer`. */
  expected: string
  test: (value: unknown) => boolean
}

/** `topK`: documents a search returns. */
export const TOP_K_RULE: SearchOptionRule = {
  expected: 'a positive integer',
  test: value => Number.isSafeInteger(value) && (value as number) >= 1,
}

/** `threshold` of vector and fused searches: a cosine similarity. */
export const THRESHOLD_RULE: SearchOptionRule = {
  expected: 'a number from -1 to 1',
  test: value => typeof value === 'number' && value >= -1 && value <= 1,
}

/** A lexical search's `threshold` (and a fused search's `lexicalThreshold`): a normalised BM25 score. */
export const LEXICAL_THRESHOLD_RULE: SearchOptionRule = {
  expected: 'a number from 0 to 1',
  test: value => typeof value === 'number' && value >= 0 && value <= 1,
}

/** `pooling`: how a document's chunk scores make its score. */
export const POOLING_RULE: SearchOptionRule = {
  expected: `'soft' or 'max'`,
  test: value => value === 'soft' || value === 'max',
}
