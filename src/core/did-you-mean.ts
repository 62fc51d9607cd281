import { closest } from './text'

/**
 * The hint for an unknown key: ` Did you mean "topics"?` when renaming the
 * key to its closest known key is the fix; but when the mapping has that key
 * already, renaming would make a duplicate key, so it says that instead.
 * `shown` turns a known key into the text the author writes (a prefix, say).
 */
export function didYouMean(key: string, known: readonly string[], present: (key: string) => boolean, shown: (key: string) => string = k => k): string {
  const guess = closest(key, known)
  if (!guess)
    return ''
  return present(guess) ? ` It looks like "${shown(guess)}", which is set already: keep one of them.` : ` Did you mean "${shown(guess)}"?`
}
