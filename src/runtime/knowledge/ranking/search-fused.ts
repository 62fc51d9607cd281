// Score-aware fusion of vector and lexical search: the default ranking of a
// knowledge base with a query embedder (`auto`).
//
// A document scores  v + w · l : v its vector score (the soft maximum of its
// chunks' cosine similarities), l its lexical score (the soft maximum of its
// chunks' normalised BM25, 0 when no chunk holds a query term), w the weight
// of lexical evidence for this query. Both scores are already on fixed scales
// (cosine; S / (S + R) from 0 to 1), so they add without per-query
// normalisation, and a document far ahead on either side keeps its lead,
// which reciprocal rank fusion throws away. The weight follows how peaked each
// side's top ten documents are (see fusion-weight.ts): the surer side counts
// more, so fusion does not lose to the better of its two parts when one of
// them (a static query encoder's vectors, a query in words no document uses)
// is weak. The weight's vector top ten and the ranking pool the same scan of
// the vectors (and share its refined scores), so `auto` reads each vector
// once, as vector search does.
//
// Measured on bench/retrieval.bench.mjs and bench/fusion.bench.mjs (see
// bench/RESULTS.md): a fixed weight (0.3–0.6) beat vector and lexical search
// alone with the full model, but fell behind lexical search alone with a
// weaker vector side.

import type { LexicalEvidence } from '../lexical/lexical-evidence'
import type { LexicalIndex } from '../lexical/lexical-index'
import type { Snapshot } from '../format/snapshot-layout'
import type { ChunkSimilarity, VectorSearchOptions } from '../vector/search'
import type { PooledScores, VectorPooling } from './search-pool'
import type { RefinedScores } from './search-refine'
import type { SearchResult } from './search-rank'
import { KnowledgeError } from '../errors'
import { LEXICAL_THRESHOLD_RULE, TOP_K_RULE } from './search-options'
import { keepHighest, lexicalWeight, MAX_LEXICAL_WEIGHT, PEAK_DEPTH } from './fusion-weight'
import { LEXICAL_THRESHOLD } from '../lexical/lexical'
import { lexicalEvidence, lexicalPooled, statsOf } from '../lexical/lexical-evidence'
import { bestOfDocuments, kthHighest, POOLING_TEMPERATURE } from './search-pool'
import { documentChunks } from './search-refine'
import { DEFAULT_THRESHOLD, DEFAULT_TOP_K, poolSimilarity, scoreSimilarity } from '../vector/search'
import { selectTop, toResult } from './search-rank'

/**
 * Options of a fused search: those of a vector search (`threshold` keeps its
 * meaning there, the cosine of a document's best chunk; a document whose best
 * chunk reaches the lexical threshold competes too), and the lexical threshold.
 */
export interface FusedSearchOptions extends VectorSearchOptions {
  /** Minimum normalised BM25 of a document's best chunk, from 0 to 1 (default 0.25), as in lexical search. */
  lexicalThreshold?: number
}

export { lexicalWeight } from './fusion-weight'

/**
 * Ranks the snapshot's documents for `query` and its embedding `queryVector`
 * (from the snapshot's model) by vector score + w · lexical score, w the
 * {@link lexicalWeight} of both sides' ten highest document scores (over
 * every document, whatever the thresholds; see above). A document competes
 * when its best chunk reaches `threshold` in cosine similarity or
 * `lexicalThreshold` in normalised BM25. `score` is the fused score (from −1
 * to 3; not on either side's scale);
 * `chunk` and `heading` are the document's best chunk by vector. The snapshot
 * needs vectors and a lexical index. Ties go to the lower document ID.
 */
export function searchFused(snapshot: Snapshot, query: string, queryVector: ArrayLike<number>, { topK = DEFAULT_TOP_K, threshold = DEFAULT_THRESHOLD, lexicalThreshold = LEXICAL_THRESHOLD, pooling = 'soft', accelerate = true }: FusedSearchOptions = {}): SearchResult[] {
  if (!TOP_K_RULE.test(topK))
    throw new KnowledgeError('invalid-options', `topK must be ${TOP_K_RULE.expected}, got ${String(topK)}.`)
  if (!LEXICAL_THRESHOLD_RULE.test(lexicalThreshold))
    throw new KnowledgeError('invalid-options', `lexicalThreshold must be ${LEXICAL_THRESHOLD_RULE.expected}, got ${String(lexicalThreshold)}.`)
  if (!snapshot.lexical)
    throw new KnowledgeError('no-lexical-index', 'This snapshot has no lexical index: search it with searchVectors.')
  const index = snapshot.lexical
  const documentCount = snapshot.documents.length
  const { lower, upper, eligible, bonus, fused, chunk, documents, weighing } = scratchOf(snapshot)
  lower.fill(0)
  upper.fill(0)
  eligible.fill(0)
  bonus.fill(0)
  const evidence = lexicalEvidence(index, query)
  // One scan of the vectors serves both the weight and the ranking. An approximate snapshot
  // reads its candidates for the lexical leaders, which the upper bounds at the heaviest weight
  // rank as any weight would (doubling is exact).
  if (evidence) {
    for (let d = 0; d < documentCount; d++)
      upper[d] = evidence.bestChunk[d]! >= 0 ? MAX_LEXICAL_WEIGHT * evidence.best[d]! : 0
  }
  const scored = scoreSimilarity(snapshot, queryVector, { topK, threshold, pooling, accelerate, lexical: upper })
  if (!scored)
    return []
  const { offsets, chunks } = documentChunks(snapshot)
  bestOfDocuments(scored.similarity, offsets, chunks, documents)
  // The vector side's top ten come first: the fused pooling below skips the documents that
  // cannot make its top K, which it tells by the weight.
  const weight = evidence ? lexicalWeight(highestVectorScores(snapshot, scored, pooling, documents, weighing), highestLexicalScores(index, evidence, pooling)) : 0
  if (evidence) {
    // A document's lexical score lies between its best chunk's and that minus T · ln(its text chunks).
    const { logTextCounts } = statsOf(index)
    for (let d = 0; d < documentCount; d++) {
      if (evidence.bestChunk[d]! >= 0) {
        const best = evidence.best[d]!
        upper[d] = weight * best
        lower[d] = weight * (pooling === 'max' ? best : best - POOLING_TEMPERATURE * logTextCounts[d]!)
        eligible[d] = best >= lexicalThreshold ? 1 : 0
      }
    }
  }
  const exact = (d: number) => {
    if (!evidence || evidence.bestChunk[d]! < 0)
      return 0
    return weight * (pooling === 'max' ? evidence.best[d]! : lexicalPooled(index, evidence, d))
  }
  const fusion = { lower, upper, exact, bonus, eligible }
  // The fused pooling rescores from the int8 scores, as it would alone, but takes the refined
  // score of a chunk the weight's pooling rescored already.
  const refined = scored.margin !== undefined && evidence ? weighing.refined : undefined
  const { best, bestChunk, pooled } = poolSimilarity(snapshot, scored, { topK, threshold, pooling, fusion, bestKnown: true, refined }, documents)
  for (let d = 0; d < documentCount; d++) {
    fused[d] = pooled[d]! + bonus[d]!
    chunk[d] = bestChunk[d]! >= 0 && (best[d]! >= threshold || eligible[d] === 1) ? bestChunk[d]! : -1
  }
  return selectTop(fused, chunk, topK, -Infinity).map(d => toResult(snapshot, { documentIndex: d, chunk: chunk[d]!, score: fused[d]! }))
}

/** A fused search's arrays, per snapshot, reused by its next fused search (a query allocates none). */
interface FusedScratch {
  lower: Float64Array
  upper: Float64Array
  eligible: Uint8Array
  bonus: Float64Array
  fused: Float64Array
  chunk: Int32Array
  /** The fused ranking's vector scores. */
  documents: PooledScores
  /** The weight's vector scores, and a copy of the similarities that its refinement rewrites, whose refined scores it marks. */
  weighing: { documents: PooledScores, refined?: RefinedScores }
}

const scratches = new WeakMap<Snapshot, FusedScratch>()

function scratchOf(snapshot: Snapshot): FusedScratch {
  let scratch = scratches.get(snapshot)
  if (!scratch) {
    const n = snapshot.documents.length
    const pooledScores = () => ({ best: new Float64Array(n), bestChunk: new Int32Array(n), pooled: new Float64Array(n) })
    scratch = { lower: new Float64Array(n), upper: new Float64Array(n), eligible: new Uint8Array(n), bonus: new Float64Array(n), fused: new Float64Array(n), chunk: new Int32Array(n), documents: pooledScores(), weighing: { documents: pooledScores() } }
    scratches.set(snapshot, scratch)
  }
  return scratch
}

/**
 * The {@link PEAK_DEPTH} highest pooled vector scores of any documents, as a
 * top-10 vector search with no threshold would find them, from the fused
 * search's own scan and best chunks (`documents`): only the pooling is done
 * twice. Refinement rewrites the similarities and best chunks it rescores, so
 * it works on copies, whose refined scores the fused pooling then reuses.
 */
function highestVectorScores(snapshot: Snapshot, scored: ChunkSimilarity, pooling: VectorPooling, documents: PooledScores, weighing: FusedScratch['weighing']): number[] {
  let similarity = scored.similarity
  if (scored.margin !== undefined) {
    weighing.refined ??= { scores: new Float64Array(similarity.length), has: new Uint8Array(similarity.length) }
    weighing.refined.scores.set(similarity)
    weighing.refined.has.fill(0)
    similarity = weighing.refined.scores
  }
  weighing.documents.best.set(documents.best)
  weighing.documents.bestChunk.set(documents.bestChunk)
  const { pooled } = poolSimilarity(snapshot, { ...scored, similarity }, { topK: PEAK_DEPTH, threshold: -1, pooling, bestKnown: true, refined: weighing.refined }, weighing.documents)
  const top: number[] = []
  for (const s of pooled) {
    if (s > -Infinity)
      keepHighest(top, s, PEAK_DEPTH)
  }
  return top
}

/**
 * The {@link PEAK_DEPTH} highest lexical scores of any documents, 0 for a
 * document without a query term. Only documents whose best chunk can reach
 * them are pooled: a soft maximum lies between best − T · ln(text chunks) and best.
 */
function highestLexicalScores(index: LexicalIndex, evidence: LexicalEvidence, pooling: VectorPooling): number[] {
  const { best, bestChunk } = evidence
  const top: number[] = []
  let without = 0
  if (pooling === 'max') {
    for (let d = 0; d < best.length; d++) {
      if (bestChunk[d]! >= 0)
        keepHighest(top, best[d]!, PEAK_DEPTH)
      else without++
    }
  }
  else {
    const { logTextCounts } = statsOf(index)
    const floor = kthHighest(best.map((b, d) => b - POOLING_TEMPERATURE * logTextCounts[d]!), d => bestChunk[d]! >= 0, PEAK_DEPTH)
    for (let d = 0; d < best.length; d++) {
      if (bestChunk[d]! < 0)
        without++
      else if (best[d]! >= floor)
        keepHighest(top, lexicalPooled(index, evidence, d), PEAK_DEPTH)
    }
  }
  for (let i = 0; i < without && i < PEAK_DEPTH; i++)
    keepHighest(top, 0, PEAK_DEPTH)
  return top
}
