// The site's own pages: the repository's docs/ folder as a knowledge base
// (vite.config.ts), each page at `#docs/<id>` and each heading at
// `#docs/<id>/<anchor>`, a list of the pages, and `<skill-kit-search>` over
// them as the site's search, linking to those same URLs.

import docs from 'virtual:skill-kit/knowledge/docs'
import type { SearchElement } from 'unplugin-skill-kit/search-ui'
import { defineSearchElement, searchSource } from 'unplugin-skill-kit/search-ui'
import { fill, h } from './dom'
import { documentLinks, showPage } from './page'

/** The home page: docs/index.md, the docs' table of contents. */
export const HOME = 'index'

/** A page's URL on the site (a hash route: the built site is one HTML file any static host serves). */
export const docUrl = (id: string) => `#docs/${encodeURIComponent(id)}`

const links = (id: string) => documentLinks(docs, 'docs', id)

/**
 * The pages in the order the home page links to them, then any it does not
 * link to, by title: the list follows the table of contents the docs keep.
 */
async function pageOrder(): Promise<string[]> {
  const ids = docs.documents.map(d => d.id)
  let linked: string[] = []
  if (ids.includes(HOME)) {
    const home = await docs.retrieve(HOME)
    linked = [...home.matchAll(/\]\(([^)#\s]+)\.md(?:#[^)]*)?\)/g)].map(m => m[1]!.replace(/^\.\//, ''))
  }
  const titled = (id: string) => docs.documents.find(d => d.id === id)?.title ?? id
  const rest = ids.filter(id => id !== HOME && !linked.includes(id)).sort((a, b) => titled(a).localeCompare(titled(b)))
  return [...new Set([HOME, ...linked, ...rest])].filter(id => ids.includes(id))
}

/** Fills the list of pages. */
async function showNav(): Promise<void> {
  const nav = document.getElementById('docs-nav')!
  const order = await pageOrder()
  fill(nav, h('ul', {}, ...order.map(id => h('li', {}, h('a', { href: docUrl(id) }, docs.documents.find(d => d.id === id)?.title ?? id)))))
  markCurrent()
}

/** Marks the list's link to the page shown. */
function markCurrent(): void {
  const shown = document.getElementById('doc-page')!.dataset.id
  for (const link of document.querySelectorAll<HTMLAnchorElement>('#docs-nav a'))
    link.ariaCurrent = shown !== undefined && link.hash === docUrl(shown) ? 'page' : null
}

/** Shows page `id` (the home page when empty), at heading `anchor` if given. */
export async function showDoc(id: string, anchor: string | undefined, fresh = false): Promise<void> {
  await showPage(document.getElementById('doc-page')!, docs, id || HOME, anchor, links, fresh)
  markCurrent()
}

/**
 * The site's search: `<skill-kit-search>` over the docs, its results and
 * headings linking to the pages' routes. Semantic ranking readies (the
 * snapshot's vector cells, the query table's core) as soon as the visitor
 * points at the search or opens it, while they type: not on every page
 * load, where it would compete with the page (and the Guides page's own
 * search) for a search that may never come.
 */
export function setupDocs(): void {
  defineSearchElement()
  const search = document.querySelector<SearchElement>('skill-kit-search')!
  search.source = searchSource(docs, { url: document => docUrl(document.id) })
  void showNav()
  const ready = new AbortController()
  const warm = () => {
    ready.abort()
    void docs.preload({ mode: 'vector' }).catch(() => {
      // The search says it ranks by words only when the semantic ranking fails; nothing to add here.
    })
  }
  // focusin crosses the shadow root: the box, opened by a click, `/` or Ctrl+K.
  for (const event of ['pointerenter', 'focusin'])
    search.addEventListener(event, warm, { signal: ready.signal })
  // An edited page in the dev server: the list and the page shown, from the new build.
  docs.onUpdate(() => {
    void showNav()
    const page = document.getElementById('doc-page')!
    if (page.dataset.id !== undefined && !page.closest('[hidden]'))
      void showDoc(page.dataset.id, page.dataset.anchor || undefined, true)
  })
}
