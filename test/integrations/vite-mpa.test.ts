/**
 * A plain multi-page Vite site (test/integrations/fixtures/vite-mpa): three
 * HTML entries, the search mounted on each, built by `vite build` with the
 * plugin, deployed elsewhere, served and searched in Chromium. The knowledge
 * base is the pages' text in Markdown, linked to the pages by a `url` pattern.
 */
import { describe, expect, it } from 'vitest'
import { follow, openSite, search, siteUnderTest } from './site'

const site = siteUnderTest('vite-mpa', 'vite/bin/vite.js', ['build'], 'dist')

describe('a multi-page Vite site with our search', () => {
  it('searches from every page, and a heading\'s result lands on it', async () => {
    const { page, foreign, errors, close } = await openSite(site.browser, site.server.origin, '/index.html')
    const shown = await search(page, 'beacon')
    expect(shown).toEqual([
      { title: 'Configuration', href: `${site.server.origin}/guide/configuration.html`, sub: false },
      { title: 'Retention of beacons', href: `${site.server.origin}/guide/configuration.html#retention-of-beacons`, sub: true },
      { title: 'Beacons: what\'s new in 2.0?', href: `${site.server.origin}/guide/configuration.html#beacons-whats-new-in-20`, sub: true },
      { title: 'Getting started with Lantern', href: `${site.server.origin}/guide/getting-started.html`, sub: false },
      { title: 'Your first beacon', href: `${site.server.origin}/guide/getting-started.html#your-first-beacon`, sub: true },
    ])

    const heading = await follow(page, 'Your first beacon', `${site.server.origin}/guide/getting-started.html#your-first-beacon`)
    expect(heading.target).toEqual({ tag: 'h2', text: 'Your first beacon' })

    // The other entry's search: from the guide page to the configuration page's heading.
    expect((await search(page, 'colour theme')).map(o => o.title)).toEqual(['Configuration', 'Colour themes'])
    const theme = await follow(page, 'Colour themes', `${site.server.origin}/guide/configuration.html#colour-themes`)
    expect(theme.target).toEqual({ tag: 'h2', text: 'Colour themes' })

    expect(foreign).toEqual([])
    expect(errors).toEqual([])
    await close()
  }, 180_000)
})
