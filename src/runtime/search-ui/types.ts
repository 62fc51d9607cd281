// What the search UI shows, and the one interface it reads results through.
// The component (element.ts and its rooms) knows nothing of snapshots; a
// source (source.ts: `searchSource(kb, options)`) turns a knowledge base's
// results into these view models.

/** A run of text with the ranges to `<mark>` (UTF-16 offsets, sorted, not overlapping). */
export interface SearchUIExcerpt {
  text: string
  /** `[start, end)` offsets into `text` of the query's terms (and their stems). */
  marks: readonly (readonly [number, number])[]
}

/** One matching heading of a result: it links to that heading's anchor. */
export interface SearchUISubResult {
  /** The heading's text (its path's last part). */
  title: string
  /** The page's URL with the heading's anchor (`/guide/dialogs#light-dismiss`). */
  url: string
  excerpt?: SearchUIExcerpt
}

/** One found document, as the UI shows it. */
export interface SearchUIResult {
  /** Stable across rankings of the same query: the UI keeps focus and selection by it. */
  id: string
  /** Frontmatter `title`, else the first heading, else the ID. */
  title: string
  /** The page's URL (the `url` mapping of the knowledge base applied). */
  url: string
  category: string
  tags: readonly string[]
  /** The best-matching passage. */
  excerpt?: SearchUIExcerpt
  /** Up to three matching headings, best first. */
  subResults: readonly SearchUISubResult[]
}

/** `lexical` as the user types; `semantic` once the query encoder answers. */
export type SearchUIRanking = 'lexical' | 'semantic'

/** Filters the user chose: a result passes when it has one of the categories (if any) and every tag. */
export interface SearchUIFilters {
  categories: readonly string[]
  tags: readonly string[]
}

/** A filter value and the number of results (before filtering by it) that have it. */
export interface SearchUIFacet {
  value: string
  count: number
}

/** Where the component gets results from. */
export interface SearchUISource {
  /**
   * Ranks `query`. A `semantic` search may reject (no vectors, the encoder
   * failed): the component then keeps the lexical results and says so.
   * `signal` aborts a search the user typed past.
   */
  search: (query: string, options: { ranking: SearchUIRanking, filters: SearchUIFilters, signal?: AbortSignal }) => Promise<SearchUIResults>
  /** Whether `semantic` can be asked for at all (the base has vectors). */
  readonly semantic: boolean
}

/** Results of one search, with the facets of the unfiltered result set. */
export interface SearchUIResults {
  ranking: SearchUIRanking
  results: readonly SearchUIResult[]
  categories: readonly SearchUIFacet[]
  tags: readonly SearchUIFacet[]
}
