import { work } from './work'

/** Levenshtein distance, case-insensitive. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  work.steps += (x.length + 1) * (y.length + 1)
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

/** What follows the last `/` of a path-like ID (`ops/vpn` → `vpn`); the whole text without one. */
function lastSegment(text: string): string {
  return text.slice(text.lastIndexOf('/') + 1)
}

/** Whether `distance` edits on a word of `length` letters are likely a typo: at most a third of its letters, and at least 2. */
function typo(distance: number, length: number): boolean {
  return distance <= Math.max(2, Math.floor(length / 3))
}

/**
 * Longest word or candidate compared: the edit distance costs the product of
 * the two lengths, and an agent or a hostile file controls the word.
 */
export const MAX_GUESS_LENGTH = 100

/**
 * Up to `count` candidates close enough to `word` to be likely typos (at most
 * a third of its letters off, and at least 2), closest first, ties in the
 * candidates' order. Path-like candidates also match on their last segment,
 * so `vpn` finds `ops/vpn` (and `guides/vpn` finds it too): a segment that
 * matches exactly comes first. Words or candidates longer than
 * {@link MAX_GUESS_LENGTH} are never compared, nor pairs whose lengths alone
 * differ by more than a typo.
 */
export function closestMatches(word: string, candidates: readonly string[], count = 3): string[] {
  if (word.length > MAX_GUESS_LENGTH)
    return []
  const wordSegment = lastSegment(word)
  /** The distance of `a` to `b` if it can be a typo of `a`, else Infinity. */
  const typoDistance = (a: string, b: string) => {
    if (b.length > MAX_GUESS_LENGTH || !typo(Math.abs(a.length - b.length), a.length))
      return Infinity
    const distance = editDistance(a, b)
    return typo(distance, a.length) ? distance : Infinity
  }
  return candidates
    .map((candidate) => {
      const whole = typoDistance(word, candidate)
      const segment = candidate.includes('/') ? typoDistance(wordSegment, lastSegment(candidate)) : Infinity
      return { candidate, distance: Math.min(whole, segment) }
    })
    .filter(c => c.distance !== Infinity)
    .sort((a, b) => a.distance - b.distance)
    .slice(0, count)
    .map(c => c.candidate)
}
