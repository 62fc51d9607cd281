// The Guides page: the 147 Modern Web Guidance guides, searched through the
// same component as the docs (mounted with `mountSearch`, its own recent
// searches, no page-wide shortcut: `/` and Ctrl+K stay the docs'), each guide
// at `#doc/<id>`, the search source's default route.

import { mountSearch, searchSource } from 'unplugin-skill-kit/search-ui'
import { count } from './dom'
import { guides } from './knowledge'
import { documentLinks, showPage } from './page'

/** Mounts the guides' search and starts readying its semantic ranking. */
export function setupGuides(): void {
  document.getElementById('guides-count')!.textContent = count(guides.documents.length)
  mountSearch(document.getElementById('guides-search')!, searchSource(guides), {
    shortcuts: false,
    recent: 'skill-kit-site:guides-recent',
    strings: { button: 'Search the guides', label: 'Search the guides', placeholder: 'e.g. lazy load images' },
  })
  void guides.preload({ mode: 'vector' }).catch(() => {
    // Shown by the search itself: it ranks by words and says so.
  })
  guides.onUpdate(() => {
    const view = document.getElementById('guide-view')!
    if (view.dataset.id !== undefined && !view.hidden)
      void openGuide(view.dataset.id, view.dataset.anchor || undefined, true)
  })
}

/** Shows guide `id` on the Guides page, at heading `anchor` if given; no ID: the page without a guide. */
export async function openGuide(id: string | undefined, anchor?: string, fresh = false): Promise<void> {
  const view = document.getElementById('guide-view')!
  view.hidden = id === undefined
  if (id !== undefined)
    await showPage(view, guides, id, anchor, from => documentLinks(guides, 'doc', from), fresh)
}
