// Content topics from a knowledge base's own vectors: each document as the
// unit mean of its chunks' embeddings, clustered (with its terms weighing a
// quarter) by the same capacity-bound split as the terms alone (see
// topic-split.ts), with `routing.topics: "vectors"`. An embedded base knows
// what its documents mean beyond the words they share; on the navigation
// benchmark, topics grouped so led agents to a few more documents on both
// halves, most on docs without frontmatter (bench/RESULTS.md).

import type { Snapshot } from '../runtime/knowledge/format/snapshot-layout'
import type { TopicSpace } from './topic-split'

/** A document's vector: unit length, one dimension for every document of a routing. */
export type DocumentVectors = ReadonlyMap<string, Float32Array>

function unit(sum: ArrayLike<number>): Float32Array {
  let norm = 0
  for (let i = 0; i < sum.length; i++)
    norm += sum[i]! * sum[i]!
  norm = Math.sqrt(norm) || 1
  return Float32Array.from(sum, x => x / norm)
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0
  for (let i = 0; i < a.length; i++)
    sum += a[i]! * b[i]!
  return sum
}

/**
 * Whether `vectors` can place every one of `ids`: each has a vector, all of
 * one dimension. Otherwise its topics come from words (a document added since
 * the base was embedded, a base of another model).
 */
export function coversAll(vectors: DocumentVectors | undefined, ids: readonly string[]): vectors is DocumentVectors {
  if (!vectors || ids.length === 0)
    return false
  const dimensions = vectors.get(ids[0]!)?.length
  return dimensions !== undefined && dimensions > 0 && ids.every(id => vectors.get(id)?.length === dimensions)
}

/**
 * The dense space of `vectors` for `splitTopics`: centroids summed in doubles
 * over IDs in the split's (sorted) order, so they do not depend on the order
 * documents came in.
 */
export function denseSpace(vectors: DocumentVectors): TopicSpace<ArrayLike<number>> {
  return {
    vector: id => vectors.get(id)!,
    dot,
    centroid: (ids) => {
      const sum = new Float64Array(vectors.get(ids[0]!)!.length)
      for (const id of ids) {
        const v = vectors.get(id)!
        for (let i = 0; i < sum.length; i++)
          sum[i] = sum[i]! + v[i]!
      }
      return unit(sum)
    },
  }
}

/**
 * How much the base's vectors weigh against the documents' terms in a
 * document's affinity to a topic. Chosen on the navigation benchmark's tune
 * halves (bench/RESULTS.md, "Topics from vectors"): vectors alone found fewer
 * documents than vectors with words (3/4), which keep a topic to documents
 * its label's words can name.
 */
export const VECTOR_WEIGHT = 0.75

/** `dense` and `sparse` together: the weighted sum of their similarities, the centroid of each. */
export function withWords<D, S>(dense: TopicSpace<D>, sparse: TopicSpace<S>): TopicSpace<[D, S]> {
  return {
    vector: id => [dense.vector(id), sparse.vector(id)],
    dot: (a, b) => VECTOR_WEIGHT * dense.dot(a[0], b[0]) + (1 - VECTOR_WEIGHT) * sparse.dot(a[1], b[1]),
    centroid: ids => [dense.centroid(ids), sparse.centroid(ids)],
  }
}

/**
 * Each document's vector in a snapshot: the unit mean of its chunks' vectors
 * (int8 rows scaled back). None for a snapshot without vectors, nor for a
 * document whose rows are not loaded (a sharded snapshot's).
 */
export function documentVectors(snapshot: Snapshot): Map<string, Float32Array> {
  const { dimensions, chunkCount, encoding, vectors, scales } = snapshot
  const out = new Map<string, Float32Array>()
  if (encoding === 'none' || dimensions === 0 || vectors.length < chunkCount * dimensions)
    return out
  const sums = snapshot.documents.map(() => new Float64Array(dimensions))
  const counts = snapshot.documents.map(() => 0)
  for (let c = 0; c < chunkCount; c++) {
    const d = snapshot.chunkDocuments[c]!
    const scale = scales ? scales[c]! : 1
    const sum = sums[d]!
    for (let i = 0; i < dimensions; i++)
      sum[i] = sum[i]! + vectors[c * dimensions + i]! * scale
    counts[d]!++
  }
  snapshot.documents.forEach((document, d) => {
    // A sum of zeros: no chunk, or rows not loaded yet (a sharded snapshot's).
    if (counts[d]! > 0 && sums[d]!.some(x => x !== 0))
      out.set(document.id, unit(sums[d]!))
  })
  return out
}
