// Typo tolerance for lexical search: a query term the index lacks is replaced
// by the index term one edit away (a letter inserted, deleted, replaced, or two
// neighbours swapped: `contianer` → `container`, `accesibility` →
// `accessibility`), as search boxes are typed. Not `editDistance` of
// src/runtime/closest.ts: that one counts a swap as two edits and fills a
// table per pair, where this check is linear and stops at the first
// difference, so a scan of the vocabulary stays cheap.

/** Whether `a` and `b` are at most one edit apart (insertion, deletion, substitution or transposition of neighbours). */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b)
    return true
  const la = a.length
  const lb = b.length
  if (Math.abs(la - lb) > 1)
    return false
  let i = 0
  while (i < la && i < lb && a[i] === b[i])
    i++
  if (la === lb) {
    return a.slice(i + 1) === b.slice(i + 1)
      || (i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1)
}

/** The first index of sorted `terms` (UTF-16 code unit order) not below `term`. */
export function lowerBound(terms: readonly string[], term: string): number {
  let lo = 0
  let hi = terms.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (terms[mid]! < term)
      lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Shortest term (a stem) that is corrected: shorter words are too often another real word one edit away (`huge` → `hue`). */
export const TYPO_MIN_LENGTH = 5

/**
 * The term of sorted `terms` one edit from `term` with the same first letter
 * (typos rarely change it, and it bounds the scan to one letter's range), the
 * one in most chunks (`frequency(t)`) when several are, the first of those on
 * a tie; −1 when none is, or when `term` is shorter than
 * {@link TYPO_MIN_LENGTH} or not all a–z (identifiers and other scripts are
 * taken as written).
 */
export function closestTerm(terms: readonly string[], frequency: (t: number) => number, term: string): number {
  if (term.length < TYPO_MIN_LENGTH || !/^[a-z]+$/.test(term))
    return -1
  const first = term[0]!
  let best = -1
  let bestFrequency = 0
  for (let t = lowerBound(terms, first); t < terms.length && terms[t]![0] === first; t++) {
    const candidate = terms[t]!
    if (Math.abs(candidate.length - term.length) > 1 || !withinOneEdit(term, candidate))
      continue
    const f = frequency(t)
    if (f > bestFrequency) {
      best = t
      bestFrequency = f
    }
  }
  return best
}
