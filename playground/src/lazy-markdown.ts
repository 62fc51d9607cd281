// The Markdown renderer (and `marked`) load with the first rendered text, not with the page.

import type { PageHeading } from 'unplugin-skill-kit/search-ui'
import type { LinkResolver } from './markdown'

/** `markdown` rendered safely into `into` (see markdown.ts), its headings given the ids of `headings` if any. */
export async function showMarkdown(into: Element, markdown: string, resolve?: LinkResolver, headings?: readonly PageHeading[]): Promise<void> {
  const { renderMarkdown } = await import('./markdown')
  into.replaceChildren(renderMarkdown(markdown, resolve, headings))
}
