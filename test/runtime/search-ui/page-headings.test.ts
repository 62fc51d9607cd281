// pageHeadings: the ids a site that renders its own Markdown gives its
// headings, the same the search UI's sub-results link to (source.test.ts
// expects these anchors of the same page).

import { describe, expect, it } from 'vitest'
import { pageHeadings } from '../../../src/runtime/search-ui'

const PAGE = [
  '# Dialogs',
  'A dialog is a window above the page.',
  '## Light dismiss {#light-dismiss}',
  'Close it with `closedby="any"`.',
  '## Animating the `<dialog>` **now**',
  '```md\n# Not a heading\n```',
  '## Animating the `<dialog>` **now**',
  'API: v2.0 — what\'s new\n---',
].join('\n\n')

describe('pageHeadings', () => {
  it('lists a page\'s headings as they render, with the anchors of searchSource: explicit ids, slugs, repeats numbered, none in code', () => {
    expect(pageHeadings(PAGE)).toEqual([
      { text: 'Dialogs', level: 1, anchor: 'dialogs' },
      { text: 'Light dismiss', level: 2, anchor: 'light-dismiss' },
      { text: 'Animating the <dialog> now', level: 2, anchor: 'animating-the-dialog-now' },
      { text: 'Animating the <dialog> now', level: 2, anchor: 'animating-the-dialog-now-1' },
      { text: 'API: v2.0 — what\'s new', level: 2, anchor: 'api-v20--whats-new' },
    ])
  })

  it('makes VitePress\'s ids when asked', () => {
    expect(pageHeadings(PAGE, 'vitepress').map(h => h.anchor)).toEqual(['dialogs', 'light-dismiss', 'animating-the-dialog-now', 'animating-the-dialog-now-1', 'api-v2-0-—-what-s-new'])
  })
})
