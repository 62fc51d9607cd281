// closestMatches: the "Did you mean" of skill names, section IDs, settings keys and document IDs.

import { describe, expect, it } from 'vitest'
import { closestMatches } from '../../src/runtime/closest'

describe('closestMatches', () => {
  it('suggests likely typos, closest first, ties in the candidates\' order', () => {
    expect(closestMatches('code-reveiw', ['code-review', 'release-notes'])).toEqual(['code-review'])
    expect(closestMatches('code-revie', ['node-review', 'code-reviews', 'code-review'])).toEqual(['code-review', 'node-review', 'code-reviews'])
    expect(closestMatches('xyz', ['code-review'])).toEqual([])
    expect(closestMatches('ab', ['a', 'b', 'ab', 'abc'], 2)).toEqual(['ab', 'a'])
  })

  it('matches path-like candidates on their last segment too', () => {
    const ids = ['ops/vpn', 'network/wifi', 'guides/vpn-setup', 'vpn-faq']
    expect(closestMatches('vpn', ids)).toEqual(['ops/vpn'])
    expect(closestMatches('VPN', ids)).toEqual(['ops/vpn'])
    expect(closestMatches('wfi', ids)).toEqual(['network/wifi'])
    expect(closestMatches('guides/vpn', ids)).toEqual(['ops/vpn'])
    expect(closestMatches('network/wif', ids)).toEqual(['network/wifi'])
    // A whole-ID typo still counts, and an exact segment outranks it.
    expect(closestMatches('guide/vpn', ['guide/vpm', 'ops/vpn'])).toEqual(['ops/vpn', 'guide/vpm'])
    expect(closestMatches('setup', ids)).toEqual([])
  })
})
