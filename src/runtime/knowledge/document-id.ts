// Document IDs as people type them: `MD045` for `md045`. IDs come from file
// paths, so two documents may differ only in case (`Setup.md`, `setup.md`);
// a case-only match then names both rather than guess.

/** What an ID asked for is: one document's exact ID, or the IDs it matches ignoring case (none, or several). */
export type DocumentIdMatch =
  | { id: string }
  | { candidates: string[] }

/**
 * Finds the document `wanted` names among `ids`: the exact ID first, else the
 * one ID equal to it ignoring case. Several IDs equal ignoring case (and none
 * exactly) are `candidates`, as is no match at all (an empty list).
 */
export function matchDocumentId(wanted: string, ids: readonly string[]): DocumentIdMatch {
  if (ids.includes(wanted))
    return { id: wanted }
  const folded = wanted.toLowerCase()
  const same = ids.filter(id => id.toLowerCase() === folded)
  return same.length === 1 ? { id: same[0]! } : { candidates: same.sort() }
}
