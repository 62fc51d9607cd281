/**
 * An Astro site with Starlight (test/integrations/fixtures/astro) whose Search
 * component is ours (Pagefind off): built by `astro build` with the plugin in
 * its Vite config, deployed elsewhere, served and searched in Chromium. The
 * knowledge base is the site's content collection, linked by `url: 'astro'`
 * and Starlight's heading ids (github-slugger's, the default `anchors`).
 */
import { describe, expect, it } from 'vitest'
import { follow, openSite, search, siteUnderTest } from './site'

const site = siteUnderTest('astro', 'astro/astro.js', ['build'], 'dist')

describe('a Starlight site with our search', () => {
  it('finds the site\'s pages and headings by word, and a heading\'s result lands on it (Astro\'s anchor)', async () => {
    const { page, foreign, errors, close } = await openSite(site.browser, site.server.origin, '/')
    const shown = await search(page, 'beacon')
    expect(shown).toEqual([
      { title: 'Configuration', href: `${site.server.origin}/guide/configuration/`, sub: false },
      { title: 'Retention of beacons', href: `${site.server.origin}/guide/configuration/#retention-of-beacons`, sub: true },
      { title: 'Beacons: what\'s new in 2.0?', href: `${site.server.origin}/guide/configuration/#beacons-whats-new-in-20`, sub: true },
      { title: 'Getting started with Lantern', href: `${site.server.origin}/guide/getting-started/`, sub: false },
      { title: 'Your first beacon', href: `${site.server.origin}/guide/getting-started/#your-first-beacon`, sub: true },
    ])

    const heading = await follow(page, 'Beacons: what\'s new in 2.0?', `${site.server.origin}/guide/configuration/#beacons-whats-new-in-20`)
    // Astro's Markdown typesets the apostrophe; the id is the same either way.
    expect(heading.target).toEqual({ tag: 'h2', text: 'Beacons: what’s new in 2.0?' })

    // From that page, a result opens its page at the top.
    expect((await search(page, 'install')).filter(o => !o.sub).map(o => o.title)).toEqual(['Getting started with Lantern'])
    expect(await follow(page, 'Getting started with Lantern', `${site.server.origin}/guide/getting-started/`)).toEqual({ url: `${site.server.origin}/guide/getting-started/` })
    expect(await page.locator('h1').first().textContent()).toContain('Getting started with Lantern')

    expect(foreign).toEqual([])
    expect(errors).toEqual([])
    await close()
  }, 180_000)
})
