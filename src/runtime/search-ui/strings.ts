// Every string the component shows or announces, replaceable as a whole or one
// by one (`mountSearch(el, source, { strings: { placeholder: 'Rechercher' } })`).
// Templates hold `{name}` placeholders rather than functions, so that a
// translation is plain data (JSON from a site's i18n files).

/** The component's visible and announced text. `{query}`, `{count}` are filled in. */
export interface SearchUIStrings {
  /** The button that opens the dialog. */
  button: string
  /** The shortcut shown on the button (`/` also works), elsewhere and on Apple systems. */
  buttonShortcut: string
  buttonShortcutApple: string
  /** The search box's accessible name. */
  label: string
  placeholder: string
  /** The dialog's close button. */
  close: string
  /** The list of results' accessible name. */
  results: string
  /** The filters' group names. */
  categories: string
  tags: string
  /** A facet button: `{value}` and `{count}`. */
  facet: string
  /** Heading of the recent searches (shown while the box is empty). */
  recent: string
  /** The status line while the first results of `{query}` are on their way. */
  searching: string
  noResults: string
  /** The status line once results are shown: `{results}` (the count) and `{ranking}`. */
  summary: string
  /** One result / several results of `{query}`. */
  oneResult: string
  manyResults: string
  /** Which ranking is shown, after the count. */
  rankingLexical: string
  rankingLexicalPending: string
  rankingSemantic: string
  /** The semantic ranking failed or is missing: the lexical one stays. */
  rankingFallback: string
  /** The search itself failed: `{reason}`. */
  failed: string
  /** Hint at the foot of the dialog. */
  keys: string
}

/** English defaults. */
export const DEFAULT_STRINGS: SearchUIStrings = {
  button: 'Search',
  buttonShortcut: 'Ctrl K',
  buttonShortcutApple: '⌘ K',
  label: 'Search the docs',
  placeholder: 'Search the docs',
  close: 'Close',
  results: 'Results',
  categories: 'Categories',
  tags: 'Tags',
  facet: '{value} ({count})',
  recent: 'Recent searches',
  searching: 'Searching for “{query}”…',
  noResults: 'No results for “{query}”.',
  summary: '{results}, {ranking}',
  oneResult: '1 result for “{query}”',
  manyResults: '{count} results for “{query}”',
  rankingLexical: 'ranked by words.',
  rankingLexicalPending: 'ranked by words; by meaning in a moment.',
  rankingSemantic: 'ranked by meaning.',
  rankingFallback: 'ranked by words (ranking by meaning is unavailable).',
  failed: 'Search failed: {reason}',
  keys: '↑↓ to choose, Enter to open, Esc to close',
}

/** `template` with each `{name}` replaced by `values[name]` (unknown names stay as written). */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => name in values ? String(values[name]) : whole)
}
