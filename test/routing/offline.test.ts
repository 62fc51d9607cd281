import type { KnowledgeDocument } from '../../src/knowledge/document'
import type { RoutedSkill } from '../../src/routing/layout'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadKnowledgeFolder } from '../../src/knowledge/load-folder'
import { sourcePackageDir } from '../../src/knowledge/minilm'
import { cutAtSentence } from '../../src/routing/card'
import { crawlRoutedSkill, unreachableDocuments } from '../support/crawl-routed-skill'
import { routeDocuments } from '../../src/routing/route'
import { normalizeTopics } from '../../src/routing/topics'
import { estimateTokens } from '../../src/runtime/tokens'
import { compileSkill } from '../../src/skill/compile'

const small = fileURLToPath(new URL('../fixtures/routing/small', import.meta.url))
const guides = join(sourcePackageDir(), 'skills', 'modern-web-guidance', 'guides')

const route = (documents: readonly KnowledgeDocument[], pageSize = 8, maxEntryTokens = 2000) =>
  routeDocuments(documents, { name: 'Home Guidance', description: 'Answer questions about the house from its guides.', pageSize, maxEntryTokens })

/** Every page of a routed skill with its path. */
const allPages = (routes: RoutedSkill) => ({ 'SKILL.md': routes.skill, ...routes.pages, ...routes.catalog })

/** The size a page states about itself. */
const statedSize = (text: string) => Number(/This page: about (\d+) tokens\./.exec(text)?.[1])

/** Synthetic documents: `folders` folders of `perFolder` documents each, with sentences of some length. */
function synthetic(folders: number, perFolder: number, subject = ''): KnowledgeDocument[] {
  const documents: KnowledgeDocument[] = []
  for (let f = 0; f < folders; f++) {
    for (let d = 0; d < perFolder; d++) {
      const path = `topic-${String(f).padStart(2, '0')}/doc-${String(d).padStart(3, '0')}.md`
      const body = `# Document ${f}.${d}${subject}\n\nThis document ${f}.${d} explains one thing about topic ${f} in a sentence or two. It is long enough to say something.\n`
      documents.push({ id: path.replace(/\.md$/, ''), path, title: `Document ${f}.${d}${subject}`, description: '', category: `topic-${f}`, categories: [`topic-${f}`], tags: [], body, bodyLine: 1 })
    }
  }
  return documents
}

describe('the offline router', () => {
  it('routes a small knowledge base: own categories verbatim (one document under two), then folders, then shared tags', async () => {
    const folder = loadKnowledgeFolder(small)
    expect(folder.diagnostics).toEqual([])
    const routes = await route(folder.documents, 2)
    await expect(routes.skill).toMatchFileSnapshot('__snapshots__/small/SKILL.md')
    for (const [path, text] of Object.entries({ ...routes.pages, ...routes.catalog }))
      await expect(text).toMatchFileSnapshot(`__snapshots__/small/${path}`)
    await expect(routes.llmsTxt).toMatchFileSnapshot('__snapshots__/small/llms.txt')
    expect(Object.fromEntries(Object.values(routes.cards).map(card => [card.path, card.topics]))).toEqual({
      'backups/restore-backup.md': ['Home Backups', 'Recovery'],
      'backups/schedule.md': ['backups'],
      'network/router.md': ['network'],
      'network/vpn/connect.md': ['network/vpn'],
      'printer.md': ['devices'],
      'scanner.md': ['devices'],
      'welcome.md': ['Other documents'],
    })
  })

  it('describes a document by its description, else its first paragraph cut at a sentence within 350 characters', async () => {
    const routes = await route(loadKnowledgeFolder(small).documents)
    expect(routes.cards['restore-backup']).toMatchObject({ title: 'Restore a backup', summary: 'Restore deleted files from a backup archive.', tasks: [] })
    expect(routes.cards['network/vpn/connect']).toMatchObject({ title: 'connect', summary: 'Connect to the home VPN with the WireGuard app. It takes a minute.' })
    expect(routes.cards['backups/schedule']!.summary).toBe('Backups run every night at two. This paragraph explains, at some length, why a nightly schedule beats a weekly one for a household: photos change daily, documents are edited in the evening, and a backup that runs while everyone sleeps never slows anybody down.')
    expect(cutAtSentence('One two three four five six seven eight nine ten', 20)).toBe('One two three four…')
  })

  it('gives the same bytes whatever the order the documents come in', async () => {
    const documents = loadKnowledgeFolder(small).documents
    expect(await route([...documents].reverse(), 2)).toEqual(await route(documents, 2))
  })

  it('writes a SKILL.md that is a valid Agent Skill', async () => {
    const routes = await route(loadKnowledgeFolder(small).documents)
    const compiled = compileSkill({ file: '/skills/home-guidance/SKILL.md', source: routes.skill, folder: { files: [], kind: () => 'missing' } }, { strict: true })
    expect(compiled.diagnostics).toEqual([])
    expect(compiled.name).toBe('home-guidance')
    expect(compiled.description).toBe('Answer questions about the house from its guides.')
  })

  it.each([2, 3, 5, 8, 12])('keeps every page at %i entries at most, states each page\'s size, and reaches every document', async (pageSize) => {
    const documents = synthetic(23, 11)
    const routes = await route(documents, pageSize)
    for (const [path, text] of Object.entries(allPages(routes))) {
      const entries = text.split('\n').filter(line => line.startsWith('- ['))
      if (path !== 'indexes/catalog.md' && path !== 'SKILL.md')
        expect(entries.length, path).toBeLessThanOrEqual(pageSize)
      expect(statedSize(text), path).toBe(estimateTokens(text))
    }
    expect(routes.skill.split('\n').filter(line => line.startsWith('- [indexes/page'))).toHaveLength(0)
    const topics = routes.skill.slice(routes.skill.indexOf('## Topics'), routes.skill.indexOf('## Catalog')).split('\n').filter(line => line.startsWith('- ['))
    expect(topics.length).toBeGreaterThan(0)
    expect(topics.length).toBeLessThanOrEqual(pageSize)
    expect(estimateTokens(routes.skill)).toBeLessThanOrEqual(2000)
    const catalogPages = Object.keys(routes.catalog).length - 1
    expect(catalogPages).toBe(Math.ceil(documents.length / pageSize))
    expect(crawlRoutedSkill(routes).broken).toEqual([])
    expect(unreachableDocuments(routes, documents.map(d => d.path), 3)).toEqual([])
  })

  it('adds parent pages until the entry point fits its token bound', async () => {
    const documents = synthetic(12, 4, ' about a subject that takes many words to name')
    const roomy = await route(documents, 12, 2000)
    const tight = await route(documents, 12, 1000)
    expect(estimateTokens(roomy.skill)).toBeGreaterThan(1000)
    expect(Object.keys(roomy.pages)).toHaveLength(12)
    expect(roomy.skill.match(/^- \[topic-\d+\]/gm)).toHaveLength(12)
    expect(estimateTokens(tight.skill)).toBeLessThanOrEqual(1000)
    expect(Object.keys(tight.pages).length).toBeGreaterThan(12)
  })

  it('reaches each of the 147 Modern Web Guidance guides from SKILL.md within 3 links, through the catalog and through the topic pages alone', async () => {
    const folder = loadKnowledgeFolder(guides)
    expect(folder.documents).toHaveLength(147)
    const routes = await route(folder.documents)
    const paths = folder.documents.map(d => d.path)
    const crawl = crawlRoutedSkill(routes)
    expect(crawl.broken).toEqual([])
    expect(crawl.documents.size).toBe(147)
    expect(crawl.pages.size).toBe(1 + Object.keys(routes.pages).length + Object.keys(routes.catalog).length)
    expect(unreachableDocuments(routes, paths, 3)).toEqual([])
    expect(unreachableDocuments(routes, paths, 3, { skip: path => path.startsWith('indexes/catalog') })).toEqual([])
    // 147 documents do not fit two levels of 8, but SKILL.md lists the topic pages below its own: 2 links.
    expect(unreachableDocuments(routes, paths, 2)).toEqual([])
    expect(unreachableDocuments(routes, paths, 1).length).toBeGreaterThan(100)
    // Those pages with as much of their summaries (their documents' titles) as fits; their parents' summaries, which name the same documents, left out.
    const listed = routes.skill.split('\n').filter(line => /^ {2}- \[.*\]\(indexes\//.test(line))
    expect(listed.length).toBeGreaterThan(8)
    for (const line of listed) {
      const target = /\]\((indexes\/[^)]+)\): (.+)$/.exec(line)!
      const titles = target[2]!.replace(/[.…]$/, '').split('; ').map(title => title.trim()).filter(Boolean)
      expect(titles.length).toBeGreaterThan(0)
      expect(routes.pages[target[1]!]).toContain(`${titles[0]}](`)
    }
    expect(routes.skill).not.toMatch(/^- \[[^\]]+\]\(indexes\/[^)]+\): /m)
    // A folder split by content: its topics say which folder they are of.
    expect(routes.skill.match(/^ {2}- \[forms: [^\]]+\]\(indexes\/forms-[a-z0-9-]+\.md\)/gm)?.length).toBeGreaterThan(1)
    expect(estimateTokens(routes.skill)).toBeLessThanOrEqual(2000)
  })

  it('lists in SKILL.md the documents below each topic, with words of theirs, as deep as its bound allows', async () => {
    // markdownlint's doc/ folder: 57 pages, no frontmatter, no folder.
    const folder = loadKnowledgeFolder(join(fileURLToPath(new URL('../../node_modules/markdownlint/doc', import.meta.url))))
    expect(folder.documents).toHaveLength(57)
    const paths = folder.documents.map(d => d.path)
    const roomy = await route(folder.documents)
    expect(estimateTokens(roomy.skill)).toBeLessThanOrEqual(2000)
    expect(unreachableDocuments(roomy, paths, 1)).toEqual([])
    // Each document under its topic, linked from the root, with the first of its Covers words.
    const md001 = roomy.skill.split('\n').find(line => line.includes('(references/md001.md)'))!
    expect(md001).toMatch(/^ {2}- \[MD001 - Heading levels should only increment by one level at a time\]\(references\/md001\.md\): \w+, \w+, \w+, \w+$/)
    const topicPage = Object.values(roomy.pages).find(text => text.includes('](../references/md001.md)'))!.split('\n')
    const covers = topicPage[topicPage.findIndex(line => line.includes('](../references/md001.md)')) + 1]!
    expect(covers).toMatch(/^ {2}Covers: /)
    expect(md001.slice(md001.indexOf('): ') + 3).split(', ')).toEqual(covers.slice('  Covers: '.length).split(', ').slice(0, 4))
    // A topic's summary (its documents' titles) is left out where they are listed.
    expect(roomy.skill).not.toMatch(/^- \[.*\]\(indexes\/.*\): /m)
    // A tighter bound: the same topics, their documents without words, then not listed at all.
    const fewer = await route(folder.documents, 8, 1500)
    expect(estimateTokens(fewer.skill)).toBeLessThanOrEqual(1500)
    expect(unreachableDocuments(fewer, paths, 1)).toEqual([])
    expect(fewer.skill).toMatch(/^ {2}- \[MD001 - [^\]]+\]\(references\/md001\.md\)$/m)
    const none = await route(folder.documents, 8, 1000)
    expect(estimateTokens(none.skill)).toBeLessThanOrEqual(1000)
    expect(none.skill).not.toContain('](references/')
    expect(unreachableDocuments(none, paths, 2)).toEqual([])
    expect(none.skill).toMatch(/^- \[.*\]\(indexes\/.*\): .*MD0/m)
  })

  it('writes llms.txt as llmstxt.org describes: an H1, a blockquote summary, H2 sections of [title](path): note lines', async () => {
    const routes = await route(loadKnowledgeFolder(guides).documents)
    const lines = routes.llmsTxt.split('\n')
    expect(lines[0]).toBe('# Home Guidance')
    expect(lines[2]).toBe('> Answer questions about the house from its guides.')
    const items = lines.filter(line => line.startsWith('- '))
    expect(items.length).toBeGreaterThan(1)
    for (const item of items)
      expect(item).toMatch(/^- \[[^\]]+\]\(indexes\/[\w.-]+\.md\): \S/)
    expect(lines.filter(line => line.startsWith('## '))).toEqual(['## Topics', '## Optional'])
  })
})

describe('normalizeTopics', () => {
  it('merges topics that differ in case, whitespace, plurals or a typo; known categories win as written', () => {
    const topics = normalizeTopics(['Backups', 'backup ', 'Back-ups', 'Networking', 'networkng', 'Printers', 'printer', 'Printer', 'Security', 'VPN'], ['Home Networking'])
    expect(Object.fromEntries(topics)).toEqual({
      'Backups': 'Backups',
      'backup ': 'Backups',
      'Back-ups': 'Backups',
      'Networking': 'Networking',
      'networkng': 'Networking',
      'Printers': 'Printer',
      'printer': 'Printer',
      'Printer': 'Printer',
      'Security': 'Security',
      'VPN': 'VPN',
    })
    expect(normalizeTopics(['home networking', 'Home  Networking '], ['Home Networking']).get('Home  Networking ')).toBe('Home Networking')
  })
})
