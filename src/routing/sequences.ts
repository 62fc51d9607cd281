// Sequences the layout cuts into pages and levels: chunks, runs, packed runs,
// and the order of groups by their topics. Pure and generic: no page in sight.

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** `items` in consecutive chunks of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size)
    out.push(items.slice(i, i + size))
  return out
}

/** Consecutive items with the same `key`. */
export function runsOf<T>(items: readonly T[], key: (item: T) => unknown): T[][] {
  const out: T[][] = []
  for (const item of items) {
    const last = out.at(-1)
    if (last && key(last[0]!) === key(item))
      last.push(item)
    else out.push([item])
  }
  return out
}

/**
 * Runs of pages packed in order into bins of at most `size` pages, whole runs
 * only; `undefined` when the runs fit a level as they are, or their bins would
 * be more than `size`.
 */
export function packRuns<T>(runs: T[][], size: number): T[][][] | undefined {
  if (runs.length <= size || runs.some(run => run.length > size))
    return undefined
  const bins: T[][][] = []
  let count = 0
  for (const run of runs) {
    if (bins.length === 0 || count + run.length > size) {
      bins.push([])
      count = 0
    }
    bins.at(-1)!.push(run)
    count += run.length
  }
  return bins.length <= size ? bins : undefined
}

/** Lists of titles compared in order, case first ignored, then not. */
export function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = byText(a[i]!.toLowerCase(), b[i]!.toLowerCase()) || byText(a[i]!, b[i]!)
    if (order !== 0)
      return order
  }
  return a.length - b.length
}
