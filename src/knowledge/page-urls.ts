// Where each document of a knowledge folder is published as a page: the `url`
// option maps a document's path to its page's route, so that the search UI
// links to the site's real pages. Applied at build time; the module carries
// each document's URL. A URL never comes from a document's content.

import type { SnapshotDocument } from '../runtime/knowledge/format/snapshot-layout'
import { excerptForMessage, quoteForMessage } from '../runtime/redact'
import { slugify } from '../runtime/search-ui/anchors'

/** What a `url` function is given: a document's metadata (`path` relative to the knowledge folder, `/`-separated). */
export type PageDocument = Readonly<Pick<SnapshotDocument, 'id' | 'path' | 'title' | 'category' | 'tags'>>

/**
 * A knowledge base's `url` option: a preset, a pattern, or a function.
 * - `'vitepress'`: `guide/intro.md` → `/guide/intro`, `guide/index.md` → `/guide/` (VitePress's `cleanUrls`);
 * - `'vitepress-html'`: `/guide/intro.html`, `guide/index.md` → `/guide/` (VitePress's default);
 * - `'astro'`: `guide/intro.md` → `/guide/intro/` (the folder being `src/content/docs`; each part
 *   lowercased and slugged as Astro's content collections and Starlight do; `index.md` → its folder);
 * - a pattern with `{path}` (the path without `.md`) or `{id}`: `'/docs/{path}.html'`;
 * - a function of the document, returning its page's URL.
 */
export type PageUrlOption = 'vitepress' | 'vitepress-html' | 'astro' | (string & {}) | ((document: PageDocument) => string)

export const PAGE_URL_PRESETS = ['vitepress', 'vitepress-html', 'astro'] as const

/** Whether a string is a preset or a pattern (it names `{path}` or `{id}`). */
export function isPageUrlPattern(value: string): boolean {
  return (PAGE_URL_PRESETS as readonly string[]).includes(value) || /\{(?:path|id)\}/.test(value)
}

/** Each `/`-separated part URL-encoded: a file name with spaces or `#` stays one path. */
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/')

/** `guide/intro.md` → `guide/intro`; `guide/index.md` → `guide/`; `index.md` → ``. */
function pageRoute(path: string): string {
  const bare = path.replace(/\.md$/i, '')
  return bare === 'index' ? '' : bare.endsWith('/index') ? bare.slice(0, -'index'.length) : bare
}

/** The URL of one document's page under `option`. */
function pageUrl(option: Exclude<PageUrlOption, (document: PageDocument) => string>, document: PageDocument): string {
  const route = pageRoute(document.path)
  switch (option) {
    case 'vitepress':
      return `/${encodePath(route)}`
    case 'vitepress-html':
      return `/${encodePath(route)}${route === '' || route.endsWith('/') ? '' : '.html'}`
    case 'astro': {
      const slug = route.split('/').map(part => slugify(part, 'github')).join('/')
      return `/${encodePath(slug)}${slug === '' || slug.endsWith('/') ? '' : '/'}`
    }
    default:
      return option.replace(/\{(path|id)\}/g, (_, key: string) => encodePath(key === 'path' ? document.path.replace(/\.md$/i, '') : document.id))
  }
}

/**
 * The documents with their pages' URLs (`url`) under `option`. A function
 * that throws or returns no string is an error that names the document and
 * the option (the caller reports it as the build's error).
 */
export function withPageUrls<T extends PageDocument>(documents: readonly T[], option: PageUrlOption, optionName: string): (T & { url: string })[] {
  return documents.map((document) => {
    let url: unknown
    try {
      url = typeof option === 'function' ? option(document) : pageUrl(option, document)
    }
    catch (error) {
      throw new Error(`${optionName} failed for ${document.path}: ${excerptForMessage(error instanceof Error ? error.message : String(error), undefined, 200)}. Fix the function, or use a preset ('vitepress', 'vitepress-html', 'astro') or a pattern such as '/docs/{path}'.`)
    }
    if (typeof url !== 'string' || url === '')
      throw new Error(`${optionName} returned ${quoteForMessage(url)} for ${document.path}; it must return the page's URL (a non-empty string), e.g. '/guide/intro'.`)
    return { ...document, url }
  })
}
