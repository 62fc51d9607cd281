// The page script of the component's Chromium tests (bundled by esbuild in
// test/support/search-ui-page.ts). The query string chooses the set-up:
// `semantic=on|held|fail|off`, `mount=element|function` (the custom element,
// or mountSearch on a div with French strings and the dark theme), `late=1`
// (the element gets its source only from `giveSource()`, as from a knowledge
// base loading lazily), `route=1` (select events are prevented, as a
// client-side router does). Test hooks on window: `releaseSemantic()`,
// `searchCalls`, `selected` (select events), `giveSource()`, `mountSearch`, `followed` (clicks
// not prevented).

import type { SemanticMode } from './search-ui-fake-source'
import { defineSearchElement, mountSearch, SELECT_EVENT } from '../../src/runtime/search-ui/index'
import { fakeSource } from './search-ui-fake-source'

const params = new URLSearchParams(location.search)
const { source, release, calls } = fakeSource((params.get('semantic') ?? 'on') as SemanticMode)
const hooks = window as unknown as { releaseSemantic: () => void, searchCalls: string[], selected: unknown[], giveSource: () => void, mountSearch: typeof mountSearch, followed: boolean[] }
hooks.releaseSemantic = release
hooks.searchCalls = calls
hooks.selected = []
hooks.mountSearch = mountSearch
document.addEventListener(SELECT_EVENT, (event) => {
  const { href, query, result, subResult } = (event as CustomEvent).detail
  hooks.selected.push({ href, query, id: result.id, heading: subResult?.title })
  // A client-side router takes the link over.
  if (params.has('route'))
    event.preventDefault()
})
// Whether each click (on an option: the component's handler ran before) will be followed.
hooks.followed = []
document.addEventListener('click', event => hooks.followed.push(!event.defaultPrevented))

if (params.get('mount') === 'function') {
  mountSearch(document.getElementById('mounted')!, source, {
    theme: 'dark',
    recent: false,
    strings: { button: 'Rechercher', label: 'Rechercher dans la documentation', placeholder: 'Un mot…', close: 'Fermer', manyResults: '{count} résultats pour « {query} »', rankingSemantic: 'classés par le sens.', summary: '{results}, {ranking}' },
  })
}
else {
  defineSearchElement()
  const element = document.querySelector('skill-kit-search') as HTMLElement & { source: unknown }
  hooks.giveSource = () => {
    element.source = source
  }
  if (!params.has('late'))
    hooks.giveSource()
}
document.body.dataset.ready = 'yes'
