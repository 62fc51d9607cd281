/**
 * The knowledge-app fixture's `docs` base, set up in a fresh folder for a
 * build test: its documents in `<work>/docs`, and an entry that imports it.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { buildTinyModel } from '../../scripts/models/tiny-bert.mjs'

const repo = resolve(import.meta.dirname, '../..')

/** The entry every such test builds: `docs`, as the virtual id imports it. */
const ENTRY = 'import docs from \'virtual:skill-kit/knowledge/docs\'\n\nexport { docs }\n'

/**
 * Empties `work`, copies the fixture's documents into `<work>/docs` and writes
 * `entry`. With `model` (the default), builds the tiny test model the
 * fixture's skill-kit.json names into `<work>/models`: tests of a base
 * without a model, or with a server's, leave it out.
 */
export async function prepareDocsApp(work: string, entry: string, { model = true }: { model?: boolean } = {}): Promise<void> {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge-app/docs'), join(work, 'docs'), { recursive: true })
  if (model)
    await buildTinyModel(join(work, 'models'))
  writeFileSync(entry, ENTRY)
}
