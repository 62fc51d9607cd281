// The package entry imports in Node, where there is no DOM: VitePress and
// Astro render pages on the server, and a page that imports the component
// must build. Only calling defineSearchElement or mountSearch needs a browser.
import { expect, it } from 'vitest'

it('imports without a DOM, and touches none until it is called', async () => {
  expect(typeof (globalThis as { HTMLElement?: unknown }).HTMLElement).toBe('undefined')
  const ui = await import('../../../src/runtime/search-ui/index')
  expect(typeof ui.mountSearch).toBe('function')
  expect(typeof ui.defineSearchElement).toBe('function')
  expect(ui.SELECT_EVENT).toBe('skill-kit-search-select')
  expect(ui.DEFAULT_STRINGS.label).toBe('Search the docs')
})
