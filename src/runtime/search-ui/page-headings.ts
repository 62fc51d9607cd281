// The headings of a page as the search UI links to them, for a site that
// renders its Markdown itself (the docs site of this repository does): giving
// each rendered heading the anchor listed here lands a sub-result on it.

import type { AnchorStyle } from './anchors'
import { headingAnchors, plainHeading } from './anchors'
import { bodySections } from './sections'

/** A heading of a page: its text as it renders, its level and the anchor sub-results link to. */
export interface PageHeading {
  /** The heading's plain text (no `{#id}`, no inline markup): what a rendered heading's `textContent` shows. */
  text: string
  /** 1–6. */
  level: number
  /** The id to give the rendered heading: its explicit `{#id}`, else its slug in `style`, repeats numbered. */
  anchor: string
}

/**
 * The headings of `markdown` (ATX and setext, fenced code skipped) in order,
 * each with the anchor `searchSource(kb, { anchors: style })` links its
 * sub-results to: the same scan and slugs, so the two cannot disagree.
 */
export function pageHeadings(markdown: string, style: AnchorStyle = 'github'): PageHeading[] {
  const headed = bodySections(markdown).filter(s => s.heading !== undefined && s.level > 0)
  const anchors = headingAnchors(headed.map(s => s.heading!), style)
  return headed.map((section, i) => ({ text: plainHeading(section.heading!), level: section.level, anchor: anchors[i]! }))
}
