// The search dialog behind a button, as the WAI-ARIA combobox pattern: focus
// stays in the box, arrows move `aria-activedescendant` through the listbox's
// options, Enter opens the active one. Lexical results show as the user types
// and the semantic ranking replaces them when it is ready, keeping the active
// option (by result ID) and its place on screen, so nothing moves under the
// user's eyes or keys. Everything lives in the element's shadow root.

import type { OptionTarget } from './options'
import type { SearchUIStrings } from './strings'
import type { SearchUIResults, SearchUISource } from './types'
import { h } from './dom'
import { renderFacets } from './facets'
import { OptionFactory } from './options'
import { readRecent, rememberRecent } from './recent'
import { DEFAULT_STRINGS, fill } from './strings'
import { STYLES } from './styles'

/** How `mountSearch` behaves. */
export interface SearchUIOptions {
  /** Replaces any of the visible strings (English by default). */
  strings?: Partial<SearchUIStrings>
  /** `dark` or `light` forces a theme; `auto` (default) follows `prefers-color-scheme`. Sets the element's `theme` attribute. */
  theme?: 'auto' | 'light' | 'dark'
  /** Whether `/` and Ctrl/Cmd+K anywhere on the page open this search (default `true`; turn off for all but one of several). */
  shortcuts?: boolean
  /** The localStorage key of the recent searches (default `skill-kit-search:recent`), or `false` to keep none. */
  recent?: string | false
}

/** Detail of the `skill-kit-search-select` event, fired (cancelable) before a result's link is followed. */
export interface SearchUISelectDetail extends Omit<OptionTarget, 'key' | 'query'> {
  /** The resolved, checked URL about to be followed. */
  href: string
  query: string
}

/** What `mountSearch` returns. */
export interface SearchUIHandle {
  /** Opens the dialog, with `query` in the box if given. */
  open: (query?: string) => void
  close: () => void
  /** Sets (or replaces) the source: a search waiting for one runs. */
  setSource: (source: SearchUISource) => void
  /** Removes the component and its page-wide key listener. */
  destroy: () => void
}

/** The event a chosen result fires on the element; `preventDefault()` keeps the link from being followed (client-side routers). */
export const SELECT_EVENT = 'skill-kit-search-select'

let instances = 0

/**
 * Mounts the search (a button opening a dialog) into `element`'s shadow root.
 * `source` may come later through `setSource` (a knowledge base loading lazily).
 */
export function mountSearch(element: HTMLElement, source: SearchUISource | undefined, options: SearchUIOptions = {}): SearchUIHandle {
  const strings: SearchUIStrings = { ...DEFAULT_STRINGS, ...options.strings }
  const recentKey = options.recent === false ? undefined : options.recent ?? 'skill-kit-search:recent'
  const prefix = `sks${instances++}`
  if (options.theme && options.theme !== 'auto')
    element.setAttribute('theme', options.theme)
  const root = element.shadowRoot ?? shadowOf(element)
  const factory = new OptionFactory(`${prefix}-o`, () => document.baseURI)

  const apple = /Mac|iPhone|iPad/.test(navigator.userAgent)
  const button = h('button', { 'type': 'button', 'class': 'open', 'part': 'button', 'aria-haspopup': 'dialog' }, strings.button, h('kbd', { 'aria-hidden': 'true' }, apple ? strings.buttonShortcutApple : strings.buttonShortcut))
  const input = h('input', {
    'type': 'text',
    'role': 'combobox',
    'aria-label': strings.label,
    'placeholder': strings.placeholder,
    'aria-expanded': 'false',
    'aria-controls': `${prefix}-list`,
    'aria-autocomplete': 'list',
    'autocomplete': 'off',
    'spellcheck': 'false',
    'enterkeyhint': 'search',
  })
  const close = h('button', { type: 'button', class: 'close' }, strings.close)
  const categories = h('div', { 'class': 'facets', 'role': 'group', 'aria-label': strings.categories })
  const tags = h('div', { 'class': 'facets', 'role': 'group', 'aria-label': strings.tags })
  const filters = h('div', { class: 'filters' }, categories, tags)
  const status = h('p', { 'class': 'status', 'role': 'status', 'aria-live': 'polite' })
  const list = h('div', { 'role': 'listbox', 'id': `${prefix}-list`, 'aria-label': strings.results })
  const panel = h('div', { 'class': 'panel', 'data-state': 'idle' }, h('div', { class: 'bar' }, input, close), filters, status, list, h('p', { 'class': 'keys', 'aria-hidden': 'true' }, strings.keys))
  const dialog = h('dialog', { 'part': 'dialog', 'aria-label': strings.label }, panel)
  root.replaceChildren(h('style', {}, STYLES), button, dialog)

  let current = source
  let query = ''
  const chosen = { categories: new Set<string>(), tags: new Set<string>() }
  let sequence = 0
  let pending: AbortController | undefined
  let active: HTMLElement | undefined
  let recent = recentKey ? readRecent(recentKey) : []
  /** The lexical results shown last, and how to rank their query semantically. */
  let shownLexical: { id: number, results: SearchUIResults, run: (ranking: 'semantic') => Promise<SearchUIResults> } | undefined
  let semanticRunning = false
  let semanticAgain = false

  const allOptions = () => Array.from(list.querySelectorAll<HTMLElement>('[role=option]'))

  function setActive(option: HTMLElement | undefined, scroll: boolean): void {
    active?.setAttribute('aria-selected', 'false')
    active = option
    if (option) {
      option.setAttribute('aria-selected', 'true')
      input.setAttribute('aria-activedescendant', option.id)
      if (scroll)
        option.scrollIntoView({ block: 'nearest' })
    }
    else {
      input.removeAttribute('aria-activedescendant')
    }
  }

  /**
   * Replaces the options by those `make` creates, keeping the active one (same
   * key) where it was on screen: measured on screen, not in the list, because
   * the status line and the filters above the list may change height too
   * (`above` changes them, after the measure).
   */
  function showOptions(make: () => HTMLElement[], keepActive: boolean, above?: () => void): void {
    const key = keepActive ? active?.dataset.key : undefined
    const top = active?.getBoundingClientRect().top
    above?.()
    factory.reset()
    active = undefined
    list.replaceChildren(...make())
    input.setAttribute('aria-expanded', String(allOptions().length > 0))
    const again = key === undefined ? undefined : allOptions().find(o => o.dataset.key === key)
    setActive(again, false)
    if (again && top !== undefined)
      list.scrollTop += again.getBoundingClientRect().top - top
    else if (!keepActive)
      list.scrollTop = 0
  }

  function showRecent(): void {
    panel.dataset.state = 'idle'
    panel.removeAttribute('data-query')
    panel.removeAttribute('data-ranking')
    status.textContent = ''
    filters.hidden = true
    if (recent.length === 0)
      return showOptions(() => [], false)
    const labelId = `${prefix}-recent`
    showOptions(() => [h('div', { 'role': 'group', 'aria-labelledby': labelId }, h('div', { class: 'group-label', id: labelId }, strings.recent), ...recent.map(q => factory.recent(q)))], false)
  }

  function showResults(found: SearchUIResults, semanticPending: boolean, semanticFailed: boolean, keepActive: boolean): void {
    const toggle = (set: Set<string>) => (value: string) => {
      if (!set.delete(value))
        set.add(value)
      void search(true)
    }
    const count = found.results.length
    const ranking = found.ranking === 'semantic'
      ? strings.rankingSemantic
      : semanticPending ? strings.rankingLexicalPending : semanticFailed ? strings.rankingFallback : strings.rankingLexical
    showOptions(() => found.results.flatMap(r => factory.result(r)), keepActive, () => {
      renderFacets(categories, strings.categories, found.categories, chosen.categories, strings, toggle(chosen.categories))
      renderFacets(tags, strings.tags, found.tags, chosen.tags, strings, toggle(chosen.tags))
      filters.hidden = categories.hidden && tags.hidden
      status.textContent = count === 0
        ? fill(strings.noResults, { query })
        : fill(strings.summary, { results: fill(count === 1 ? strings.oneResult : strings.manyResults, { count, query }), ranking })
    })
    panel.dataset.state = semanticPending ? 'pending' : 'done'
    panel.dataset.query = query
    panel.dataset.ranking = found.ranking
  }

  /** Runs the box's query: lexical, then semantic (if the source has it). `keepActive`: the same query, re-filtered. */
  async function search(keepActive: boolean): Promise<void> {
    const id = ++sequence
    pending?.abort()
    pending = undefined
    if (!query.trim())
      return showRecent()
    panel.dataset.state = 'searching'
    // Said only when nothing else is shown: between keystrokes it would flicker.
    if (!current || allOptions().length === 0 || !panel.dataset.query)
      status.textContent = fill(strings.searching, { query })
    if (!current)
      return
    const controller = pending = new AbortController()
    const picked = { categories: [...chosen.categories], tags: [...chosen.tags] }
    const run = (ranking: 'lexical' | 'semantic') => current!.search(query, { ranking, filters: picked, signal: controller.signal })
    let lexical: SearchUIResults
    try {
      lexical = await run('lexical')
    }
    catch (error) {
      if (id === sequence) {
        panel.dataset.state = 'failed'
        status.textContent = fill(strings.failed, { reason: error instanceof Error ? error.message : String(error) })
      }
      return
    }
    if (id !== sequence)
      return
    const semantic = current.semantic
    showResults(lexical, semantic, false, keepActive)
    if (semantic) {
      shownLexical = { id, results: lexical, run }
      requestSemantic()
    }
  }

  /**
   * One semantic search at a time, for the newest query shown: a source may not
   * be able to stop an encoder pass when its signal aborts, so searches for the
   * prefixes typed meanwhile are skipped rather than queued behind each other.
   */
  function requestSemantic(): void {
    if (semanticRunning) {
      semanticAgain = true
      return
    }
    semanticRunning = true
    void (async () => {
      do {
        semanticAgain = false
        const { id, results, run } = shownLexical!
        try {
          const ranked = await run('semantic')
          if (id === sequence)
            showResults(ranked, false, false, true)
        }
        catch {
          if (id === sequence)
            showResults(results, false, true, true)
        }
      } while (semanticAgain)
      semanticRunning = false
    })()
  }

  function open(text?: string): void {
    if (!dialog.open)
      dialog.showModal()
    if (text !== undefined && text !== input.value) {
      input.value = query = text
      void search(false)
    }
    else if (!query) {
      showRecent()
    }
    input.focus()
    input.select()
  }

  /** What happens when an option is clicked or chosen with Enter. */
  function choose(event: MouseEvent): void {
    const option = (event.target as Element).closest<HTMLAnchorElement>('[role=option]')
    const target = option && factory.targets.get(option.id)
    if (!option || !target)
      return
    if (target.query !== undefined || !option.href) {
      event.preventDefault()
      if (target.query !== undefined)
        open(target.query)
      return
    }
    const detail: SearchUISelectDetail = { href: option.href, query, result: target.result, subResult: target.subResult }
    if (!element.dispatchEvent(new CustomEvent(SELECT_EVENT, { detail, bubbles: true, composed: true, cancelable: true })))
      event.preventDefault()
    if (recentKey)
      recent = rememberRecent(recentKey, query)
    dialog.close()
  }

  function move(step: 1 | -1): void {
    const all = allOptions()
    if (all.length === 0)
      return
    const at = active ? all.indexOf(active) : -1
    const next = at === -1 ? (step === 1 ? 0 : all.length - 1) : (at + step + all.length) % all.length
    setActive(all[next], true)
  }

  function onInputKey(event: KeyboardEvent): void {
    if (event.isComposing)
      return
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      move(event.key === 'ArrowDown' ? 1 : -1)
    }
    else if (event.key === 'Enter' && active) {
      event.preventDefault()
      active.click()
    }
  }

  /** `/` (outside fields) and Ctrl/Cmd+K, anywhere on the page. */
  function onPageKey(event: KeyboardEvent): void {
    if (event.defaultPrevented || event.isComposing)
      return
    const shortcut = event.key.toLowerCase() === 'k' && (event.ctrlKey || event.metaKey) && !event.altKey
    const slash = event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && !editable(event.composedPath()[0])
    if (shortcut || slash) {
      event.preventDefault()
      open()
    }
  }

  button.addEventListener('click', () => open())
  close.addEventListener('click', () => dialog.close())
  // A click on the backdrop lands on the dialog itself (the panel covers the rest).
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog)
      dialog.close()
  })
  input.addEventListener('input', () => {
    query = input.value
    void search(false)
  })
  input.addEventListener('keydown', onInputKey)
  list.addEventListener('click', choose)
  // The pointer makes an option active only when it moves, not when the list moves under it.
  list.addEventListener('mousemove', (event) => {
    const option = (event.target as Element).closest<HTMLElement>('[role=option]')
    if (option && option !== active)
      setActive(option, false)
  })
  if (options.shortcuts !== false)
    document.addEventListener('keydown', onPageKey)

  return {
    open,
    close: () => dialog.close(),
    setSource(next) {
      current = next
      if (query.trim())
        void search(true)
    },
    destroy() {
      pending?.abort()
      sequence++
      document.removeEventListener('keydown', onPageKey)
      root.replaceChildren()
    },
  }
}

function editable(target: EventTarget | undefined): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(?:INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
}

/** `element`'s new shadow root, or an error that says which elements can hold one. */
function shadowOf(element: HTMLElement): ShadowRoot {
  try {
    return element.attachShadow({ mode: 'open' })
  }
  catch {
    throw new Error(`mountSearch cannot mount into <${element.localName}>: it takes no shadow root. Mount the search into a <div>, a <span> or a custom element.`)
  }
}
