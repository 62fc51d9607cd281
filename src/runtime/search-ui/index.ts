// unplugin-skill-kit/search-ui: a search box for any site, framework-free and
// dependency-free. Mount it with `mountSearch(element, searchSource(kb))` or
// use `<skill-kit-search>` after `defineSearchElement()`.

export { defineSearchElement } from './element'
export type { SearchElement } from './element'
export { mountSearch, SELECT_EVENT } from './mount'
export { pageHeadings } from './page-headings'
export type { PageHeading } from './page-headings'
export type { SearchUIHandle, SearchUIOptions, SearchUISelectDetail } from './mount'
export { searchSource } from './source'
export type { SearchSourceDocument, SearchSourceOptions } from './source'
export { DEFAULT_STRINGS } from './strings'
export type { SearchUIStrings } from './strings'
export type { AnchorStyle } from './anchors'
export type { SearchUIExcerpt, SearchUIFacet, SearchUIFilters, SearchUIRanking, SearchUIResult, SearchUIResults, SearchUISource, SearchUISubResult } from './types'
