import { closestMatches } from '../runtime/closest'

/** The candidate closest to `word`, if it is close enough to be a likely typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  return closestMatches(word, candidates, 1)[0]
}

/** A heading title as a section ID suggestion: `Core tools` → `core-tools`. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036F]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'section'
}

/** `text` without trailing spaces and tabs, in linear time (`/[ \t]+$/` is quadratic on long runs of spaces followed by text). */
export function trimEndSpaces(text: string): string {
  let end = text.length
  while (end > 0 && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9))
    end--
  return end === text.length ? text : text.slice(0, end)
}
