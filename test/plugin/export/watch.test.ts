/**
 * A knowledge base that is only exported (no module imports it), in each
 * bundler's watch mode: a build whose export fails says why and the watch goes
 * on; fixing the document rebuilds and exports. webpack and rspack used to stop
 * watching for good when the export threw from their `make` hook, and no
 * bundler watched an export's documents unless a module imported them.
 */
import type { Bundler } from '../../support/build'
import type { WatchSession } from '../../support/watch-session'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { watchBuilds } from '../../support/watch-session'

const repo = resolve(import.meta.dirname, '../../..')
// Rollup, rolldown and Vite keep watching after a build error already (with the files the
// failed build registered), but arm those watchers only as the error is reported.
const WATCHERS: Bundler[] = ['webpack', 'rspack']

describe.each(WATCHERS)('an exported knowledge base in %s\'s watch mode', (bundler) => {
  const work = join(repo, 'test/.tmp', `export-watch-${bundler}`)
  const app = join(work, 'app')
  let session: WatchSession | undefined

  afterAll(async () => {
    await session?.close()
  })

  it('reports a failed export, keeps watching, and exports once the document is fixed', async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(join(app, 'handbook'), { recursive: true })
    writeFileSync(join(app, 'handbook/one.md'), '# One\n\nA handbook page about ladders.\n')
    writeFileSync(join(app, 'handbook/two.md'), '---\ntitle: [unclosed\n---\n# Two\n\nA handbook page about ropes.\n')
    writeFileSync(join(app, 'main.js'), 'export const answer = 42\n')
    session = await watchBuilds(bundler, join(app, 'main.js'), { root: app, knowledge: { handbook: { dir: 'handbook', model: false, export: { mode: 'routed' } } } }, work)
    const exported = join(work, 'out/skills/handbook/SKILL.md')

    const first = await session.first
    expect(first.errors.join('\n')).toContain('Knowledge base "handbook" cannot be exported. Fix its documents:')
    expect(first.errors.join('\n')).toContain('two.md')
    expect(existsSync(exported)).toBe(false)

    const next = session.nextBuild()
    // One file-system operation, as in watch-builds.test.ts.
    const staged = join(work, 'two.md')
    writeFileSync(staged, '# Two\n\nA handbook page about knots.\n')
    renameSync(staged, join(app, 'handbook/two.md'))
    const fixed = await next
    expect(fixed.errors).toEqual([])
    expect(readFileSync(exported, 'utf8')).toContain('  - [Two](references/two.md)')
  }, 120_000)
})
