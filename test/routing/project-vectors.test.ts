// A project's routed pages take their content topics from its published
// index when that index is of the same documents, and from words otherwise:
// routing never embeds.

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
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'web', queryEncoder: 'model' }))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function project() {
  const opened = openKnowledgeProject(dir)
  expect(opened.diagnostics).toEqual([])
  return opened.project!
}

const files = (routes: RoutedSkill) => ({ 'SKILL.md': routes.skill, ...routes.pages, ...routes.catalog })

async function routed() {
  const routes = await routeKnowledgeProject(project())
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

describe('routing a project with a published index', () => {
  it('groups by the index\'s vectors when it is of the same documents, byte-identically each time, and by words otherwise', async () => {
    const byWords = await direct()
    expect(await routed()).toEqual(byWords)

    const build = await buildKnowledgeProject(project(), { embedder: parityEmbedder() })
    if (!('snapshot' in build))
      throw new Error(JSON.stringify(build.diagnostics))
    const byVectors = await direct(documentVectors(decodeSnapshot(build.snapshot)))
    expect(byVectors).not.toEqual(byWords)
    // Each topic page lists the documents of one parity: the vectors' grouping, not the words'.
    const listed = Object.entries(byVectors).filter(([path]) => path.startsWith('indexes/') && !path.includes('catalog')).map(([, text]) => new Set([...text.matchAll(/references\/(odd|even)-/g)].map(m => m[1])))
    expect(listed.length).toBeGreaterThan(1)
    expect(listed.filter(kinds => kinds.size !== 1)).toEqual([])
    expect(await routed()).toEqual(byVectors)
    expect(await routed()).toEqual(byVectors)

    // An edit the index has not seen: its vectors are of other documents.
    writeFileSync(join(dir, 'knowledge', `${name(0)}.md`), `# Page 0 on ${TOPICS[0]}\n\nEdited: ${TOPICS[2]}.\n`)
    expect(await routed()).toEqual(await direct())
  })
})
