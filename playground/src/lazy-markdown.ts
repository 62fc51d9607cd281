// The Markdown renderer (and `marked`) load with the first rendered text, not with the page.

import type { LinkResolver } from './markdown'

/** `markdown` rendered safely into `into` (see markdown.ts). */
export async function showMarkdown(into: Element, markdown: string, resolve?: LinkResolver): Promise<void> {
  const { renderMarkdown } = await import('./markdown')
  into.replaceChildren(renderMarkdown(markdown, resolve))
}
