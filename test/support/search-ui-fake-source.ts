// A SearchUISource over a fixed set of documents, for the component's tests in
// Chromium: it ranks by words (a document matches when its title, body or a
// heading has a query term), orders `lexical` by document number and
// `semantic` in reverse, so that a switch of ranking visibly reorders the list.
// The semantic ranking can be held until the test releases it, or fail.

import type { SearchUIExcerpt, SearchUIFacet, SearchUIResult, SearchUIResults, SearchUISource } from '../../src/runtime/search-ui/types'

interface FakeDocument {
  id: string
  title: string
  url: string
  category: string
  tags: string[]
  body: string
  headings: { title: string, anchor: string }[]
}

/** A hostile document: markup and script in every text, and links with schemes that run code. */
export const HOSTILE_TITLE = '<img src=x onerror="window.pwned=1">Hostile <b>title</b>'
const HOSTILE: FakeDocument = {
  id: 'hostile',
  title: HOSTILE_TITLE,
  url: 'javascript:window.pwned=2',
  category: '<i>guides</i>',
  tags: ['<script>window.pwned=3</script>'],
  body: 'hostile <script>window.pwned=4</script> <img src=x onerror="window.pwned=5"> text',
  headings: [{ title: '<svg onload="window.pwned=6">', anchor: 'x' }],
}

/** Fourteen dialog pages (enough to scroll the list), the first with real headings on its page. */
export const DOCUMENTS: FakeDocument[] = [
  ...Array.from({ length: 14 }, (_, i): FakeDocument => ({
    id: `guides/dialog-${i + 1}`,
    title: `Dialog pattern ${i + 1}`,
    url: i === 0 ? '/docs/dialogs.html' : `/docs/dialog-${i + 1}.html`,
    category: i % 2 === 0 ? 'guides' : 'reference',
    tags: i % 3 === 0 ? ['a11y', 'forms'] : ['a11y'],
    body: `A modal dialog blocks the page; light dismiss closes dialog ${i + 1} on a click outside.`,
    headings: [
      { title: 'Light dismiss', anchor: 'light-dismiss' },
      { title: 'Dialog focus', anchor: 'dialog-focus' },
      { title: 'Closing a dialog', anchor: 'closing-a-dialog' },
      { title: 'Dialog events', anchor: 'dialog-events' },
    ],
  })),
  HOSTILE,
]

const terms = (query: string) => query.toLowerCase().split(/\W+/).filter(Boolean)

/** `text` marked at every occurrence of a term. */
function excerpt(text: string, words: string[]): SearchUIExcerpt {
  const marks: [number, number][] = []
  const lower = text.toLowerCase()
  for (let at = 0; at < lower.length; at++) {
    const word = words.find(w => lower.startsWith(w, at))
    if (word) {
      marks.push([at, at + word.length])
      at += word.length - 1
    }
  }
  return { text, marks }
}

function facets(values: string[]): SearchUIFacet[] {
  const counts = new Map<string, number>()
  for (const value of values)
    counts.set(value, (counts.get(value) ?? 0) + 1)
  return [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || a.value.localeCompare(b.value))
}

/** How the fake's semantic ranking behaves. */
export type SemanticMode = 'on' | 'held' | 'fail' | 'off'

/** The fake source, and `release()` for a held semantic ranking. */
export function fakeSource(mode: SemanticMode): { source: SearchUISource, release: () => void, calls: string[] } {
  let release!: () => void
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const calls: string[] = []
  const source: SearchUISource = {
    semantic: mode !== 'off',
    async search(query, { ranking, filters }) {
      calls.push(`${ranking}:${query}`)
      if (ranking === 'semantic') {
        if (mode === 'held')
          await gate
        if (mode === 'fail')
          throw new Error('the query encoder failed')
      }
      const words = terms(query)
      const matching = DOCUMENTS.filter(d => words.some(w => `${d.title} ${d.body} ${d.headings.map(h => h.title).join(' ')}`.toLowerCase().includes(w)))
      const passing = matching.filter(d => (filters.categories.length === 0 || filters.categories.includes(d.category)) && filters.tags.every(t => d.tags.includes(t)))
      const ordered = ranking === 'semantic' ? [...passing].reverse() : passing
      const results: SearchUIResult[] = ordered.map(d => ({
        id: d.id,
        title: d.title,
        url: d.url,
        category: d.category,
        tags: d.tags,
        excerpt: excerpt(d.body, words),
        subResults: d.headings.filter(h => words.some(w => h.title.toLowerCase().includes(w))).map(h => ({
          title: h.title,
          url: d === HOSTILE ? 'data:text/html,<script>window.pwned=7</script>' : `${d.url}#${h.anchor}`,
          excerpt: excerpt(`${h.title}: ${d.body}`, words),
        })),
      }))
      const found: SearchUIResults = { ranking, results, categories: facets(matching.map(d => d.category)), tags: facets(matching.flatMap(d => d.tags)) }
      return found
    },
  }
  return { source, release, calls }
}
