// searchSource over a real lexical knowledge base built from Markdown the way
// a knowledge folder is: titles, excerpts with marks, sub-results per heading
// with the anchors the site's renderer makes, filters and their counts.

import type { KnowledgeSearchOptions } from '../../../src/runtime/knowledge/knowledge'
import { describe, expect, it } from 'vitest'
import { DiagnosticBag } from '../../../src/core/diagnostics'
import { chunkDocument } from '../../../src/knowledge/chunk'
import { parseKnowledgeDocument } from '../../../src/knowledge/document'
import { encodeSnapshot } from '../../../src/knowledge/snapshot'
import { createKnowledgeBase } from '../../../src/runtime/knowledge/knowledge'
import { decodeSnapshot } from '../../../src/runtime/knowledge/format/snapshot-reader'
import { searchSource } from '../../../src/runtime/search-ui/source'

const FILES: Record<string, string> = {
  'guide/dialogs.md': [
    '---\ntitle: Dialogs, done right\ncategory: ui\ntags: [modal, overlay]\n---',
    '# Dialogs\n\nA dialog is a window above the page.',
    '## Light dismiss {#light-dismiss}\n\nClose the dialog when the user clicks outside it, with `closedby="any"`.',
    '## Animating the dialog\n\nAnimations of the `<dialog>` element need `@starting-style` to animate its entry, and `allow-discrete` for its exit.',
    '```md\n# Not a heading\n```',
    '## Animating the dialog\n\nA second section of the same name: [its anchor](https://example.com) gets a suffix.',
  ].join('\n\n'),
  'guide/forms.md': '---\ncategory: forms\ntags: [input]\n---\n\n# Forms\n\n## Validation\n\nValidate input as the user types, and animate the error message in.\n',
  'notes.md': '---\ntags: [modal]\n---\n\nA page without headings that mentions a dialog once.\n',
}

/** A lexical knowledge base of FILES, chunked and indexed as a build does. */
function knowledgeBase(urls?: (path: string) => string) {
  const documents = Object.entries(FILES).map(([path, source]) => parseKnowledgeDocument(path, source, new DiagnosticBag(path))!)
  const chunks = documents.flatMap((d, i) => chunkDocument(d, i))
  const bytes = encodeSnapshot({
    model: '',
    encoding: 'none',
    lexical: true,
    documents: documents.map(d => ({ id: d.id, title: d.title, description: d.description, category: d.category, categories: d.categories, tags: d.tags, path: d.path })),
    chunks: chunks.map(c => ({ documentIndex: c.document, heading: c.title === undefined ? c.context : [...c.context, c.title], text: c.text })),
  })
  const metadata = decodeSnapshot(bytes).documents.map(d => urls ? { ...d, url: urls(d.path) } : d)
  const calls: KnowledgeSearchOptions[] = []
  const base = createKnowledgeBase({
    name: 'docs',
    documents: metadata,
    loadSnapshot: async () => bytes,
    bodies: metadata.map(d => async () => documents.find(doc => doc.id === d.id)!.body),
    vectors: false,
  })
  const search: typeof base.search = (query, options) => {
    calls.push(options ?? {})
    return base.search(query, options)
  }
  return { kb: { ...base, search }, calls }
}

const none = { categories: [], tags: [] }
const marked = (excerpt: { text: string, marks: readonly (readonly [number, number])[] } | undefined) =>
  excerpt?.marks.map(([from, to]) => excerpt.text.slice(from, to))

describe('searchSource', () => {
  it('titles a result, links it through the mapping, and lists its matching headings with their anchors, best first', async () => {
    const { kb, calls } = knowledgeBase(path => `/${path.replace(/\.md$/, '')}`)
    const { results, ranking } = await searchSource(kb).search('animating dialog', { ranking: 'lexical', filters: none })
    expect(ranking).toBe('lexical')
    expect(calls[0]!.mode).toBe('lexical')
    const dialogs = results[0]!
    expect(dialogs).toMatchObject({ id: 'guide/dialogs', title: 'Dialogs, done right', url: '/guide/dialogs', category: 'ui', tags: ['modal', 'overlay'] })
    expect(dialogs.subResults.map(s => [s.title, s.url])).toEqual([
      ['Animating the dialog', '/guide/dialogs#animating-the-dialog'],
      ['Animating the dialog', '/guide/dialogs#animating-the-dialog-1'],
      ['Light dismiss', '/guide/dialogs#light-dismiss'],
    ])
    // The best passage, its words and their stems marked (`Animations` and `animate` for `animating`).
    expect(dialogs.excerpt!.text).toBe('Animations of the <dialog> element need @starting-style to animate its entry, and allow-discrete for its exit. # Not a heading')
    expect(marked(dialogs.excerpt)).toEqual(['Animations', 'dialog', 'animate'])
    expect(marked(dialogs.subResults[2]!.excerpt)).toEqual(['dialog'])
    expect(results.map(r => r.id)).toEqual(['guide/dialogs', 'guide/forms'])
  })

  it('leads the sub-results with the section the ranking found best, whose words may not be the query\'s', async () => {
    const { kb } = knowledgeBase()
    // As a semantic ranking may: the best chunk under "Light dismiss", for a query of other words.
    const semantic = { ...kb, search: async (query: string, options?: KnowledgeSearchOptions) => (await kb.search(query, options)).map(r => r.id === 'guide/dialogs' ? { ...r, heading: ['Dialogs', 'Light dismiss {#light-dismiss}'] } : r) }
    const { results } = await searchSource(semantic).search('animating dialog', { ranking: 'semantic', filters: none })
    expect(results[0]!.subResults.map(s => s.url)).toEqual(['#doc/guide%2Fdialogs/light-dismiss', '#doc/guide%2Fdialogs/animating-the-dialog', '#doc/guide%2Fdialogs/animating-the-dialog-1'])
  })

  it('makes VitePress\'s anchors when asked, and hash-routed URLs by default', async () => {
    const { kb } = knowledgeBase()
    const source = searchSource(kb, { anchors: 'vitepress' })
    const [forms] = (await source.search('validation', { ranking: 'lexical', filters: none })).results
    expect(forms).toMatchObject({ url: '#doc/guide%2Fforms', subResults: [{ title: 'Validation', url: '#doc/guide%2Fforms/validation' }] })
  })

  it('marks the word being typed where it begins a word of the text', async () => {
    const { kb } = knowledgeBase()
    const { results } = await searchSource(kb).search('valid', { ranking: 'lexical', filters: none })
    expect(marked(results[0]?.excerpt)).toEqual(['Validate'])
  })

  it('filters by category and tags, counting each value over the unfiltered results', async () => {
    const { kb } = knowledgeBase()
    const source = searchSource(kb)
    const all = await source.search('dialog', { ranking: 'lexical', filters: none })
    expect(all.results.map(r => r.id)).toEqual(['guide/dialogs', 'notes'])
    // A page without headings has an excerpt and no sub-results; its title is its ID.
    expect(all.results[1]).toMatchObject({ title: 'notes', subResults: [], excerpt: { text: 'A page without headings that mentions a dialog once.' } })
    expect(all.categories).toEqual([{ value: 'ui', count: 1 }])
    expect(all.tags).toEqual([{ value: 'modal', count: 2 }, { value: 'overlay', count: 1 }])
    const overlay = await source.search('dialog', { ranking: 'lexical', filters: { categories: [], tags: ['modal', 'overlay'] } })
    expect(overlay.results.map(r => r.id)).toEqual(['guide/dialogs'])
    expect(overlay.tags).toEqual(all.tags)
    const ui = await source.search('dialog', { ranking: 'lexical', filters: { categories: ['forms', 'ui'], tags: [] } })
    expect(ui.results.map(r => r.id)).toEqual(['guide/dialogs'])
    const forms = await source.search('dialog', { ranking: 'lexical', filters: { categories: ['forms'], tags: [] } })
    expect(forms.results).toEqual([])
  })

  it('ranks semantically with the knowledge base\'s auto mode, and gives up a search the user typed past', async () => {
    const { kb, calls } = knowledgeBase()
    const source = searchSource(kb, { semantic: false })
    expect(source.semantic).toBe(false)
    // A knowledge module says whether it has vectors, and a dev-server update may change it.
    const module = Object.assign(Object.create(kb) as typeof kb, { vectors: 'pending' })
    const following = searchSource(module)
    expect([following.semantic, searchSource(kb).semantic]).toEqual([false, true])
    module.vectors = 'complete'
    expect(following.semantic).toBe(true)
    module.vectors = 'none'
    expect(following.semantic).toBe(false)
    // This base has no vectors: its auto search ranks by words, and the results say so.
    expect((await source.search('dialog', { ranking: 'semantic', filters: none })).ranking).toBe('lexical')
    // The filters count the first 30 by words; the semantic ranking asks for only the 8 shown (each costs vector rows), 30 with a filter on.
    expect(calls.slice(-2).map(({ mode, topK }) => ({ mode, topK }))).toEqual([{ mode: 'lexical', topK: 30 }, { mode: 'auto', topK: 8 }])
    await source.search('dialog', { ranking: 'semantic', filters: { categories: ['ui'], tags: [] } })
    expect(calls.at(-1)).toMatchObject({ mode: 'auto', topK: 30 })
    const controller = new AbortController()
    const searching = source.search('dialog', { ranking: 'lexical', filters: none, signal: controller.signal })
    controller.abort()
    await expect(searching).rejects.toMatchObject({ name: 'AbortError' })
  })

  it('takes URLs only from the mapping: a heading\'s link or markup ends up URL-encoded in the anchor', async () => {
    FILES['evil.md'] = '# Evil\n\n## <a href="javascript:alert(1)">Click</a> "quotes" & #hash {onclick}\n\nThe evil section about a dialog.\n'
    try {
      const { kb } = knowledgeBase(path => `/${path.replace(/\.md$/, '')}`)
      const { results } = await searchSource(kb).search('evil section', { ranking: 'lexical', filters: none })
      expect(results[0]).toMatchObject({ url: '/evil', subResults: [{ title: 'Click "quotes" & #hash {onclick}', url: '/evil#click-quotes--hash-onclick' }] })
    }
    finally {
      delete FILES['evil.md']
    }
  })
})
