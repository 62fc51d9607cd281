/**
 * Routed index pages in a real Vite dev server (SSR): an edit re-parses and
 * re-cards only the documents it touched, and a knowledge base with a routing
 * model is routed from the routing cache only, never asking the model (a local
 * HTTP server on 127.0.0.1 plays it and counts requests), while `vite build`
 * asks it as before. Everything waits on the plugin's rebuild events.
 */
import type { Logger, ViteDevServer } from 'vite'
import type { SkillKitViteApi } from '../../../src/plugin/vite-api'
import type { RoutesRebuildEvent } from '../../../src/plugin/routes/dev-server'
import type { Call } from '../../support/model-server'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { build, createLogger, createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import skillKitVite from '../../../dist/vite.mjs'
import { startModelServer } from '../../support/model-server'
import { watcherReports } from '../../support/watcher-ready.mjs'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/routes-dev')
const KEY_VARIABLE = 'SKILL_KIT_ROUTES_DEV_TEST_KEY'
const KEY = 'sk-routes-dev-7c1e5b2d4068SECRET'

const MAIN_JS = `
export { default as notes } from 'virtual:skill-kit/knowledge/notes/routes'
export { default as handbook } from 'virtual:skill-kit/knowledge/handbook/routes'
`

interface Routes { cards: Record<string, { path: string, title: string, summary: string, tasks: string[] }>, skill: string }

describe('routed index pages in the Vite dev server', () => {
  let server: ViteDevServer
  let api: SkillKitViteApi
  let closeModel: () => Promise<void>
  const calls: Call[] = []
  const lines: string[] = []
  /** The bundle `vite build` made. */
  let built: string

  /** The next update of `name`'s routed pages. */
  const nextUpdate = (name: string) => new Promise<RoutesRebuildEvent & { type: 'update' }>((done) => {
    const stop = api.onRoutesRebuild((event) => {
      if (event.name === name && event.type === 'update') {
        stop()
        done(event)
      }
    })
  })
  const load = async (): Promise<{ notes: Routes, handbook: Routes }> => server.ssrLoadModule('/main.js') as never

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(join(work, 'notes'), { recursive: true })
    writeFileSync(join(work, 'notes/alpha.md'), '# Alpha\n\nThe first note.\n')
    writeFileSync(join(work, 'notes/beta.md'), '# Beta\n\nThe second note.\n')
    mkdirSync(join(work, 'handbook/docs'), { recursive: true })
    writeFileSync(join(work, 'handbook/docs/one.md'), '# One\n\nA handbook page about ladders.\n')
    writeFileSync(join(work, 'handbook/docs/two.md'), '# Two\n\nA handbook page about ropes.\n')
    writeFileSync(join(work, 'main.js'), MAIN_JS)
    const model = await startModelServer({ onCall: call => calls.push(call) })
    closeModel = model.close
    writeFileSync(join(work, 'handbook/skill-kit.json'), JSON.stringify({ name: 'handbook', knowledge: 'docs', model: false, routing: { baseUrl: model.baseUrl, model: 'test-model', apiKeyEnv: KEY_VARIABLE } }))
    const plugin = () => skillKitVite({ knowledge: { notes: { dir: 'notes', model: false }, handbook: 'handbook' } })

    // `vite build` asks the model, and caches its answers.
    process.env[KEY_VARIABLE] = KEY
    try {
      const output = await build({ configFile: false, root: work, logLevel: 'silent', plugins: [plugin()], build: { write: false, rollupOptions: { input: join(work, 'main.js'), preserveEntrySignatures: 'strict' }, minify: false } })
      built = (output as { output: { code?: string }[] }).output[0]!.code!
    }
    finally {
      delete process.env[KEY_VARIABLE]
    }

    const logger: Logger = { ...createLogger('silent'), info: message => lines.push(message), warn: message => lines.push(message), error: message => lines.push(message) }
    server = await createServer({ configFile: false, root: work, customLogger: logger, plugins: [plugin()], server: { port: 0, host: '127.0.0.1' } })
    await server.listen()
    await watcherReports(server, join(work, 'notes'))
    api = (server.config.plugins.find(p => p.name === 'unplugin-skill-kit') as unknown as { api: SkillKitViteApi }).api
  }, 60_000)

  afterAll(async () => {
    await server?.close()
    await closeModel?.()
  })

  it('re-cards only the documents an edit, an addition or a rename touched, and serves the new pages', async () => {
    expect(Object.keys((await load()).notes.cards)).toEqual(['alpha', 'beta'])

    let updated = nextUpdate('notes')
    writeFileSync(join(work, 'notes/alpha.md'), '# Alpha\n\nA zebra crossing.\n')
    expect((await updated).carded).toEqual(['alpha.md'])
    expect((await load()).notes.cards.alpha!.summary).toBe('A zebra crossing.')
    expect(lines.filter(l => l.includes('routed index pages updated')).map(l => l.replace(/\d+ ms/, 'N ms'))).toEqual(['skill-kit: notes: routed index pages updated in N ms (notes/alpha.md changed)'])

    updated = nextUpdate('notes')
    writeFileSync(join(work, 'notes/gamma.md'), '# Gamma\n\nA giraffe.\n')
    expect((await updated).carded).toEqual(['gamma.md'])
    expect(Object.keys((await load()).notes.cards)).toEqual(['alpha', 'beta', 'gamma'])

    // A rename may come as one change or two (the second build then finds nothing new): the builds that cover it re-card only the new name.
    const carded: string[] = []
    const renamed = new Promise<void>((done) => {
      const changes = new Set<string>()
      const stop = api.onRoutesRebuild((event) => {
        if ((event.type !== 'update' && event.type !== 'unchanged') || event.name !== 'notes')
          return
        carded.push(...event.carded)
        event.changes.forEach(path => changes.add(path))
        if (changes.has(join(work, 'notes/beta.md')) && changes.has(join(work, 'notes/delta.md'))) {
          stop()
          done()
        }
      })
    })
    renameSync(join(work, 'notes/beta.md'), join(work, 'notes/delta.md'))
    await renamed
    expect(carded).toEqual(['delta.md'])
    expect(Object.keys((await load()).notes.cards)).toEqual(['alpha', 'delta', 'gamma'])

    updated = nextUpdate('notes')
    rmSync(join(work, 'notes/gamma.md'))
    expect((await updated).carded).toEqual([])
    expect(Object.keys((await load()).notes.cards)).toEqual(['alpha', 'delta'])
  })

  it('routes a knowledge base with a routing model from its cache only: no request, the offline router for what has no answer, one warning', async () => {
    // vite build asked for both cards and the page summaries.
    expect(calls.filter(c => c.kind === 'card').map(c => c.subject).sort()).toEqual(['one.md', 'two.md'])
    expect(built).toContain('Title of one.md')
    expect(calls.every(c => c.authorization === `Bearer ${KEY}`)).toBe(true)
    expect(built).not.toContain(KEY)
    calls.length = 0
    const served = (await load()).handbook
    expect(served.cards.one!.title).toBe('Title of one.md')
    expect(served.cards.two!.title).toBe('Title of two.md')
    expect(calls).toEqual([])

    const updated = nextUpdate('handbook')
    writeFileSync(join(work, 'handbook/docs/two.md'), '# Two\n\nA handbook page about knots.\n')
    const update = await updated
    expect({ carded: update.carded, uncached: update.uncached }).toEqual({ carded: ['two.md'], uncached: ['two.md'] })
    const after = (await load()).handbook
    expect(after.cards.two).toMatchObject({ title: 'Two', summary: 'A handbook page about knots.', tasks: [] })
    expect(after.cards.one).toEqual(served.cards.one)
    expect(calls).toEqual([])
    expect(lines.join('\n')).not.toContain(KEY)
    expect(lines.filter(l => l.includes('no cached answer'))).toEqual([
      'skill-kit: Routed index pages of handbook: 1 of 2 documents (two.md) and 2 index pages have no cached answer from the routing model, so the offline router describes them for now: the dev server and watch builds never ask the model. Run vite build to ask it.',
    ])
  })
})
