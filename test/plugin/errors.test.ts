import { join } from 'node:path'
import { rollup } from 'rollup'
import { describe, expect, it } from 'vitest'
import skillKit from '../../dist/rollup.mjs'

const app = join(import.meta.dirname, '../fixtures/app')

/** Builds a virtual entry importing `specifier` from the fixture app; resolves with the error text. */
async function buildError(specifier: string): Promise<string> {
  const entry = join(app, 'entry.js')
  const virtualEntry = {
    name: 'entry',
    resolveId: (id: string) => (id === entry ? id : null),
    load: (id: string) => (id === entry ? `export { default } from ${JSON.stringify(specifier)}` : null),
  }
  try {
    await rollup({ input: entry, plugins: [virtualEntry, skillKit()], onLog: () => {} })
  }
  catch (error) {
    return (error as Error).message
  }
  throw new Error(`importing ${specifier} built without an error`)
}

describe('query import errors', () => {
  it('an unknown ?section= ID lists the known IDs', async () => {
    expect(await buildError('./skills/xlsx/SKILL.md?section=nope')).toContain(
      'skills/xlsx/SKILL.md: Skill "xlsx" has no section "nope". Known section IDs: mandatory-rules, reading, read-sheet, recalc, formula-errors.',
    )
  })

  it('?section= on a regular skill says why', async () => {
    expect(await buildError('./skills/notes/SKILL.md?section=action-items')).toContain(
      'Cannot import ?section=action-items: skill "notes" is a regular skill without sections.',
    )
  })

  it('two skill queries at once are refused', async () => {
    expect(await buildError('./skills/xlsx/SKILL.md?cover&meta')).toContain('Use one skill query at a time; this import has ?cover&meta.')
  })
})
