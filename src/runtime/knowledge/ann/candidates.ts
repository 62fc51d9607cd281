// Approximate vector search of a sharded snapshot: which chunks a search
// reads. The cells nearest the query (their centroids are in the core, their
// rows in a shard each); every chunk of the documents whose best chunk in
// those cells is among the best, since a document's score pools all its
// chunks and a document near a cell's border has some in another; and every
// chunk of the documents lexical search ranks highest, so that a fused
// (`auto`) search gives those their exact vector score, as exact search
// would, instead of leaving them out. The ordinary
// search code ranks these chunks only (see `scoreDocuments` in ../search.ts):
// the others score −∞, as if they were not there.
//
// The candidates depend on the query alone, never on which shards a page has
// fetched already, so a query ranks the same on a fresh page and a warm one.
// Until the shards holding them are in, `select` says which it wants and the
// search is run again once they are (`ShardedSnapshot.ranked`): first the
// centroids (fetched while the query is embedded, usually in already), then
// the cells (their chunks are known once they are in), then the leading
// documents' rows that the cells did not bring, then refinement bits.

import type { Snapshot } from '../snapshot-reader'
import type { CellPartition } from './cells'
import { documentChunks } from '../search-refine'
import { nearestCells } from './cells'

/** Chunks an approximate search reads, and the shards it needs first. */
export interface CandidateIndex {
  /**
   * The chunks a search of `unit` reads (1 in a mask of chunk count entries),
   * given each document's lexical upper bound (`lexical[d]`, 0 without
   * lexical evidence; none outside fused searches); or null while shards it
   * needs are missing, which it has asked for.
   */
  select: (unit: Float64Array, topK: number, lexical?: Float64Array) => Uint8Array | null
}

/** Documents a search reads whole: those lexical search ranks highest (fused searches), and those with the best chunks in its cells. */
export const leadingDocuments = (topK: number): number => Math.max(10, 2 * topK)

const indexes = new WeakMap<Snapshot, CandidateIndex>()

/** The candidate index of an approximate snapshot, or undefined: search it exactly. */
export function candidateIndexOf(snapshot: Snapshot): CandidateIndex | undefined {
  return indexes.get(snapshot)
}

/** Makes searches of `snapshot` approximate (with an index) or exact again (without: once every row is in). */
export function setCandidateIndex(snapshot: Snapshot, index: CandidateIndex | undefined): void {
  if (index)
    indexes.set(snapshot, index)
  else indexes.delete(snapshot)
}

/** What a candidate index reads from its sharded snapshot. */
export interface CandidateSource {
  snapshot: Snapshot
  partition: CellPartition
  /** Cell `j`'s chunks once its shard is in. */
  cellChunks: (j: number) => Uint32Array | undefined
  /** Whether chunk `c`'s row is in (from a cell or a range shard). */
  rowLoaded: (c: number) => boolean
  /** Asks for the centroids' shard. */
  wantCentroids: () => void
  /** Asks for cell `j`'s shard. */
  wantCell: (j: number) => void
  /** Asks for the range shard holding chunk `c`'s row. */
  wantRow: (c: number) => void
}

/** The documents with the highest lexical bounds (positive only), best first, ties to the lower document. */
function leaders(lexical: Float64Array, count: number): number[] {
  const top: number[] = []
  for (let d = 0; d < lexical.length; d++) {
    const s = lexical[d]!
    if (!(s > 0) || (top.length === count && !(s > lexical[top[count - 1]!]!)))
      continue
    let at = top.length < count ? top.length : count - 1
    while (at > 0 && lexical[top[at - 1]!]! < s) {
      top[at] = top[at - 1]!
      at--
    }
    top[at] = d
  }
  return top
}

/**
 * Each document's best similarity among the `cells`' chunks, shifted to be
 * positive (0: none there), as {@link leaders} ranks them. In float64 from
 * the rows as they are (int8 × scale): a ranking of documents, not a score.
 */
function bestChunks(snapshot: Snapshot, unit: Float64Array, cells: Uint32Array[]): Float64Array {
  const dims = snapshot.dimensions
  const { vectors, scales, chunkDocuments } = snapshot
  const best = new Float64Array(snapshot.documents.length)
  for (const cell of cells) {
    for (const c of cell) {
      let sum = 0
      for (let i = 0, at = c * dims; i < dims; i++, at++)
        sum += unit[i]! * vectors[at]!
      const score = 2 + sum * (scales ? scales[c]! : 1)
      const d = chunkDocuments[c]!
      if (score > best[d]!)
        best[d] = score
    }
  }
  return best
}

/** The candidate index of a sharded snapshot with vector cells. */
export function createCandidateIndex(source: CandidateSource): CandidateIndex {
  const { snapshot, partition } = source
  let mask: Uint8Array | undefined
  return {
    select(unit, topK, lexical) {
      if (!partition.centroids) {
        source.wantCentroids()
        return null
      }
      const cells = nearestCells(partition, unit, partition.probe)
      const missing = cells.filter(j => !source.cellChunks(j))
      if (missing.length > 0) {
        missing.forEach(source.wantCell)
        return null
      }
      mask ??= new Uint8Array(snapshot.chunkCount)
      mask.fill(0)
      for (const j of cells) {
        for (const c of source.cellChunks(j)!)
          mask[c] = 1
      }
      const { offsets, chunks } = documentChunks(snapshot)
      const best = bestChunks(snapshot, unit, cells.map(j => source.cellChunks(j)!))
      const whole = [...leaders(best, leadingDocuments(topK)), ...(lexical ? leaders(lexical, topK) : [])]
      let complete = true
      for (const d of whole) {
        for (let k = offsets[d]!; k < offsets[d + 1]!; k++) {
          const c = chunks[k]!
          mask[c] = 1
          if (!source.rowLoaded(c)) {
            source.wantRow(c)
            complete = false
          }
        }
      }
      return complete ? mask : null
    },
  }
}
