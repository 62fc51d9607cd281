// In an app that installs the package: /// <reference types="unplugin-skill-kit/client" />
// Inside this repo TypeScript cannot resolve a type reference to the package's own name, so point at the file.
/// <reference path="../client.d.ts" />
// The docs site: our docs/ as pages and as the search's knowledge base, and four more panels,
// all behind the location's hash (#docs/<id>/<anchor>, #guides, #doc/<guide id>/<anchor>,
// #skills/<name>/<section>, #activation, #routes/<file>), so that every state has a link,
// survives HMR and has a back button, and the built site is one HTML file any static host serves.
import { setupDocs, showDoc } from './src/docs'
import { routeParts } from './src/page'

const PANELS = ['docs', 'guides', 'skills', 'activation', 'routes'] as const
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
 * fetched when its tab is pointed at or focused): the first paint is a docs
 * page, and what the others parse and run (the guides' knowledge base, the
 * skills' runtime, the activation simulator) would delay its first search.
 */
const lazyPanels = {
  guides: panel('guides', () => import('./src/guides'), m => m.setupGuides()),
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
  const [head = 'docs', ...rest] = location.hash.slice(1).split('/').map(decodeURIComponent)
  // A guide (`#doc/<id>`, the search source's default link) shows on the Guides page.
  const panel: Panel = head === 'doc' ? 'guides' : (PANELS as readonly string[]).includes(head) ? head as Panel : 'docs'
  showPanel(panel)
  if (panel === 'docs') {
    const { id, anchor } = routeParts(head === 'docs' ? rest : [])
    void showDoc(id, anchor)
  }
  else if (panel === 'guides') {
    const { id, anchor } = routeParts(rest)
    void lazyPanels.guides().then(m => m.openGuide(head === 'doc' ? id : undefined, anchor))
  }
  else if (panel === 'skills') {
    void lazyPanels.skills().then(m => m.showSkills(rest[0], rest[1]))
  }
  else if (panel === 'activation') {
    void lazyPanels.activation()
  }
  else if (panel === 'routes') {
    void lazyPanels.routes().then(m => m.showRoutes(rest.length > 0 ? rest.join('/') : undefined))
  }
}

for (const form of document.querySelectorAll('form'))
  form.addEventListener('submit', event => event.preventDefault())
setupDocs()
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
