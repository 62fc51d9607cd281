// Small helpers shared by the benchmarks.

import { pathToFileURL } from 'node:url'

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export function fmtMs(ms) {
  return `${ms.toFixed(ms < 100 ? 1 : 0)} ms`
}

/** True when `meta` is the module node was started with. */
export function isMain(meta) {
  return process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === meta.url
}

/** Prefix of the one line a benchmark prints for `run.mjs` when started with `--json`. */
export const RESULT_MARK = 'BENCH_RESULT '

export function emitResult(result) {
  if (process.argv.includes('--json'))
    console.log(RESULT_MARK + JSON.stringify(result))
}

/**
 * Imports a module of the built package, retrying briefly: `dist/` may be being rebuilt.
 * `SKILL_KIT_DIST=<dir>` (relative to bench/, or absolute) benchmarks another build, e.g. of a patched copy.
 */
export async function importDist(path, attempts = 10) {
  const url = new URL(`${process.env.SKILL_KIT_DIST ?? '../dist'}/${path}`, import.meta.url).href
  for (let i = 1; ; i++) {
    try {
      return await import(`${url}?attempt=${i}`)
    }
    catch (error) {
      if (i >= attempts)
        throw error
      await new Promise(resolve => setTimeout(resolve, 1000))
    }
  }
}

/**
 * Top-1, recall@5, MRR@5 and MRR@10 of rankings (`rankings[i]`: document IDs for `queries[i]`,
 * best first) against each query's `relevant` IDs, with the queries that missed the top 5.
 */
export function rankingMetrics(rankings, queries) {
  let top1 = 0
  let recall5 = 0
  let mrr = 0
  let mrr5 = 0
  const misses = []
  queries.forEach((q, i) => {
    const ids = rankings[i]
    const rank = ids.slice(0, 10).findIndex(id => q.relevant.includes(id))
    if (rank === 0)
      top1++
    if (rank >= 0 && rank < 5)
      recall5++
    else misses.push({ query: q.query, relevant: q.relevant, got: ids.slice(0, 5) })
    if (rank >= 0)
      mrr += 1 / (rank + 1)
    if (rank >= 0 && rank < 5)
      mrr5 += 1 / (rank + 1)
  })
  const n = queries.length || 1
  return { top1: top1 / n, recall5: recall5 / n, mrr5: mrr5 / n, mrr10: mrr / n, misses }
}

/** The value after `--<name>` in `argv` (the command line's by default), or `fallback`. */
export function arg(name, fallback, argv = process.argv) {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : fallback
}

/** `arg` as a number. */
export function numberArg(name, fallback, argv = process.argv) {
  const value = arg(name, undefined, argv)
  return value === undefined ? fallback : Number(value)
}
