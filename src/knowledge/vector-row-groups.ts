// How a sharded snapshot with vector cells lays documents' rows into its
// vector shards (RORD, src/runtime/knowledge/vector/ann/rows.ts). An approximate
// search fetches the rows of the 15 to 40 documents its query ranks highest,
// each a request unless they share a shard, and HTTP/1.1 asks six at a time;
// so `similar` puts documents that queries read together in one shard, as
// the cell's own chunks, each standing for a query, read them. On the guides
// that serves a median query in 12 requests instead of 22 (bench/RESULTS.md,
// "The playground's rows in fewer requests"); documents adjacent in id order
// help little, as a query's documents come from all over the corpus.
// Deterministic: the pseudo-queries' dot products are exact integers (the
// int8 rows, as vector-cells.ts scores them) and everything after them runs in
// one fixed order, ties to the lower document.

import type { PooledScores } from '../runtime/knowledge/ranking/search-pool'
import { poolDocument } from '../runtime/knowledge/ranking/search-pool'
import { rowScorer } from './vector-cells'

/** How documents are grouped into vector shards: `adjacent` in id order, `similar` as queries read them together. */
export type RowGroups = 'adjacent' | 'similar'

/** Above this many documents in a cell, its documents stay in id order: pairs read together cost the square of their number. */
export const MAX_GROUPED_DOCUMENTS = 2048

/** The documents in the order their rows go into vector shards, and where each shard starts in it. */
export interface RowLayout {
  order: Uint32Array
  /** Positions in `order` where a shard starts (the first is 0), ascending. */
  starts: number[]
}

/** Pseudo-queries a cell's chunks give at most (every n-th chunk): they cost a scan of the cell each. */
export const MAX_PSEUDO_QUERIES = 512
/** Documents a pseudo-query reads: about what a query rescores (2 a result of ten). */
export const CO_READ_DEPTH = 20

/**
 * The documents grouped into vector shards of about `target` bytes
 * (`documentBytes(d)` each): `adjacent`, in id order; `similar`, cell by cell
 * (`cells`: each cell's chunks; a cell holds whole documents), grouping the
 * documents queries read together. Each of a cell's chunks (up to
 * {@link MAX_PSEUDO_QUERIES}, evenly spread) stands for a query: the
 * {@link CO_READ_DEPTH} documents of the cell it scores highest (pooled as
 * search pools: a soft maximum over each document's chunks) are read together;
 * then pairs of documents, most often read together first, merge their groups
 * while the merged group stays within `target`. A group is a shard.
 */
export function rowLayout(groups: RowGroups, rows: Int8Array, dims: number, byDocument: { offsets: Uint32Array, chunks: Uint32Array }, cells: readonly Uint32Array[], chunkDocuments: ArrayLike<number>, documentBytes: (d: number) => number, target: number): RowLayout {
  const documentCount = byDocument.offsets.length - 1
  const order: number[] = []
  const starts: number[] = []
  /** Appends `members` (ascending) in shards of at most `target` bytes, a document alone where it is bigger. */
  const packed = (members: readonly number[]) => {
    let bytes = Infinity
    for (const d of members) {
      if (bytes + documentBytes(d) > target) {
        starts.push(order.length)
        bytes = 0
      }
      order.push(d)
      bytes += documentBytes(d)
    }
  }
  if (groups === 'adjacent') {
    packed(Array.from({ length: documentCount }, (_, d) => d))
    return { order: Uint32Array.from(order), starts }
  }
  const placed = new Uint8Array(documentCount)
  for (const cell of cells) {
    const members: number[] = []
    for (const c of cell) {
      const d = chunkDocuments[c]!
      if (!placed[d]) {
        placed[d] = 1
        members.push(d)
      }
    }
    members.sort((a, b) => a - b)
    if (members.length > MAX_GROUPED_DOCUMENTS) {
      packed(members)
      continue
    }
    for (const group of coReadGroups(members, cell, rows, dims, byDocument, documentBytes, target)) {
      starts.push(order.length)
      order.push(...group)
    }
  }
  packed(Array.from({ length: documentCount }, (_, d) => d).filter(d => !placed[d]))
  return { order: Uint32Array.from(order), starts }
}

/** `members` (a cell's documents, ascending; `cell` its chunks) in groups of documents read together, each group ascending, groups by their first document. */
function coReadGroups(members: readonly number[], cell: Uint32Array, rows: Int8Array, dims: number, { offsets, chunks }: { offsets: Uint32Array, chunks: Uint32Array }, documentBytes: (d: number) => number, target: number): number[][] {
  const m = members.length
  const n = cell.length
  const cellRows = new Int8Array(n * dims)
  const inverseNorm = new Float64Array(n)
  for (const [r, c] of cell.entries()) {
    cellRows.set(rows.subarray(c * dims, (c + 1) * dims), r * dims)
    let sum = 0
    for (let i = c * dims; i < (c + 1) * dims; i++)
      sum += rows[i]! * rows[i]!
    inverseNorm[r] = sum > 0 ? 1 / Math.sqrt(sum) : 0
  }
  const rowOf = new Map(Array.from(cell, (c, r) => [c, r]))
  // Each member's chunks as rows of the cell, end to end: member k's are rowsOf[rowStarts[k]…rowStarts[k + 1]).
  const rowStarts = new Uint32Array(m + 1)
  for (const [k, d] of members.entries())
    rowStarts[k + 1] = rowStarts[k]! + offsets[d + 1]! - offsets[d]!
  const rowsOf = new Uint32Array(rowStarts[m]!)
  for (const [k, d] of members.entries()) {
    for (let i = offsets[d]!; i < offsets[d + 1]!; i++)
      rowsOf[rowStarts[k]! + i - offsets[d]!] = rowOf.get(chunks[i]!)!
  }
  const score = rowScorer(cellRows, n, dims)
  const query = new Float64Array(dims)
  const dots = new Int32Array(n)
  const cosines = new Float64Array(n)
  // Each member's soft maximum over its chunks' cosines with the pseudo-query, pooled as searches pool.
  const pooledScores: PooledScores = { best: new Float64Array(m), bestChunk: new Int32Array(m), pooled: new Float64Array(m) }
  const pooled = pooledScores.pooled
  const byScore = Array.from({ length: m }, (_, k) => k)
  const together = new Uint32Array(m * m)
  const step = Math.max(1, Math.ceil(n / MAX_PSEUDO_QUERIES))
  const depth = Math.min(CO_READ_DEPTH, m)
  for (let q = 0; q < n; q += step) {
    query.set(cellRows.subarray(q * dims, (q + 1) * dims))
    score(query, dots)
    for (let r = 0; r < n; r++)
      cosines[r] = dots[r]! * inverseNorm[q]! * inverseNorm[r]!
    for (let k = 0; k < m; k++)
      poolDocument(cosines, rowsOf, rowStarts[k]!, rowStarts[k + 1]!, k, 'soft', pooledScores)
    byScore.sort((a, b) => pooled[b]! - pooled[a]! || a - b)
    for (let i = 0; i < depth; i++) {
      for (let j = i + 1; j < depth; j++) {
        const [a, b] = byScore[i]! < byScore[j]! ? [byScore[i]!, byScore[j]!] : [byScore[j]!, byScore[i]!]
        together[a * m + b]!++
      }
    }
  }
  // Pairs most often read together merge their groups first, while the merged group fits `target`.
  const pairs: number[] = []
  for (let a = 0; a < m; a++) {
    for (let b = a + 1; b < m; b++) {
      if (together[a * m + b]! > 0)
        pairs.push(a * m + b)
    }
  }
  pairs.sort((x, y) => together[y]! - together[x]! || x - y)
  const parent = Int32Array.from({ length: m }, (_, k) => k)
  const bytes = Float64Array.from(members, d => documentBytes(d))
  const root = (k: number): number => {
    while (parent[k] !== k)
      k = parent[k] = parent[parent[k]!]!
    return k
  }
  for (const pair of pairs) {
    const [a, b] = [root(Math.floor(pair / m)), root(pair % m)]
    if (a !== b && bytes[a]! + bytes[b]! <= target) {
      const [keep, join] = a < b ? [a, b] : [b, a]
      parent[join] = keep
      bytes[keep]! += bytes[join]!
    }
  }
  const groups = new Map<number, number[]>()
  for (let k = 0; k < m; k++) {
    const r = root(k)
    const group = groups.get(r)
    if (group)
      group.push(members[k]!)
    else groups.set(r, [members[k]!])
  }
  return [...groups.values()].sort((x, y) => x[0]! - y[0]!)
}
