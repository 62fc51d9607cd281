// One document of a knowledge base as a page of the site: its Markdown
// rendered (safely, see markdown.ts) with the heading ids the search UI's
// sub-results link to, scrolled to the heading a link names.

import type { KnowledgeBase } from 'unplugin-skill-kit/runtime'
import type { LinkResolver } from './markdown'
import { pageHeadings } from 'unplugin-skill-kit/search-ui'
import { count, fill, h } from './dom'
import { showMarkdown } from './lazy-markdown'

/** A hash route's parts after its panel: the document's ID and a heading's anchor (`#docs/<id>/<anchor>`). */
export function routeParts(rest: readonly string[]): { id: string, anchor: string | undefined } {
  return { id: rest[0] ?? '', anchor: rest[1] }
}

/**
 * Shows document `id` of `kb` in `view` (rendered again only when it is
 * another document or `fresh`), then scrolls to the heading `anchor` names
 * and focuses it (or the page's top). `view.dataset.id` and `.anchor` say
 * what is shown, once it is.
 */
export async function showPage(view: HTMLElement, kb: KnowledgeBase, id: string, anchor: string | undefined, resolve: (id: string) => LinkResolver, fresh = false): Promise<void> {
  if (view.dataset.id !== id || fresh) {
    delete view.dataset.id
    delete view.dataset.anchor
    const info = kb.documents.find(d => d.id === id)
    const body = h('div', { className: 'markdown' })
    fill(view, info ? h('p', { className: 'muted page-meta' }, `${info.path} · ${count(info.tokenCount)} tokens`) : '', body)
    if (!info) {
      fill(body, h('p', { className: 'error' }, `There is no page “${id}”. Pick one from the list, or search.`))
    }
    else {
      try {
        const markdown = await kb.retrieve(id)
        await showMarkdown(body, markdown, resolve(id), pageHeadings(markdown))
      }
      catch (error) {
        fill(body, h('p', { className: 'error' }, (error as Error).message))
      }
    }
  }
  view.querySelector('.target')?.classList.remove('target')
  const target = anchor ? view.querySelector<HTMLElement>(`[id="${CSS.escape(anchor)}"]`) : null
  const focus = target ?? view.querySelector<HTMLElement>('h1, h2, h3') ?? view
  focus.tabIndex = -1
  if (target) {
    target.classList.add('target')
    target.scrollIntoView({ block: 'start' })
  }
  else {
    scrollTo(0, 0)
  }
  focus.focus({ preventScroll: true })
  view.dataset.id = id
  view.dataset.anchor = anchor ?? ''
}

/**
 * Links of document `from` to other documents of the base: `cli.md#knowledge-commands`
 * (relative to `from`'s folder) becomes `<route>/cli/knowledge-commands`, `#x` stays
 * on the page; a link to a file that is no document keeps its text only.
 */
export function documentLinks(kb: KnowledgeBase, route: string, from: string): LinkResolver {
  const base = new URL(`${from.split('/').slice(0, -1).join('/')}/`, 'https://docs.invalid/')
  return (href) => {
    if (/^[a-z][a-z\d+.-]*:/i.test(href))
      return href
    const url = new URL(href, href.startsWith('#') ? new URL(from, base) : base)
    const path = decodeURIComponent(url.pathname.slice(1))
    const id = href.startsWith('#') ? from : path.replace(/\.md$/, '')
    if (!kb.documents.some(d => d.id === id))
      return undefined
    const fragment = url.hash.slice(1)
    return `#${route}/${encodeURIComponent(id)}${fragment ? `/${encodeURIComponent(decodeURIComponent(fragment))}` : ''}`
  }
}
