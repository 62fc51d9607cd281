// Routing and the routed export read the knowledge folder with the project's
// "maxDocumentBytes", as builds do: a document over it is refused, one under a
// raised limit is routed.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { planKnowledgeExport } from '../../src/export/export'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { RoutingMemo } from '../../src/routing/memo'
import { routeKnowledgeProject } from '../../src/routing/project'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'skill-kit-routing-size-'))
  mkdirSync(join(dir, 'knowledge'))
  writeFileSync(join(dir, 'knowledge', 'small.md'), '# Small\n\nLoad paper in the lower tray.\n')
  writeFileSync(join(dir, 'knowledge', 'big.md'), `# Big\n\n${'The boiler needs a yearly service. '.repeat(100)}\n`)
  return () => rmSync(dir, { recursive: true, force: true })
})

function project(maxDocumentBytes: number) {
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'home', maxDocumentBytes }))
  const opened = openKnowledgeProject(dir)
  expect(opened.diagnostics).toEqual([])
  return opened.project!
}

const TOO_LARGE = 'The document has 3,508 bytes (3.4 KiB); at most 2,048 bytes (2 KiB) are read. Split it into several documents, or raise "maxDocumentBytes" in skill-kit.json.'

describe('routing and "maxDocumentBytes"', () => {
  it('refuses a document over the limit, with or without the dev server\'s memo', async () => {
    for (const memo of [undefined, new RoutingMemo()]) {
      const routes = await routeKnowledgeProject(project(2048), { memo })
      expect('diagnostics' in routes && routes.diagnostics.map(d => [d.code, d.file, d.message])).toEqual([['document-too-large', join(dir, 'knowledge', 'big.md'), TOO_LARGE]])
    }
  })

  it('routes and exports a document under a raised limit', async () => {
    const routes = await routeKnowledgeProject(project(8192))
    expect(Object.values('cards' in routes ? routes.cards : {}).map(card => card.path).sort()).toEqual(['big.md', 'small.md'])
    const plan = await planKnowledgeExport(project(8192), { mode: 'routed' })
    expect('entries' in plan && plan.entries.map(entry => entry.path)).toContain('references/big.md')
  })
})
