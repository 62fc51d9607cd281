import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { rollup } from 'rollup'
import { afterAll, describe, expect, it } from 'vitest'
import skillKit from '../../../dist/rollup.mjs'
import { loadKnowledgeFolder } from '../../../src/knowledge/load-folder'
import { routeDocuments } from '../../../src/routing/route'

const fixtures = join(import.meta.dirname, '../../fixtures')
const out = mkdtempSync(join(tmpdir(), 'skill-kit-routes-plugin-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

/** Bundles an entry of `code` (imports relative to the fixtures) with Rollup, then imports the bundle. */
async function bundle(code: string, name: string): Promise<Record<string, unknown>> {
  const entry = join(fixtures, `${name}-entry.js`)
  const virtualEntry = {
    name: 'entry',
    resolveId: (id: string) => (id === entry ? id : null),
    load: (id: string) => (id === entry ? code : null),
  }
  const build = await rollup({ input: entry, plugins: [virtualEntry, skillKit({ root: fixtures, knowledge: { home: 'routing/small' } })], onLog: () => {} })
  const { output } = await build.generate({ format: 'es' })
  await build.close()
  const file = join(out, `${name}.mjs`)
  writeFileSync(file, output[0].code)
  return import(pathToFileURL(file).href)
}

describe('routes modules (Rollup)', () => {
  it('./folder?routes and virtual:skill-kit/knowledge/<name>/routes export the offline router\'s routed skill', async () => {
    const bundled = await bundle([
      'export { default as folder } from "./routing/small?routes"',
      'export { skill, pages, catalog, llmsTxt, cards } from "virtual:skill-kit/knowledge/home/routes"',
    ].join('\n'), 'both')
    const expected = await routeDocuments(loadKnowledgeFolder(join(fixtures, 'routing/small')).documents, { name: 'small', description: '', pageSize: 8, maxEntryTokens: 2000 })
    expect(bundled.folder).toEqual(expected)
    expect({ skill: bundled.skill, pages: bundled.pages, catalog: bundled.catalog, llmsTxt: bundled.llmsTxt, cards: bundled.cards }).toEqual(expected)
    expect(JSON.stringify(bundled)).not.toContain(fixtures)
  })

  it('names the knowledge bases there are when a routes import names none of them', async () => {
    await expect(bundle('export { default } from "virtual:skill-kit/knowledge/hom/routes"', 'unknown')).rejects.toThrow('No knowledge base is named "hom". Did you mean "home"? Name it in the plugin options: knowledge: { "hom": \'./folder\' }.')
  })
})
