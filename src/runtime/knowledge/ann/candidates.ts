// Approximate vector search of a sharded snapshot: which chunks a search
// reads. The chunks of the cells nearest the query (a cell holds whole
// documents, so each document read is read whole, and scores as in exact
// search), and every chunk of the top 4·K documents by lexical score, so that a
// fused (`auto`) search gives those their exact vector score, as exact search
// would, instead of leaving them out. The ordinary search code ranks these
// chunks only (see `scoreDocuments` in ../search.ts): the others score −∞, as
// if they were not there.
//
// The candidates depend on the query alone, never on which shards a page has
// fetched already, so a query ranks the same on a fresh page and a warm one.
// Until the shards holding them are in, `select` says which it wants and the
// search is run again once they are (`ShardedSnapshot.ranked`): first the
// centroids (fetched while the query is embedded, usually in already), then
// the cells (their chunks are known once they are in), then the lexical
// leaders' rows that the cells did not bring, then refinement bits.

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

/**
 * Documents read whole for their lexical score, per result asked for: on real
 * embeddings (bench/cells.bench.mjs, 1,181 queries of the guides), 4 a result
 * gave the exact search's top 5 for 96.4 % of queries where 1 did for 86.5 %
 * (16 cells of 2,044 chunks, 4 read): a fused ranking's 4th and 5th are often
 * documents of middling vector and lexical scores alike.
 */
export const LEXICAL_LEADERS = 4

/** The `count` documents with the highest lexical bounds (positive only), best first, ties to the lower document. */
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
      if (!lexical)
        return mask
      const { offsets, chunks } = documentChunks(snapshot)
      let complete = true
      for (const d of leaders(lexical, LEXICAL_LEADERS * topK)) {
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
