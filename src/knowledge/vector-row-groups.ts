// The order in which a sharded snapshot with vector cells lays documents'
// rows into its vector shards (RORD, src/runtime/knowledge/ann/rows.ts).
// An approximate search fetches the rows of the few dozen documents its
// query ranks highest, each a request unless they share a shard; documents
// near a query are near each other, so shards of similar documents serve a
// query in fewer requests than shards of adjacent ones (bench/RESULTS.md,
// "The playground's rows in fewer requests"). Deterministic: the documents'
// summed int8 rows and their dot products are exact integers, compared in one
// fixed order.

/** How documents are grouped into vector shards: `adjacent` in id order, `similar` by their vectors. */
export type RowGroups = 'adjacent' | 'similar'

/** Above this many documents in a cell, its documents stay in id order: the chain costs the square of their number. */
export const MAX_CHAINED_DOCUMENTS = 4096

/**
 * Each document's chunks, ascending, as `offsets` (documentCount + 1) into
 * `chunks` (the same arrays documentChunks in src/runtime/knowledge/search-refine.ts makes).
 */
export function chunksByDocument(chunkDocuments: ArrayLike<number>, chunkCount: number, documentCount: number): { offsets: Uint32Array, chunks: Uint32Array } {
  const offsets = new Uint32Array(documentCount + 1)
  for (let c = 0; c < chunkCount; c++)
    offsets[chunkDocuments[c]! + 1]!++
  for (let d = 0; d < documentCount; d++)
    offsets[d + 1]! += offsets[d]!
  const chunks = new Uint32Array(chunkCount)
  const next = offsets.slice(0, -1)
  for (let c = 0; c < chunkCount; c++)
    chunks[next[chunkDocuments[c]!]!++] = c
  return { offsets, chunks }
}

/**
 * The documents in the order their rows go into vector shards: `adjacent`,
 * by id; `similar`, cell after cell (`cells`: each cell's chunks; a cell holds
 * whole documents), each cell's documents as a greedy chain from its first,
 * each next the one whose summed rows are nearest in direction to the last.
 * Documents with no chunk come last.
 */
export function documentOrder(groups: RowGroups, rows: Int8Array, dims: number, byDocument: { offsets: Uint32Array, chunks: Uint32Array }, cells: readonly Uint32Array[], chunkDocuments: ArrayLike<number>): Uint32Array {
  const documentCount = byDocument.offsets.length - 1
  if (groups === 'adjacent')
    return Uint32Array.from({ length: documentCount }, (_, d) => d)
  const order: number[] = []
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
    order.push(...(members.length > MAX_CHAINED_DOCUMENTS ? members : chain(members, rows, dims, byDocument)))
  }
  for (let d = 0; d < documentCount; d++) {
    if (!placed[d])
      order.push(d)
  }
  return Uint32Array.from(order)
}

/** `members` (ascending) as a greedy nearest-neighbour chain of their summed rows, from the first; ties to the lower document. */
function chain(members: readonly number[], rows: Int8Array, dims: number, { offsets, chunks }: { offsets: Uint32Array, chunks: Uint32Array }): number[] {
  const m = members.length
  const sums = new Float64Array(m * dims)
  const inverseNorm = new Float64Array(m)
  for (const [k, d] of members.entries()) {
    for (let i = offsets[d]!; i < offsets[d + 1]!; i++) {
      const row = chunks[i]! * dims
      for (let j = 0; j < dims; j++)
        sums[k * dims + j]! += rows[row + j]!
    }
    let norm = 0
    for (let j = k * dims; j < (k + 1) * dims; j++)
      norm += sums[j]! * sums[j]!
    inverseNorm[k] = norm > 0 ? 1 / Math.sqrt(norm) : 0
  }
  const used = new Uint8Array(m)
  const out = [members[0]!]
  used[0] = 1
  let last = 0
  for (let step = 1; step < m; step++) {
    let best = -1
    let bestScore = -Infinity
    for (let k = 0; k < m; k++) {
      if (used[k])
        continue
      let dot = 0
      for (let j = 0; j < dims; j++)
        dot += sums[last * dims + j]! * sums[k * dims + j]!
      const score = dot * inverseNorm[k]!
      if (best < 0 || score > bestScore) {
        best = k
        bestScore = score
      }
    }
    used[best] = 1
    out.push(members[best]!)
    last = best
  }
  return out
}
