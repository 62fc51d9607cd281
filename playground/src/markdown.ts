// Markdown from skills and documents, rendered without ever running what it holds.
//
// `marked` turns it into HTML, which is parsed into an inert document
// (DOMParser runs no script and loads nothing), then copied node by node into
// the page through an allow-list: known tags only, a few attributes, links to
// http(s), mailto and the page's own hashes. Everything else (script, style,
// iframe, svg, object, img, event handlers, javascript: URLs) is dropped, and
// the text of an unknown element is kept as text.

import type { PageHeading } from 'unplugin-skill-kit/search-ui'
import { marked } from 'marked'

const TAGS = new Set([
  'a', 'abbr', 'b', 'blockquote', 'br', 'code', 'dd', 'del', 'details', 'div', 'dl', 'dt', 'em',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'kbd', 'li', 'ol', 'p', 'pre', 's', 'span',
  'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
])
/** Elements dropped with everything inside them. */
const DROPPED = new Set(['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'svg', 'math', 'template', 'noscript', 'link', 'meta', 'base', 'form', 'input', 'button', 'textarea', 'select', 'audio', 'video', 'source', 'canvas', 'title', 'head'])
const ATTRIBUTES: Record<string, readonly string[]> = { a: ['href', 'title'], code: ['class'], th: ['align'], td: ['align'], ol: ['start'] }

/** Rewrites a link of the Markdown: returns the href to use, or `undefined` to keep the text only. */
export type LinkResolver = (href: string) => string | undefined

/** The hrefs a rendered link may keep: the web, mail, and the page's own hashes. */
function safeHref(href: string): string | undefined {
  const trimmed = href.trim()
  if (trimmed.startsWith('#'))
    return trimmed
  try {
    const url = new URL(trimmed)
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined
  }
  catch {
    return undefined
  }
}

function copy(node: Node, into: Node, resolve: LinkResolver | undefined): void {
  if (node.nodeType === Node.TEXT_NODE) {
    into.appendChild(document.createTextNode(node.textContent ?? ''))
    return
  }
  if (node.nodeType !== Node.ELEMENT_NODE)
    return
  const source = node as Element
  const tag = source.localName
  if (DROPPED.has(tag))
    return
  if (tag === 'img') {
    // Images would fetch from wherever they point: their alternative text stands in.
    const alt = source.getAttribute('alt')
    if (alt)
      into.appendChild(document.createTextNode(`[image: ${alt}]`))
    return
  }
  if (!TAGS.has(tag)) {
    for (const child of source.childNodes)
      copy(child, into, resolve)
    return
  }
  const element = document.createElement(tag)
  for (const name of ATTRIBUTES[tag] ?? []) {
    const value = source.getAttribute(name)
    if (value === null)
      continue
    if (name === 'href') {
      const href = safeHref(resolve?.(value) ?? value)
      if (href === undefined)
        continue
      element.setAttribute('href', href)
      if (!href.startsWith('#'))
        element.setAttribute('rel', 'noopener noreferrer')
    }
    else if (name !== 'class' || /^language-[\w-]+$/.test(value)) {
      element.setAttribute(name, value)
    }
  }
  for (const child of source.childNodes)
    copy(child, element, resolve)
  into.appendChild(element)
}

/** A heading's explicit id as it renders: `marked` leaves `{#id}` in the text. */
const EXPLICIT_ID = /\s*\{#[^\s{}]+\}\s*$/

/**
 * Gives the rendered headings of `into` the ids of `headings` (`pageHeadings`
 * of the same Markdown: the anchors the search UI links to), matched in order
 * by their text, so that a heading `marked` sees and the search UI's scan does
 * not (or the other way round) shifts no id. Drops the `{#id}` from the text.
 * An id the page's own elements use (outside rendered Markdown) is not given:
 * a document's heading named `panel-skills` must not stand in for the panel.
 */
function anchorHeadings(into: DocumentFragment, headings: readonly PageHeading[]): void {
  const taken = new Set(Array.from(document.querySelectorAll('[id]'), e => e.closest('.markdown') ? '' : e.id))
  let next = 0
  for (const heading of into.querySelectorAll('h1, h2, h3, h4, h5, h6')) {
    const last = heading.lastChild
    if (last?.nodeType === Node.TEXT_NODE && EXPLICIT_ID.test(last.textContent ?? ''))
      last.textContent = last.textContent!.replace(EXPLICIT_ID, '')
    const text = (heading.textContent ?? '').replace(/\s+/g, ' ').trim()
    const at = headings.findIndex((h, i) => i >= next && h.text === text)
    if (at < 0)
      continue
    if (!taken.has(headings[at]!.anchor))
      heading.id = headings[at]!.anchor
    next = at + 1
  }
}

/**
 * `markdown` as page nodes that cannot run script; `resolve` rewrites links (relative ones are dropped unless it maps them);
 * `headings` (a page's `pageHeadings`) gives the headings their ids.
 */
export function renderMarkdown(markdown: string, resolve?: LinkResolver, headings?: readonly PageHeading[]): DocumentFragment {
  const html = marked.parse(markdown, { async: false, gfm: true })
  const inert = new DOMParser().parseFromString(`<!doctype html><body>${html}`, 'text/html')
  const fragment = document.createDocumentFragment()
  for (const child of inert.body.childNodes)
    copy(child, fragment, resolve)
  if (headings)
    anchorHeadings(fragment, headings)
  return fragment
}
