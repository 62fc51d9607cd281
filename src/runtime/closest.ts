/** Levenshtein distance, case-insensitive. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  const row = Array.from({ length: y.length + 1 }, (_, j) => j)
  for (let i = 1; i <= x.length; i++) {
    let diagonal = row[0]!
    row[0] = i
    for (let j = 1; j <= y.length; j++) {
      const above = row[j]!
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (x[i - 1] === y[j - 1] ? 0 : 1))
      diagonal = above
    }
  }
  return row[y.length]!
}

/**
 * Up to `count` candidates close enough to `word` to be likely typos (at most
 * a third of its letters off, and at least 2), closest first, ties in the
 * candidates' order.
 */
export function closestMatches(word: string, candidates: readonly string[], count = 3): string[] {
  const limit = Math.max(2, Math.floor(word.length / 3))
  return candidates
    .map(candidate => ({ candidate, distance: editDistance(word, candidate) }))
    .filter(c => c.distance <= limit)
    .sort((a, b) => a.distance - b.distance)
    .slice(0, count)
    .map(c => c.candidate)
}
