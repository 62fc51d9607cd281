// Which rows of a query table share a shard. A static host caps the files of
// a deploy (Cloudflare Pages at 20,000, others lower), and a query fetches
// every shard holding one of its pieces, so the layout trades files for bytes
// a query. Queries use the pieces the corpus uses often, so frequent pieces
// go in small shards and rare ones in large ones: a piece used with
// probability p gets about √(λ/p) rows a shard (what minimises the expected
// bytes a query under a file budget), rounded down to a power of two, λ
// chosen so that the shards fit the budget. Measured by
// bench/query-table.bench.mjs (the guides' 12,772 pieces, the queries of
// bench/retrieval): at 1,000 files a short query fetches 6.9 KB (median; 25 KB
// with the same rows a shard for every piece), at 2,000 files 3.6 KB.

/** Rows a group's shards hold: the table lists groups in order, each a run of `pieces` rows. */
export interface QueryTableGroup {
  pieces: number
  rowsPerShard: number
}

/** Shards a table has at most unless told otherwise: a few KB a short query (see above). */
export const DEFAULT_MAX_SHARDS = 1000

/** A count weighs at least this much: a piece the corpus never uses may still be in a query. */
const UNSEEN = 0.5

const shardsOf = (groups: readonly QueryTableGroup[]) => groups.reduce((sum, g) => sum + Math.ceil(g.pieces / g.rowsPerShard), 0)

/**
 * The rows in the order the table lists them (most used first, ties in
 * `order`'s order) and their groups, in at most `maxShards` shards.
 * `counts[i]`: how often the corpus uses row `i`; `order`: the rows sorted by
 * piece, which breaks ties so the layout depends on the table's content only.
 */
export function layoutRows(counts: ArrayLike<number>, order: readonly number[], maxShards: number): { order: number[], groups: QueryTableGroup[] } {
  const byUse = [...order].sort((a, b) => Math.max(counts[b]!, UNSEEN) - Math.max(counts[a]!, UNSEEN))
  const total = byUse.reduce((sum, row) => sum + Math.max(counts[row]!, UNSEEN), 0)
  const groupsAt = (lambda: number): QueryTableGroup[] => {
    const groups: QueryTableGroup[] = []
    for (const row of byUse) {
      const wanted = Math.sqrt(lambda * total / Math.max(counts[row]!, UNSEEN))
      let rows = 1
      while (rows * 2 <= wanted && rows < byUse.length)
        rows *= 2
      const last = groups.at(-1)
      // Rows come most used first, so a group's rows a shard only grow: a smaller want joins the group before.
      if (last && last.rowsPerShard >= rows)
        last.pieces++
      else
        groups.push({ pieces: 1, rowsPerShard: rows })
    }
    return groups
  }
  // The smallest λ (fewest bytes a query) whose layout fits: bisection on its logarithm.
  let low = 1e-12
  let high = 1e12
  for (let step = 0; step < 80; step++) {
    const mid = Math.sqrt(low * high)
    if (shardsOf(groupsAt(mid)) <= maxShards)
      high = mid
    else
      low = mid
  }
  const groups = groupsAt(high)
  // Within a group, rows sorted by piece: the core front-codes them.
  const rank = new Map(order.map((row, i) => [row, i]))
  const sorted: number[] = []
  let at = 0
  for (const group of groups) {
    sorted.push(...byUse.slice(at, at + group.pieces).sort((a, b) => rank.get(a)! - rank.get(b)!))
    at += group.pieces
  }
  return { order: sorted, groups }
}
