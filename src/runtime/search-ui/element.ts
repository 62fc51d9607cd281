// `<skill-kit-search>`: the component as a custom element, for sites that
// write HTML. It needs a source, which only script can give (a knowledge base
// is a module): `document.querySelector('skill-kit-search').source = searchSource(kb)`.
// The class is made on demand, not at import: importing the package during
// server-side rendering (VitePress, Astro) must not touch `HTMLElement`.
// Registration is a call, not an import's side effect, because the package is
// `"sideEffects": false` and bundlers drop a bare import.

import type { SearchUIHandle, SearchUIOptions } from './mount'
import type { SearchUIStrings } from './strings'
import type { SearchUISource } from './types'
import { mountSearch } from './mount'

/** The element's script-side interface. */
export interface SearchElement extends HTMLElement {
  /** Where results come from; setting it (again) starts or reruns searches. */
  source: SearchUISource | undefined
  /** Strings replacing the defaults; set before the element is connected. */
  strings: Partial<SearchUIStrings> | undefined
  /** Opens the dialog, with `query` in the box if given. */
  open: (query?: string) => void
  close: () => void
}

/**
 * Defines `<skill-kit-search>` (or `name`) once and returns its class.
 * Attributes: `theme` (`light`, `dark`; absent follows the system),
 * `no-shortcuts` (`/` and Ctrl/Cmd+K do not open it), `recent-key`
 * (localStorage key of the recent searches; `recent-key="off"` keeps none).
 */
export function defineSearchElement(name = 'skill-kit-search'): CustomElementConstructor {
  const defined = customElements.get(name)
  if (defined)
    return defined
  class SkillKitSearch extends HTMLElement implements SearchElement {
    strings: Partial<SearchUIStrings> | undefined
    private handle: SearchUIHandle | undefined
    private current: SearchUISource | undefined

    get source(): SearchUISource | undefined {
      return this.current
    }

    set source(source: SearchUISource | undefined) {
      this.current = source
      if (source)
        this.handle?.setSource(source)
    }

    connectedCallback(): void {
      const recent = this.getAttribute('recent-key')
      const options: SearchUIOptions = {
        strings: this.strings,
        shortcuts: !this.hasAttribute('no-shortcuts'),
        recent: recent === 'off' ? false : recent ?? undefined,
      }
      this.handle = mountSearch(this, this.current, options)
    }

    disconnectedCallback(): void {
      this.handle?.destroy()
      this.handle = undefined
    }

    open(query?: string): void {
      this.handle?.open(query)
    }

    close(): void {
      this.handle?.close()
    }
  }
  customElements.define(name, SkillKitSearch)
  return SkillKitSearch
}
