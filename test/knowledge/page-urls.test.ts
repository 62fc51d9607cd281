// The `url` option: each document's page URL from its path, by preset, pattern or function.

import { describe, expect, it } from 'vitest'
import { withPageUrls } from '../../src/knowledge/page-urls'

const DOCS = ['index.md', 'guide/index.md', 'guide/intro.md', 'Guide/Getting Started.md', 'api/a#b.md'].map(path => ({ id: path.replace(/\.md$/, ''), path, category: '', tags: [] }))
const urls = (option: Parameters<typeof withPageUrls>[1]) => withPageUrls(DOCS, option, 'url').map(d => d.url)

describe('page URLs', () => {
  it('follows VitePress\'s routes, clean or .html', () => {
    expect(urls('vitepress')).toEqual(['/', '/guide/', '/guide/intro', '/Guide/Getting%20Started', '/api/a%23b'])
    expect(urls('vitepress-html')).toEqual(['/', '/guide/', '/guide/intro.html', '/Guide/Getting%20Started.html', '/api/a%23b.html'])
  })

  it('follows Astro\'s routes: slugged, lowercase, with a trailing slash', () => {
    expect(urls('astro')).toEqual(['/', '/guide/', '/guide/intro/', '/guide/getting-started/', '/api/ab/'])
  })

  it('fills a pattern\'s {path} and {id}, and calls a function', () => {
    expect(urls('/docs/{path}.html?from={id}')).toEqual(['/docs/index.html?from=index', '/docs/guide/index.html?from=guide/index', '/docs/guide/intro.html?from=guide/intro', '/docs/Guide/Getting%20Started.html?from=Guide/Getting%20Started', '/docs/api/a%23b.html?from=api/a%23b'])
    expect(urls(d => `https://example.com/${d.id}`)[2]).toBe('https://example.com/guide/intro')
  })

  it('says which document a function failed for, and what it must return', () => {
    expect(() => withPageUrls(DOCS, () => 42 as unknown as string, 'The url option of "docs"')).toThrow('The url option of "docs" returned 42 for index.md; it must return the page\'s URL (a non-empty string), e.g. \'/guide/intro\'.')
    expect(() => withPageUrls(DOCS, (d) => {
      throw new Error(`no route for ${d.path}`)
    }, 'The url option of "docs"')).toThrow('The url option of "docs" failed for index.md: no route for index.md. Fix the function, or use a preset (\'vitepress\', \'vitepress-html\', \'astro\') or a pattern such as \'/docs/{path}\'.')
  })
})
