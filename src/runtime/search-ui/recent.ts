// Recent searches, kept in the visitor's browser only (localStorage). Storage
// may be missing, full or forbidden (private modes, sandboxed frames): the list
// is a convenience, so every failure reads as "no recent searches".

/** How many recent searches are kept. */
export const RECENT_LIMIT = 5

/** The recent searches under `key`, newest first. */
export function readRecent(key: string): string[] {
  try {
    const stored: unknown = JSON.parse(localStorage.getItem(key) ?? '[]')
    return Array.isArray(stored) ? stored.filter((q): q is string => typeof q === 'string').slice(0, RECENT_LIMIT) : []
  }
  catch {
    return []
  }
}

/** Puts `query` first in the recent searches under `key` (once), and returns the list. */
export function rememberRecent(key: string, query: string): string[] {
  const list = [query, ...readRecent(key).filter(q => q !== query)].slice(0, RECENT_LIMIT)
  try {
    localStorage.setItem(key, JSON.stringify(list))
  }
  catch {
    // Not stored: the list still shows for this page's life.
  }
  return list
}
