// Vite builds: `<link rel="preload">` in the HTML for the files every first
// search of a sharded knowledge base fetches (its snapshot core and its query
// table's core), so that the browser fetches them while the page's JavaScript
// downloads and runs, not after. Opt-in per base (`preloadHtml`): importing a
// knowledge base fetches nothing until its first search or `preload()`, so
// links a page did not ask for would cost every visit bytes it may never use.
// A page gets the links only when its entry imports the base statically, as
// Vite preloads only a page's static imports.

/** The links' attributes: they must match the runtime's `fetch(url)` (mode `cors`, credentials `same-origin`), or Chromium fetches the file twice. */
const LINK_ATTRIBUTES = { rel: 'preload', as: 'fetch', crossorigin: true } as const

/** A tag as Vite's `transformIndexHtml` takes it. */
export interface PreloadTag {
  tag: 'link'
  attrs: { rel: 'preload', as: 'fetch', crossorigin: true, href: string }
  injectTo: 'head'
}

/** The parts of an output chunk (Vite's `transformIndexHtml` context) this module reads. */
interface BundleChunk {
  type: 'chunk'
  imports: readonly string[]
  moduleIds: readonly string[]
}

/** What Vite's `transformIndexHtml` passes in a build (nothing of it in the dev server). */
export interface HtmlContext {
  chunk?: { fileName: string }
  bundle?: Record<string, { type: 'chunk' | 'asset' } | BundleChunk>
}

/**
 * The emitted files to preload, per knowledge module id, as their bundler
 * reference ids: Vite's HTML build replaces `__VITE_ASSET__<reference>__` with
 * the file's URL (its `base`, relative or not, and `renderBuiltUrl` applied).
 */
export class HtmlPreloads {
  private readonly files = new Map<string, readonly string[]>()

  /** Forgets the last build's files (at each build's start). */
  reset(): void {
    this.files.clear()
  }

  /** Notes the files module `id` fetches first (in the order they should be asked for). */
  record(id: string, references: readonly string[]): void {
    this.files.set(id, references)
  }

  /** The links for the page whose entry chunk is `context.chunk`: none when no recorded module is among its static imports. */
  tags(context: HtmlContext): PreloadTag[] {
    if (this.files.size === 0 || !context.chunk || !context.bundle)
      return []
    const tags: PreloadTag[] = []
    for (const id of staticModules(context.chunk.fileName, context.bundle)) {
      for (const reference of this.files.get(id) ?? [])
        tags.push({ tag: 'link', attrs: { ...LINK_ATTRIBUTES, href: `__VITE_ASSET__${reference}__` }, injectTo: 'head' })
    }
    return tags
  }
}

/** The ids of the modules in `entry` and in the chunks it imports statically, transitively. */
function staticModules(entry: string, bundle: NonNullable<HtmlContext['bundle']>): Set<string> {
  const modules = new Set<string>()
  const seen = new Set<string>()
  const pending = [entry]
  for (let fileName = pending.pop(); fileName !== undefined; fileName = pending.pop()) {
    const chunk = bundle[fileName]
    if (seen.has(fileName) || chunk?.type !== 'chunk')
      continue
    seen.add(fileName)
    const { imports, moduleIds } = chunk as BundleChunk
    moduleIds.forEach(id => modules.add(id))
    pending.push(...imports)
  }
  return modules
}
