// The routed index of the guides (offline router), browsable as an agent reads it:
// SKILL.md, the index pages, the catalog and llms.txt; their links open each other,
// and `references/<path>` opens the document itself. The pages load with the panel's
// first showing: they are not in the page's initial JavaScript.

import type { RoutesModule } from 'unplugin-skill-kit/runtime'
import { count, fill, h } from './dom'
import { guides } from './knowledge'
import { showMarkdown } from './lazy-markdown'

const ENTRY = 'SKILL.md'
const LLMS = 'llms.txt'

/** `page-10.md` after `page-9.md`, and `catalog.md` (the catalog's first page) before `catalog-1.md`. */
const natural = (a: string, b: string) => a.replace(/\.md$/, '').localeCompare(b.replace(/\.md$/, ''), 'en', { numeric: true })

let routes: RoutesModule | undefined

/** The routes module, imported once; in the dev server, its updates re-render the panel. */
async function loadRoutes(): Promise<RoutesModule> {
  if (!routes) {
    const module = await import('virtual:skill-kit/knowledge/guides/routes')
    routes = module.default
    module.onUpdate(render)
  }
  return routes
}

/** Every routed file by its path in the skill folder. */
function files(routes: RoutesModule): Map<string, string> {
  return new Map([
    [ENTRY, routes.skill],
    [LLMS, routes.llmsTxt],
    ...Object.keys(routes.pages).sort(natural).map(path => [path, routes.pages[path]!] as const),
    ...Object.keys(routes.catalog).sort(natural).map(path => [path, routes.catalog[path]!] as const),
  ])
}

/** A link of the file `from` as a hash of this page, or `undefined` when it leads nowhere in the skill. */
function resolver(routes: RoutesModule, from: string): (href: string) => string | undefined {
  return (href) => {
    if (/^[a-z][\w+.-]*:/i.test(href) || href.startsWith('#'))
      return undefined
    const path = new URL(href, `https://skill.invalid/${from}`).pathname.slice(1)
    return files(routes).has(path) || path.startsWith('references/') ? `#routes/${path}` : undefined
  }
}

function fileLink(path: string, open: string): HTMLLIElement {
  return h('li', {}, h('a', { href: `#routes/${path}`, ariaCurrent: path === open ? 'page' : null }, path))
}

let open = ENTRY

/** The Markdown rendered, its YAML frontmatter (SKILL.md's) shown as it is. */
async function showRendered(routes: RoutesModule, into: HTMLElement, text: string, path: string): Promise<void> {
  const frontmatter = /^---\n[\s\S]*?\n---\n/.exec(text)?.[0]
  const rest = h('div')
  fill(into, ...(frontmatter ? [h('pre', { className: 'frontmatter' }, frontmatter)] : []), rest)
  await showMarkdown(rest, frontmatter ? text.slice(frontmatter.length) : text, resolver(routes, path))
}

async function showFile(routes: RoutesModule, view: HTMLElement, path: string): Promise<void> {
  delete view.dataset.file
  const source = document.getElementById('routes-source') as HTMLInputElement
  const body = h('div', { className: 'markdown' })
  const title = h('h3', { tabIndex: -1 }, path)
  let text = files(routes).get(path)
  let note = text === undefined ? '' : `about ${count(Math.ceil(text.length / 4))} tokens`
  if (text === undefined && path.startsWith('references/')) {
    const card = Object.values(routes.cards).find(c => `references/${c.path}` === path)
    if (card) {
      text = await guides.retrieve(card.id)
      note = `${card.title} · ${card.topics.join(', ')} · about ${count(card.tokens)} tokens`
    }
  }
  fill(view, title, h('p', { className: 'muted' }, note), body)
  if (text === undefined)
    fill(body, h('p', { className: 'error' }, `The routed skill has no file ${path}.`))
  else if (source.checked)
    fill(body, h('pre', {}, text))
  else
    await showRendered(routes, body, text, path)
  view.dataset.file = path
}

function render(): void {
  const loaded = routes
  if (!loaded)
    return
  const all = files(loaded)
  const list = (paths: string[]) => h('ul', {}, ...paths.map(p => fileLink(p, open)))
  const paths = [...all.keys()]
  fill(document.getElementById('routes-files')!,
    h('h3', {}, 'Entry'), list([ENTRY, LLMS]),
    h('h3', {}, `Index pages (${Object.keys(loaded.pages).length})`), list(paths.filter(p => p in loaded.pages)),
    h('h3', {}, `Catalog (${Object.keys(loaded.catalog).length})`), list(paths.filter(p => p in loaded.catalog)),
  )
  document.getElementById('routes-summary')!.textContent = `${Object.keys(loaded.cards).length} documents, ${all.size} files an agent reads without a model.`
  void showFile(loaded, document.getElementById('routes-view')!, open)
}

/** Shows the routed file `path` (the entry page by default). */
export function showRoutes(path = ENTRY): void {
  open = path
  void loadRoutes().then(render)
}

export function setupRoutes(): void {
  document.getElementById('routes-source')!.addEventListener('change', render)
}
