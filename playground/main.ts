// In an app that installs the package: /// <reference types="unplugin-skill-kit/client" />
// Inside this repo TypeScript cannot resolve a type reference to the package's own name, so point at the file.
/// <reference path="../client.d.ts" />
// The page: four panels behind the location's hash (#search, #doc/<id>, #skills/<name>/<section>,
// #activation, #routes/<file>), so that every state has a link, survives HMR and has a back button.
import { openDocument, setupSearch, showResults } from './src/search'

const PANELS = ['search', 'skills', 'activation', 'routes'] as const
type Panel = typeof PANELS[number]

/** `load`, called once: later calls share its promise. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined
  return () => loaded ??= load()
}

/** Sets up panel `name` with `setup` once its chunk is in, and marks the panel ready (`data-ready`). */
function panel<T>(name: string, load: () => Promise<T>, setup: (module: T) => void): () => Promise<T> {
  return once(() => load().then((module) => {
    setup(module)
    document.getElementById(`panel-${name}`)!.dataset.ready = 'yes'
    return module
  }))
}

/**
 * The panels behind tabs, each a lazy chunk set up on its first showing (or
 * fetched when its tab is pointed at or focused): the first paint is the
 * search panel, and what the others parse and run (the skills' runtime, the
 * activation simulator) would delay its first search.
 */
const lazyPanels = {
  skills: panel('skills', () => import('./src/skills'), m => m.setupSkills()),
  activation: panel('activation', () => import('./src/activation'), m => m.setupActivation()),
  routes: panel('routes', () => import('./src/routes'), m => m.setupRoutes()),
}

function showPanel(panel: Panel): void {
  for (const name of PANELS)
    document.getElementById(`panel-${name}`)!.hidden = name !== panel
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav.tabs a'))
    link.ariaCurrent = link.hash === `#${panel}` ? 'page' : null
}

/** Shows what the hash names. */
function route(): void {
  const [head = 'search', ...rest] = location.hash.slice(1).split('/').map(decodeURIComponent)
  if (head === 'doc' && rest.length > 0) {
    showPanel('search')
    void openDocument(rest.join('/'))
    return
  }
  const panel: Panel = (PANELS as readonly string[]).includes(head) ? head as Panel : 'search'
  showPanel(panel)
  if (panel === 'search')
    showResults()
  else if (panel === 'skills')
    void lazyPanels.skills().then(m => m.showSkills(rest[0], rest[1]))
  else if (panel === 'activation')
    void lazyPanels.activation()
  else if (panel === 'routes')
    void lazyPanels.routes().then(m => m.showRoutes(rest.length > 0 ? rest.join('/') : undefined))
}

/** Ctrl/Cmd+K anywhere, and `/` outside a text field, focus the search box. */
function shortcuts(input: HTMLInputElement): void {
  document.addEventListener('keydown', (event) => {
    const target = event.target as HTMLElement
    const typing = target.closest('input, textarea, select, [contenteditable="true"]') !== null
    if (((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') || (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey)) {
      event.preventDefault()
      input.focus()
      input.select()
    }
  })
}

const input = document.getElementById('q') as HTMLInputElement
for (const form of document.querySelectorAll('form'))
  form.addEventListener('submit', event => event.preventDefault())
setupSearch(() => {
  // Typing shows the results, wherever the page was.
  if (location.hash !== '#search' && location.hash !== '')
    location.hash = 'search'
})
shortcuts(input)
for (const link of document.querySelectorAll<HTMLAnchorElement>('nav.tabs a')) {
  const name = link.hash.slice(1)
  if (name in lazyPanels) {
    const load = () => void lazyPanels[name as keyof typeof lazyPanels]()
    link.addEventListener('pointerenter', load, { once: true })
    link.addEventListener('focus', load, { once: true })
  }
}
addEventListener('hashchange', route)
route()
document.body.dataset.ready = 'yes'
