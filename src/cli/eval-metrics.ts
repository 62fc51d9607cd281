// The figures `skill-kit eval` prints: precision and recall of a way of
// triggering skills, top-1, MRR and recall@5 of a ranking.

/** How one way of triggering (activation, search_skills) did on trigger cases. */
export interface TriggerScore {
  /** Cases it counted: activation leaves out the skills without topics (always listed). */
  cases: number
  truePositives: number
  falsePositives: number
  falseNegatives: number
  trueNegatives: number
  /** Of the cases it triggered, the share that should have; `null` when it triggered none. */
  precision: number | null
  /** Of the cases that should trigger, the share it did; `null` when none should. */
  recall: number | null
}

/** Precision and recall of `[shouldTrigger, triggered]` pairs. */
export function triggerScore(outcomes: readonly (readonly [boolean, boolean])[]): TriggerScore {
  let tp = 0
  let fp = 0
  let fn = 0
  let tn = 0
  for (const [should, did] of outcomes) {
    if (should && did)
      tp++
    else if (!should && did)
      fp++
    else if (should)
      fn++
    else tn++
  }
  return {
    cases: outcomes.length,
    truePositives: tp,
    falsePositives: fp,
    falseNegatives: fn,
    trueNegatives: tn,
    precision: tp + fp > 0 ? tp / (tp + fp) : null,
    recall: tp + fn > 0 ? tp / (tp + fn) : null,
  }
}

/** How a ranking did on retrieval cases. */
export interface RankingScore {
  cases: number
  /** Share of cases whose first result is an expected document. */
  top1: number
  /** Mean of 1 / the rank of the first expected document in the first 10 (0 when absent). */
  mrr: number
  /** Share of cases with an expected document in the first 5. */
  recall5: number
}

/** The 0-based rank of the first expected ID in `ranked`, or -1. */
export function firstRank(ranked: readonly string[], expected: readonly string[]): number {
  const wanted = new Set(expected.map(id => id.toLowerCase()))
  return ranked.findIndex(id => wanted.has(id.toLowerCase()))
}

/** Top-1, MRR@10 and recall@5 of rankings, each against its case's expected IDs. */
export function rankingScore(cases: readonly { ranked: readonly string[], expected: readonly string[] }[]): RankingScore {
  let top1 = 0
  let mrr = 0
  let recall5 = 0
  for (const { ranked, expected } of cases) {
    const rank = firstRank(ranked.slice(0, 10), expected)
    if (rank === 0)
      top1++
    if (rank >= 0) {
      mrr += 1 / (rank + 1)
      if (rank < 5)
        recall5++
    }
  }
  const n = cases.length || 1
  return { cases: cases.length, top1: top1 / n, mrr: mrr / n, recall5: recall5 / n }
}
