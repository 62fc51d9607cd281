/**
 * Watch sessions never ask a routing model: a knowledge base with one is
 * routed from the routing cache only, in Rollup's, rolldown's, `vite build
 * --watch`'s, webpack's and rspack's watch mode, and an edited document is
 * described by the offline router until a plain build asks the model. A local
 * HTTP server on 127.0.0.1 plays the model and counts requests. The same holds
 * for the routed export that the build writes (the knowledge base's `export`).
 */
import type { Bundler } from '../../support/build'
import type { WatchSession } from '../../support/watch-session'
import type { Call } from '../../support/model-server'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openKnowledgeProject } from '../../../src/knowledge/project'
import { routeKnowledgeProject } from '../../../src/routing/project'
import { startModelServer } from '../../support/model-server'
import { watchBuilds } from '../../support/watch-session'

const repo = resolve(import.meta.dirname, '../../..')
const WATCHERS: Bundler[] = ['rollup', 'rolldown', 'vite', 'webpack', 'rspack']

describe.each(WATCHERS)('routed pages in %s\'s watch mode', (bundler) => {
  const work = join(repo, 'test/.tmp', `routes-watch-${bundler}`)
  const app = join(work, 'app')
  const calls: Call[] = []
  let closeModel: () => Promise<void>
  let session: WatchSession | undefined

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(join(app, 'handbook/docs'), { recursive: true })
    writeFileSync(join(app, 'handbook/docs/one.md'), '# One\n\nA handbook page about ladders.\n')
    writeFileSync(join(app, 'handbook/docs/two.md'), '# Two\n\nA handbook page about ropes.\n')
    writeFileSync(join(app, 'main.js'), 'export { cards } from "./handbook?routes"\n')
    const model = await startModelServer({ onCall: call => calls.push(call) })
    closeModel = model.close
    writeFileSync(join(app, 'handbook/skill-kit.json'), JSON.stringify({ name: 'handbook', knowledge: 'docs', model: false, routing: { baseUrl: model.baseUrl, model: 'test-model', apiKeyEnv: 'SKILL_KIT_ROUTES_WATCH_TEST_KEY' } }))
    // What a plain build does: ask the model, and cache its answers.
    const routes = await routeKnowledgeProject(openKnowledgeProject(join(app, 'handbook')).project!, { env: { SKILL_KIT_ROUTES_WATCH_TEST_KEY: 'sk-placeholder' } })
    expect('cards' in routes && routes.cards.one!.title).toBe('Title of one.md')
  })

  afterAll(async () => {
    await session?.close()
    await closeModel?.()
  })

  it('routes from the cache only, with no request, and describes an edited document offline', async () => {
    calls.length = 0
    // The routed export of the same knowledge base is made in each build too, from the cache alone.
    session = await watchBuilds(bundler, join(app, 'main.js'), { root: app, knowledge: { handbook: { dir: 'handbook', export: { mode: 'routed' } } } }, work)
    const first = await session.first
    expect(first.errors).toEqual([])
    expect(first.module!.cards.one.title).toBe('Title of one.md')
    expect(first.module!.cards.two.title).toBe('Title of two.md')

    // webpack may build once more right after the first (webpack-virtual-modules' files look
    // removed to its watcher: sysgears/webpack-virtual-modules#121), and that build may or may not
    // see the edit, or see it land during the export (an error, and the edit's own build follows):
    // the build that counts is the first whose pages show the edit.
    const next = session.buildShowing(build => build.module?.cards.two.summary === 'A handbook page about knots.')
    // One file-system operation (the write lands by rename), as in watch-builds.test.ts, whose
    // edits webpack's watcher has always seen: a write in place is a truncation, then a write.
    const staged = join(work, 'two.md')
    writeFileSync(staged, '# Two\n\nA handbook page about knots.\n')
    renameSync(staged, join(app, 'handbook/docs/two.md'))
    const edited = await next
    expect(edited.errors).toEqual([])
    expect(edited.module!.cards.two).toMatchObject({ title: 'Two', summary: 'A handbook page about knots.', tasks: [] })
    expect(edited.module!.cards.one.title).toBe('Title of one.md')
    expect(calls).toEqual([])
  }, 120_000)
})
