// The search box and its results: lexical at once, the chosen ranking (auto by
// default) as soon as the model is ready; a result opens the document.

import type { KnowledgeSearchMode, KnowledgeSearchResult } from 'unplugin-skill-kit/runtime'
import type { ModelState } from './knowledge'
import { count, fill, h } from './dom'
import { guides, loadModel, modelState, onModelState } from './knowledge'
import { showMarkdown } from './lazy-markdown'

const TOP_K = 10

const MODE_NAMES: Record<KnowledgeSearchMode, string> = {
  auto: 'auto (vector and lexical scores fused)',
  vector: 'vector',
  lexical: 'lexical (BM25)',
  hybrid: 'hybrid (reciprocal rank fusion)',
}

interface SearchElements {
  input: HTMLInputElement
  mode: HTMLSelectElement
  modelStatus: HTMLElement
  results: HTMLElement
  summary: HTMLElement
  list: HTMLOListElement
  documentView: HTMLElement
}

/** Heading path of each document's best chunk in the results shown last: the opened document marks it. */
const matched = new Map<string, string[]>()
let sequence = 0
/** The query (its sequence number) whose chosen ranking is shown: its lexical stand-in must not replace it. */
let settled = 0

function elements(): SearchElements {
  const get = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
  return {
    input: get('q'),
    mode: get('mode'),
    modelStatus: get('model-state'),
    results: get('results'),
    summary: get('results-summary'),
    list: get('results-list'),
    documentView: get('document'),
  }
}

function showModelState(el: SearchElements, state: ModelState): void {
  el.modelStatus.dataset.state = state.state
  el.modelStatus.textContent = state.state === 'loading'
    ? 'Model: loading from this site… searching lexically meanwhile.'
    : state.state === 'ready'
      ? `Model: ready (loaded in ${count(state.ms)} ms).`
      : `Model: failed, searching lexically. ${state.reason}`
}

function resultItem(result: KnowledgeSearchResult): HTMLLIElement {
  const heading = result.heading.length > 0 ? result.heading.join(' › ') : '(title and description)'
  return h('li', {},
    h('a', { href: `#doc/${encodeURIComponent(result.id)}`, className: 'result', dataset: { id: result.id } },
      h('span', { className: 'result-id' }, result.id),
      h('span', { className: 'score', title: 'score' }, result.score.toFixed(3)),
      h('span', { className: 'heading' }, heading),
      h('span', { className: 'description' }, result.description),
    ),
  )
}

/**
 * Runs `query` in `mode` and shows it, unless a newer query started meanwhile,
 * or (`standIn`, lexical results shown until the chosen ranking's) the chosen ranking is shown already.
 */
async function rank(el: SearchElements, query: string, mode: KnowledgeSearchMode, id: number, standIn = false): Promise<void> {
  let results: KnowledgeSearchResult[]
  try {
    results = await guides.search(query, { mode, topK: TOP_K })
  }
  catch (error) {
    if (id === sequence)
      el.summary.textContent = `Search failed (${MODE_NAMES[mode]}): ${(error as Error).message}`
    return
  }
  if (id !== sequence || (standIn && settled === id))
    return
  if (!standIn)
    settled = id
  matched.clear()
  for (const result of results)
    matched.set(result.id, result.heading)
  el.results.dataset.query = query
  el.results.dataset.mode = mode
  const waiting = mode === 'lexical' && el.mode.value !== 'lexical' && modelState().state === 'loading'
  el.summary.textContent = `${results.length === 0 ? 'No guide matches' : `${results.length} ${results.length === 1 ? 'guide' : 'guides'}`} for “${query}”, ranked ${MODE_NAMES[mode]}${waiting ? '; the model is still loading' : ''}.`
  fill(el.list, ...results.map(resultItem))
}

/** Lexical results at once; the chosen ranking alongside, which waits for what it reads itself (the query table's rows, or the model). */
async function runSearch(el: SearchElements): Promise<void> {
  const query = el.input.value.trim()
  const id = ++sequence
  if (query === '') {
    matched.clear()
    delete el.results.dataset.query
    delete el.results.dataset.mode
    el.summary.textContent = `Type to search ${count(guides.documents.length)} guides.`
    fill(el.list)
    return
  }
  const wanted = el.mode.value as KnowledgeSearchMode
  const state = modelState().state
  if (wanted === 'lexical' || state === 'failed') {
    await rank(el, query, 'lexical', id)
    return
  }
  // Both at once: the lexical ranking shows first, unless the chosen one is in before it. The chosen one starts now,
  // not once `preload` is done: its query's rows are asked for as soon as the query table's core is in.
  const standIn = rank(el, query, 'lexical', id, true)
  await rank(el, query, wanted, id)
  await standIn
}

/** Shows the document `id`, marking the heading of its best chunk in the last results. */
export async function openDocument(id: string): Promise<void> {
  const el = elements()
  const view = el.documentView
  view.hidden = false
  el.results.hidden = true
  delete view.dataset.id
  const info = guides.documents.find(d => d.id === id)
  const body = h('div', { className: 'markdown' })
  const title = h('h2', { tabIndex: -1 }, id)
  fill(view,
    h('p', {}, h('a', { href: '#search' }, '← Back to the results')),
    title,
    info ? h('p', { className: 'muted' }, `${info.path} · ${info.category} · ${count(info.tokenCount)} tokens`) : '',
    body,
  )
  try {
    await showMarkdown(body, await guides.retrieve(id))
  }
  catch (error) {
    fill(body, h('p', { className: 'error' }, (error as Error).message))
  }
  const heading = matched.get(id)?.at(-1)
  const mark = heading && [...body.querySelectorAll('h1, h2, h3, h4, h5, h6')].find(e => e.textContent?.trim() === heading)
  if (mark) {
    mark.classList.add('match')
    mark.scrollIntoView({ block: 'start' })
  }
  view.dataset.id = id
  title.focus()
}

/** Back to the results list (the search panel without a document). */
export function showResults(): void {
  const el = elements()
  el.documentView.hidden = true
  el.results.hidden = false
}

/** The links of the results list. */
function links(el: SearchElements): HTMLAnchorElement[] {
  return [...el.list.querySelectorAll('a')]
}

/** Arrow keys move between the search box and the results. */
function keyboard(el: SearchElements): void {
  el.input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' && links(el).length > 0) {
      event.preventDefault()
      if (location.hash !== '#search' && location.hash !== '')
        location.hash = 'search'
      links(el)[0]!.focus()
    }
  })
  el.list.addEventListener('keydown', (event) => {
    const all = links(el)
    const at = all.indexOf(document.activeElement as HTMLAnchorElement)
    if (at < 0)
      return
    const next = event.key === 'ArrowDown' ? Math.min(at + 1, all.length - 1)
      : event.key === 'ArrowUp' ? at - 1
        : event.key === 'Home' ? 0
          : event.key === 'End' ? all.length - 1
            : event.key === 'Escape' ? -1
              : undefined
    if (next === undefined)
      return
    event.preventDefault()
    if (next < 0)
      el.input.focus()
    else
      all[next]!.focus()
  })
}

/** Wires the search box; the model starts loading now. */
export function setupSearch(onType: () => void): void {
  const el = elements()
  const search = () => void runSearch(el)
  el.input.addEventListener('input', () => {
    onType()
    search()
  })
  el.mode.addEventListener('change', search)
  keyboard(el)
  showModelState(el, modelState())
  onModelState((state) => {
    showModelState(el, state)
    // A search typed while the model loaded ranks in the chosen mode already; one that failed with it is run lexically.
    if (state.state === 'failed')
      search()
  })
  // A rebuilt index in the dev server: the same query, answered from it.
  guides.onUpdate(() => {
    search()
    const open = el.documentView.dataset.id
    if (open && !el.documentView.hidden)
      void openDocument(open)
  })
  search()
  loadModel()
}
