// What vector, lexical and hybrid search share: the result shapes and the
// top-K selection over per-document best scores.

import type { Snapshot, SnapshotDocument } from '../format/snapshot-layout'
import { chunkHeading } from '../format/snapshot-layout'

/** A ranked document: its index in the snapshot, its best chunk and that chunk's score. */
export interface SearchHit {
  documentIndex: number
  /** The document's best-scoring chunk. */
  chunk: number
  score: number
}

/** A ranked document with its metadata (never its body). */
export interface SearchResult extends SnapshotDocument, SearchHit {
  /** Heading path of the best chunk (empty for a metadata chunk or a snapshot without headings). */
  heading: string[]
}

export function toResult(snapshot: Snapshot, hit: SearchHit): SearchResult {
  const doc = snapshot.documents[hit.documentIndex]!
  return {
    ...doc,
    categories: [...doc.categories],
    tags: [...doc.tags],
    score: hit.score,
    documentIndex: hit.documentIndex,
    chunk: hit.chunk,
    heading: [...chunkHeading(snapshot, hit.chunk)],
  }
}

/**
 * The documents `d` with `bestChunk[d] >= 0` and `best[d] >= threshold`, best
 * first, ties by lower index, at most `topK`: a bounded heap (O(D log K)), not a
 * sort of every document.
 */
export function selectTop(best: Float64Array, bestChunk: Int32Array, topK: number, threshold: number): number[] {
  const heap: number[] = [] // the kept documents, the worst at the root
  const worse = (a: number, b: number) => best[a]! < best[b]! || (best[a] === best[b] && a > b)
  const siftDown = () => {
    const size = heap.length
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= size)
        return
      const r = l + 1
      const child = r < size && worse(heap[r]!, heap[l]!) ? r : l
      if (!worse(heap[child]!, heap[i]!))
        return
      const t = heap[i]!
      heap[i] = heap[child]!
      heap[child] = t
      i = child
    }
  }
  for (let d = 0, n = best.length; d < n; d++) {
    if (bestChunk[d]! < 0 || !(best[d]! >= threshold))
      continue
    if (heap.length < topK) {
      heap.push(d)
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1
        if (!worse(heap[i]!, heap[parent]!))
          break
        const t = heap[i]!
        heap[i] = heap[parent]!
        heap[parent] = t
        i = parent
      }
    }
    else if (worse(heap[0]!, d)) {
      heap[0] = d
      siftDown()
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0))
}
