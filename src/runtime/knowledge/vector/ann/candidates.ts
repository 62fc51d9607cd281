// Approximate vector search of a sharded snapshot: which chunks a search
// reads. A first pass scores the chunks of the cells nearest the query by
// their low-bit codes (codes.ts; a cell holds whole documents) and keeps the
// documents it ranks highest: `rescore` a result, of at least ten results (the
// vector side's top ten make a fused search's weight); in a fused search also
// `rescore` a result by their code score plus the most their lexical score can add. To
// those it adds the documents of the top 4·K by lexical score that are not in
// the cells read, so that a fused (`auto`) search gives them their exact
// vector score, as exact search would, instead of leaving them out. Every
// chunk of these documents is then read from its exact row, so each scores as
// in exact search; the ordinary search code ranks these chunks only (see
// `scoreDocuments` in ../search.ts): the others score −∞, as if they were not
// there.
//
// The candidates depend on the query alone, never on which shards a page has
// fetched already, so a query ranks the same on a fresh page and a warm one.
// Until the shards holding them are in, `select` says which it wants and the
// search is run again once they are (`ShardedSnapshot.ranked`): first the
// centroids (fetched while the query is embedded, usually in already), then
// the cells (their codes say which documents to score exactly; where a search
// reads every cell, they came with the centroids), then those
// documents' rows and the lexical leaders' (where it reads some cells, with their refinement bits). The
// other documents of the vector shards these rows come in are read as well:
// they cost no request, and the writer groups similar documents in a shard
// (rows.ts), so they are often the next best.

import type { Snapshot } from '../../format/snapshot-layout'
import type { CellCodes, CellPartition } from './cells'
import { PEAK_DEPTH } from '../../ranking/fusion-weight'
import { POOLING_TEMPERATURE } from '../../ranking/search-pool'
import { documentChunks } from '../../ranking/search-refine'
import { nearestCells } from './cells'
import { codeRowBytes, codeScorer } from './codes'

/** Chunks an approximate search reads, and the shards it needs first. */
export interface CandidateIndex {
  /**
   * The chunks a search of `unit` reads (1 in a mask of chunk count entries),
   * given each document's lexical upper bound (`lexical[d]`, 0 without
   * lexical evidence; none outside fused searches); or null while shards it
   * needs are missing, which it has asked for.
   */
  select: (unit: Float64Array, topK: number, lexical?: Float64Array) => Uint8Array | null
  /** Whether a search refines its candidates' scores with their refinement bits (which come with their rows), or ranks them by their int8 rows alone. */
  readonly refines: boolean
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
  /** See {@link CandidateIndex.refines}. */
  refines: boolean
  /** Cell `j`'s chunks and codes once its shard is in. */
  cell: (j: number) => CellCodes | undefined
  /** Whether chunk `c`'s row is in (from its vector shard). */
  rowLoaded: (c: number) => boolean
  /** Asks for the centroids' shard. */
  wantCentroids: () => void
  /** Asks for cell `j`'s shard. */
  wantCell: (j: number) => void
  /** Asks for the range shard holding chunk `c`'s row. */
  wantRow: (c: number) => void
  /** The documents whose rows share document `d`'s vector shard (once the centroid shard is in), `d` among them. */
  rowGroup: (d: number) => Uint32Array
}

/**
 * Documents read whole for their lexical score, per result asked for: a fused
 * ranking's 4th and 5th are often documents of middling vector and lexical
 * scores alike, which 1 a result misses (bench/cells.bench.mjs;
 * figures: bench/RESULTS.md, "Figures behind the defaults").
 */
export const LEXICAL_LEADERS = 4

/** The `count` documents with the highest `scores` above `floor`, best first, ties to the lower document. */
function leaders(scores: Float64Array, count: number, floor: number): number[] {
  const top: number[] = []
  for (let d = 0; d < scores.length; d++) {
    const s = scores[d]!
    if (!(s > floor) || (top.length === count && !(s > scores[top[count - 1]!]!)))
      continue
    let at = top.length < count ? top.length : count - 1
    while (at > 0 && scores[top[at - 1]!]! < s) {
      top[at] = top[at - 1]!
      at--
    }
    top[at] = d
  }
  return top
}

/**
 * Each document's first-pass score (−∞ outside `cells`): the soft maximum of
 * its chunks' code scores, as search-pool.ts pools exact ones, into `out`.
 */
function firstPass(partition: CellPartition, cells: CellCodes[], unit: Float64Array, chunkDocuments: ArrayLike<number>, logCounts: Float64Array, out: Float64Array): void {
  const scorer = codeScorer(unit, partition.dimensions, partition.codeBits)
  const rowBytes = codeRowBytes(partition.dimensions, partition.codeBits)
  out.fill(-Infinity)
  // Σ e^((s − best) / T) over each document's chunks so far, its best chunk's score in `out`.
  const sums = new Map<number, number>()
  for (const { chunks, steps, codes } of cells) {
    for (let r = 0; r < chunks.length; r++) {
      const d = chunkDocuments[chunks[r]!]!
      const s = scorer.score(codes, r * rowBytes, steps[r]!)
      if (s > out[d]!) {
        sums.set(d, (sums.get(d) ?? 0) * Math.exp((out[d]! - s) / POOLING_TEMPERATURE) + 1)
        out[d] = s
      }
      else sums.set(d, sums.get(d)! + Math.exp((s - out[d]!) / POOLING_TEMPERATURE))
    }
  }
  for (const [d, sum] of sums)
    out[d]! += POOLING_TEMPERATURE * (Math.log(sum) - logCounts[d]!)
}

/** The candidate index of a sharded snapshot with vector cells. */
export function createCandidateIndex(source: CandidateSource): CandidateIndex {
  const { snapshot, partition } = source
  let mask: Uint8Array | undefined
  let approximate: Float64Array | undefined
  return {
    refines: source.refines,
    select(unit, topK, lexical) {
      if (!partition.centroids) {
        source.wantCentroids()
        return null
      }
      const cells = nearestCells(partition, unit, partition.probe)
      const missing = cells.filter(j => !source.cell(j))
      if (missing.length > 0) {
        missing.forEach(source.wantCell)
        return null
      }
      const { offsets, chunks, logCounts } = documentChunks(snapshot)
      approximate ??= new Float64Array(snapshot.documents.length)
      firstPass(partition, cells.map(j => source.cell(j)!), unit, snapshot.chunkDocuments, logCounts, approximate)
      mask ??= new Uint8Array(snapshot.chunkCount)
      mask.fill(0)
      // At least the vector side's top ten: a fused search's fusion weight reads them, and a vector search asking for fewer still ranks by their exact scores.
      const read = leaders(approximate, Math.round(partition.rescore * Math.max(topK, PEAK_DEPTH)), -Infinity)
      // Fused, a document's first-pass score gets the most lexical search can add to it; the
      // vector side's own leaders above are read too, whose top ten make the fusion weight.
      if (lexical) {
        for (let d = 0; d < approximate.length; d++)
          approximate[d]! += lexical[d]!
        read.push(...leaders(approximate, Math.round(partition.rescore * topK), -Infinity))
      }
      // The lexical leaders outside the cells read have no first-pass score: their rows are read anyway.
      if (lexical)
        read.push(...leaders(lexical, LEXICAL_LEADERS * topK, 0).filter(d => approximate![d] === -Infinity))
      // Every document of the vector shards fetched for these is scored exactly too: its rows come in the same requests.
      const scored = new Set<number>()
      for (const d of read) {
        for (const g of source.rowGroup(d))
          scored.add(g)
      }
      let complete = true
      for (const d of scored) {
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
