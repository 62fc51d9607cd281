import type { KnowledgeDocument } from '../../src/knowledge/document'
import { describe, expect, it } from 'vitest'
import { distinctiveTerms, interleaved } from '../../src/routing/covers'
import { routeDocuments } from '../../src/routing/route'

/** A document as the loader makes it, with no frontmatter. */
function doc(path: string, body: string): KnowledgeDocument {
  const title = /^# (.+)$/m.exec(body)?.[1] ?? path
  return { id: path.replace(/\.md$/, ''), path, title, description: '', category: undefined, categories: [], tags: [], body, bodyLine: 1 }
}

const documents = [
  doc('retry.md', '# Retries\n\nThe client tries again after a failure.\n\n## Backoff\n\nExponential backoff doubles the delay; jitter spreads clients apart. Idempotent requests only.\n\n```js\nsecretIdentifier()\n```\n'),
  doc('proxy.md', '# Proxies\n\nThe client goes through a proxy.\n\n## Tunnels\n\nA CONNECT tunnel carries TLS; the proxy sees only the host. Tunnels, tunnels.\n'),
  doc('cache.md', '# Caching\n\nThe client keeps responses.\n\n## Freshness\n\nA response stays fresh for its max-age; stale responses are revalidated with an etag.\n'),
]

describe('a card\'s distinctive words', () => {
  it('are the body\'s and headings\' words that set the document apart, not its title\'s, nor the corpus\'s common ones, nor code', () => {
    const terms = distinctiveTerms(documents)
    expect(terms.get('retry')!.slice(0, 2)).toEqual(['backoff', 'apart'])
    expect(terms.get('proxy')![0]).toBe('tunnels')
    expect(terms.get('cache')).toContain('fresh')
    // "client" is in every document; the title's word is on the card already; code is no topic.
    for (const list of terms.values())
      expect(list.filter(word => ['client', 'retries', 'proxies', 'caching', 'secretidentifier'].includes(word))).toEqual([])
  })

  it('are shown under each card and each topic, inert and bounded, the same for the same documents', async () => {
    const hostile = doc('evil.md', '# Evil\n\nClick [here](javascript:alert(1)) <script>alert(1)</script> <img src=x onerror=alert(1)> ![x](http://tracker.example/p.png) '.concat('overflowing '.repeat(3), Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}zz`).join(' '), '\n'))
    const route = () => routeDocuments([...documents, hostile], { name: 'Docs', description: '', pageSize: 2, maxEntryTokens: 2000 })
    const routes = await route()
    const lines = [routes.skill, ...Object.values(routes.pages)].flatMap(text => text.split('\n')).filter(line => line.startsWith('  Covers: '))
    expect(lines.length).toBeGreaterThan(documents.length)
    for (const line of lines) {
      expect(line).not.toMatch(/[<>[\]()]/)
      // The words of web addresses, which every linking document holds, are no topic.
      expect(line).not.toMatch(/\bhttps?\b/)
      expect(line.length).toBeLessThanOrEqual('  Covers: '.length + 160)
      expect(line.slice('  Covers: '.length).split(', ').length).toBeLessThanOrEqual(12)
    }
    expect(await route()).toEqual(routes)
  })
})

describe('interleaved', () => {
  it('takes the first word of each list, then the second, without repeats, up to the bound', () => {
    expect(interleaved([['a', 'b', 'c'], ['d', 'a'], ['e']], 4)).toEqual(['a', 'd', 'e', 'b'])
  })
})
