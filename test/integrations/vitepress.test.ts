/**
 * A VitePress site (test/integrations/fixtures/vitepress) whose default theme's
 * search is ours: built by `vitepress build` with the plugin in its Vite
 * config, deployed elsewhere, served with clean URLs and searched in Chromium.
 * The knowledge base is the site's own pages, linked by `url: 'vitepress'` and
 * VitePress's heading ids (`anchors: 'vitepress'`).
 */
import { describe, expect, it } from 'vitest'
import { follow, openSite, search, siteUnderTest } from './site'

const site = siteUnderTest('vitepress', 'vitepress/bin/vitepress.js', ['build', 'docs'], 'docs/.vitepress/dist')

describe('a VitePress site with our search', () => {
  it('finds the site\'s pages and headings by word, and a heading\'s result lands on it (VitePress\'s anchor)', async () => {
    const { page, foreign, errors, close } = await openSite(site.browser, site.server.origin, '/')
    const shown = await search(page, 'beacon')
    expect(shown).toEqual([
      { title: 'Configuration', href: `${site.server.origin}/guide/configuration`, sub: false },
      { title: 'Retention of beacons', href: `${site.server.origin}/guide/configuration#retention-of-beacons`, sub: true },
      { title: 'Beacons: what\'s new in 2.0?', href: `${site.server.origin}/guide/configuration#beacons-what-s-new-in-2-0`, sub: true },
      { title: 'Getting started with Lantern', href: `${site.server.origin}/guide/getting-started`, sub: false },
      { title: 'Your first beacon', href: `${site.server.origin}/guide/getting-started#your-first-beacon`, sub: true },
    ])

    const heading = await follow(page, 'Beacons: what\'s new in 2.0?', `${site.server.origin}/guide/configuration#beacons-what-s-new-in-2-0`)
    expect(heading.target?.tag).toBe('h2')
    expect(heading.target?.text).toContain('Beacons: what\'s new in 2.0?')

    // From that page, a result opens its page at the top.
    expect((await search(page, 'install')).filter(o => !o.sub).map(o => o.title)).toEqual(['Getting started with Lantern'])
    expect(await follow(page, 'Getting started with Lantern', `${site.server.origin}/guide/getting-started`)).toEqual({ url: `${site.server.origin}/guide/getting-started` })
    expect(await page.locator('h1').first().textContent()).toContain('Getting started')

    expect(foreign).toEqual([])
    expect(errors).toEqual([])
    await close()
  }, 180_000)
})
