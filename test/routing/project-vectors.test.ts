// A project's routed pages take their content topics from words, or, with
// routing.topics "vectors", from its index, built first when not current:
// the same files give the same pages whatever was built before.

import type { Embedder } from '../../src/knowledge/embedder'
import type { RoutedSkill } from '../../src/routing/layout'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadKnowledgeFolder } from '../../src/knowledge/load-folder'
import { buildKnowledgeProject, openKnowledgeProject } from '../../src/knowledge/project'
import { decodeSnapshot } from '../../src/runtime/knowledge/format/snapshot-reader'
import { routeKnowledgeProject } from '../../src/routing/project'
import { routeDocuments } from '../../src/routing/route'
import { documentVectors } from '../../src/routing/vector-topics'
import { FAKE_DIMENSIONS, FAKE_PIECES, fakeEmbedder } from '../support/fake-model'

const TOPICS = ['form input validation', 'dialog modal focus trap', 'cache service worker offline', 'image lazy loading', 'font layout grid', 'color dark mode theme', 'view transition scroll animation', 'button submit error check']

/** Each document's file name: `odd` or `even`, which the model reads (an embedded window starts with its document's ID) and the words do not. */
const name = (i: number) => `${i % 2 ? 'odd' : 'even'}-${i}`
const ODD = ['o', '##d', '##d'].map(piece => FAKE_PIECES.indexOf(piece))

/** The fake model, seeing only whether a window is of an odd document: vectors that split the documents unlike their words. */
function parityEmbedder(): Embedder {
  const isOdd = (window: readonly number[]) => window.some((_, k) => ODD.every((id, j) => window[k + j] === id))
  const vector = (window: readonly number[]) => Float32Array.from({ length: FAKE_DIMENSIONS }, (_, d) => (d === (isOdd(window) ? 1 : 0) ? 1 : 0))
  return { ...fakeEmbedder(), embedTokens: async windows => windows.map(vector) }
}

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skill-kit-routing-vectors-'))
  mkdirSync(join(dir, 'knowledge'))
  // Twelve documents, more than a page: the offline router groups them by content.
  for (let i = 0; i < 12; i++)
    writeFileSync(join(dir, 'knowledge', `${name(i)}.md`), `# Page ${i} on ${TOPICS[i % 8]}\n\nHow do we use ${TOPICS[i % 8]} with ${TOPICS[(i * 3 + 1) % 8]} in my site.\n`)
  settings('words')
})

function settings(topics: 'words' | 'vectors', model?: false) {
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'web', queryEncoder: 'model', ...(model === false && { model: false }), routing: { topics } }))
}
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function project() {
  const opened = openKnowledgeProject(dir)
  expect(opened.diagnostics).toEqual([])
  return opened.project!
}

const files = (routes: RoutedSkill) => ({ 'SKILL.md': routes.skill, ...routes.pages, ...routes.catalog })

async function routed() {
  const routes = await routeKnowledgeProject(project(), { embedder: parityEmbedder() })
  if (!('skill' in routes))
    throw new Error(JSON.stringify(routes.diagnostics))
  return files(routes)
}

/** The folder routed directly: by words, or by the given vectors. */
async function direct(vectors?: Map<string, Float32Array>) {
  const { config } = project()
  const routes = await routeDocuments(loadKnowledgeFolder(config.knowledge).documents, { name: config.name, description: config.description, pageSize: config.routing.pageSize, maxEntryTokens: config.routing.maxEntryTokens, vectors })
  return files(routes)
}

describe('routing.topics', () => {
  it('"words" (the default) groups by words even when an index of the same documents is published', async () => {
    const byWords = await direct()
    expect(await routed()).toEqual(byWords)
    const build = await buildKnowledgeProject(project(), { embedder: parityEmbedder() })
    expect('snapshot' in build).toBe(true)
    expect(await routed()).toEqual(byWords)
  })

  it('"vectors" groups by the index\'s vectors, building the index when it is not current, byte-identically each time', async () => {
    settings('vectors')
    rmSync(join(dir, '.skill-kit'), { recursive: true, force: true })
    const first = await routed()
    const build = await buildKnowledgeProject(project(), { embedder: parityEmbedder() })
    if (!('snapshot' in build))
      throw new Error(JSON.stringify(build.diagnostics))
    const byVectors = await direct(documentVectors(decodeSnapshot(build.snapshot)))
    expect(byVectors).not.toEqual(await direct())
    // Each topic page lists the documents of one parity: the vectors' grouping, not the words'.
    const listed = Object.entries(byVectors).filter(([path]) => path.startsWith('indexes/') && !path.includes('catalog')).map(([, text]) => new Set([...text.matchAll(/references\/(odd|even)-/g)].map(m => m[1])))
    expect(listed.length).toBeGreaterThan(1)
    expect(listed.filter(kinds => kinds.size !== 1)).toEqual([])
    // The first routing, with no index yet, built it: the same pages.
    expect(first).toEqual(byVectors)
    expect(await routed()).toEqual(byVectors)

    // An edit the index has not seen: it is built again, and the pages follow.
    writeFileSync(join(dir, 'knowledge', `${name(0)}.md`), `# Page 0 on ${TOPICS[0]}\n\nEdited: ${TOPICS[2]}.\n`)
    const edited = await routed()
    const rebuilt = await buildKnowledgeProject(project(), { embedder: parityEmbedder() })
    if (!('snapshot' in rebuilt))
      throw new Error(JSON.stringify(rebuilt.diagnostics))
    expect(edited).toEqual(await direct(documentVectors(decodeSnapshot(rebuilt.snapshot))))
  })

  it('"vectors" with "model": false is an error that says what to set', async () => {
    settings('vectors', false)
    await expect(routeKnowledgeProject(project())).rejects.toThrow('"routing.topics" is "vectors", but the project has "model": false, so its index has no vectors. Set a "model" in skill-kit.json, or "routing.topics": "words".')
    settings('words')
  })
})
