// The filters: one toggle button per category and tag of the unfiltered
// results, with its count. A chosen value stays shown (count 0) even when the
// new results lack it, so that it can be unchosen.

import type { SearchUIFacet } from './types'
import type { SearchUIStrings } from './strings'
import { h } from './dom'
import { fill } from './strings'

/** Replaces `group`'s buttons by those of `facets` (chosen ones pressed); `toggle` runs on a press. */
export function renderFacets(group: HTMLElement, label: string, facets: readonly SearchUIFacet[], chosen: ReadonlySet<string>, strings: SearchUIStrings, toggle: (value: string) => void): void {
  const shown = [...facets]
  for (const value of chosen) {
    if (!shown.some(f => f.value === value))
      shown.push({ value, count: 0 })
  }
  // The buttons are made anew: the one pressed keeps focus through it (keyboard users stay put).
  const focused = (group.getRootNode() as ShadowRoot).activeElement
  const focusedValue = focused?.parentElement === group ? (focused as HTMLElement).dataset.value : undefined
  group.hidden = shown.length === 0
  const buttons = shown.map((facet) => {
    const button = h('button', { 'type': 'button', 'class': 'facet', 'aria-pressed': String(chosen.has(facet.value)), 'data-value': facet.value }, fill(strings.facet, { value: facet.value, count: facet.count }))
    button.addEventListener('click', () => toggle(facet.value))
    return button
  })
  group.replaceChildren(h('span', { 'aria-hidden': 'true' }, label), ...buttons)
  buttons.find(b => b.dataset.value === focusedValue)?.focus()
}
