// A hostile routing model, played by a real HTTP server on 127.0.0.1: links,
// images, HTML, paths, separators and the API key in every field it fills. The
// pages, llms.txt, cards and cache must hold none of it, as marked renders them,
// nor must any message or log line hold the key.

import type { KnowledgeProject } from '../../src/knowledge/project'
import type { Card } from '../../src/routing/card'
import type { RoutedSkill } from '../../src/routing/layout'
import type { RouteProjectOptions } from '../../src/routing/project'
import type { Reply } from '../support/model-server'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { layoutRoutedSkill } from '../../src/routing/layout'
import { routeKnowledgeProject, routingCacheDir } from '../../src/routing/project'
import { writeRoutedSkill } from '../support/write-routed-skill'
import { FORBIDDEN, HOSTILE_KEY, hostileReply, markdownProblems, PAYLOADS, routedPages, textsUnder } from '../support/hostile-model'
import { startModelServer } from '../support/model-server'

let closeServer: () => Promise<void>
let baseUrl = ''
let reply: (order: number) => Reply | undefined
let calls = 0

beforeAll(async () => {
  const server = await startModelServer({
    onCall: () => {
      calls++
    },
    reply: call => reply(calls) ?? hostileReply(call, calls),
  })
  baseUrl = server.baseUrl
  closeServer = server.close
})

afterAll(() => closeServer())

let root: string
let logs: string[]

beforeEach(() => {
  calls = 0
  reply = () => undefined
  logs = []
  root = mkdtempSync(join(tmpdir(), 'skill-kit-hostile-'))
  return () => rmSync(root, { recursive: true, force: true })
})

/** A project of one document per payload (`doc-N.md`, no category: the model proposes each topic). */
function project(): KnowledgeProject {
  const dir = join(root, 'project')
  mkdirSync(join(dir, 'knowledge'), { recursive: true })
  PAYLOADS.forEach((_, n) => writeFileSync(join(dir, 'knowledge', `doc-${n}.md`), `# Document ${n}\n\nWhat document ${n} says.\n`))
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'home', description: 'Find the house guides that answer a question.', routing: { baseUrl, model: 'test-model', apiKeyEnv: 'TEST_KEY', pageSize: 3 } }))
  const opened = openKnowledgeProject(dir)
  expect(opened.diagnostics).toEqual([])
  return opened.project!
}

async function route(p: KnowledgeProject, options: RouteProjectOptions = {}): Promise<RoutedSkill> {
  const routes = await routeKnowledgeProject(p, {
    env: { TEST_KEY: HOSTILE_KEY },
    log: line => logs.push(line),
    client: { backoffMs: 1, sleep: async () => {} },
    ...options,
  })
  if ('diagnostics' in routes)
    throw new Error(JSON.stringify(routes.diagnostics))
  return routes
}

/** The payload words (and the key) found in `texts`, by file. */
function forbiddenIn(texts: ReadonlyMap<string, string>): string[] {
  return [...texts].flatMap(([file, text]) => FORBIDDEN.filter(word => text.includes(word)).map(word => `${file}: ${JSON.stringify(word)}`))
}

/** The routed skill as its files: what `writeRoutedSkill` writes, read back. */
async function published(p: KnowledgeProject, routes: RoutedSkill): Promise<Map<string, string>> {
  const out = join(root, 'out')
  rmSync(out, { recursive: true, force: true })
  await writeRoutedSkill(out, routes, p.config.knowledge)
  return textsUnder(out)
}

describe('a hostile routing model', () => {
  it('gets no link, image, HTML, path, separator or key of its own into the pages, llms.txt, cards or cache', async () => {
    const p = project()
    const routes = await route(p)
    const files = await published(p, routes)
    const pages = routedPages(files)
    expect([...pages.keys()]).toEqual(expect.arrayContaining(['SKILL.md', 'llms.txt', 'indexes/catalog.md']))
    // Pages are named by slugs of the model's topics: nothing of its markup reaches a file name.
    const topicPages = [...pages.keys()].filter(path => path.startsWith('indexes/') && !path.startsWith('indexes/catalog'))
    expect(topicPages.length).toBeGreaterThan(0)
    expect(topicPages.filter(path => !/^indexes\/[a-z0-9]+(?:-[a-z0-9]+)*\.md$/.test(path))).toEqual([])
    expect(markdownProblems(pages, path => files.has(path))).toEqual([])
    expect(forbiddenIn(pages)).toEqual([])
    expect(forbiddenIn(textsUnder(routingCacheDir(p)))).toEqual([])
    expect(forbiddenIn(new Map([['module', JSON.stringify(routes)], ['logs', logs.join('\n')]]))).toEqual([])
    // What is left is the model's words, plain.
    expect(routes.cards['doc-0']).toMatchObject({ title: 'Doc 0 the real docs', summary: 'What doc 0 covers: the real docs [redacted]', tasks: ['Task the real docs', 'Send [redacted]'], topics: ['T0 the real docs'] })
    expect(routes.cards['doc-3']).toMatchObject({ title: 'Doc 3 p', tasks: ['Task p', 'Send [redacted]'] })
    expect(routes.cards['doc-7']).toMatchObject({ title: 'Doc 7 line break here' })
    expect(pages.get('SKILL.md')).toContain('Pages the real docs \\[redacted\\]')
  })

  it('gets nothing of its own onto the pages from a routing cache edited by hand', async () => {
    const p = project()
    await route(p)
    const asked = calls
    const cache = routingCacheDir(p)
    const hostile = (i: number) => `${PAYLOADS[i % PAYLOADS.length]} ${PAYLOADS[(i + 1) % PAYLOADS.length]}`
    /** Every answer of `kind` rewritten by `edit`, with markup that validation would have taken out. */
    const editCache = (kind: 'cards' | 'pages', edit: (value: Record<string, unknown>) => unknown) => {
      for (const name of readdirSync(join(cache, kind))) {
        const file = join(cache, kind, name)
        writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)))
      }
    }
    const check = async (options: RouteProjectOptions) => {
      const routes = await route(p, options)
      const files = await published(p, routes)
      const pages = routedPages(files)
      expect(markdownProblems(pages, path => files.has(path))).toEqual([])
      expect(forbiddenIn(pages)).toEqual([])
      expect(forbiddenIn(new Map([['module', JSON.stringify(routes)]]))).toEqual([])
      return routes
    }
    // Page summaries first: the leaves' are read as edited (their parents', asked about
    // the leaves' new summaries, are described offline, as the dev server does).
    editCache('pages', () => ({ summary: hostile(2) }))
    expect(Object.values((await check({ cacheOnly: true })).pages).join('\n')).toContain('\nx p\n')
    // Then the cards.
    editCache('cards', value => ({ ...value, title: hostile(0), summary: hostile(3), tasks: [hostile(4), hostile(1)], ...('topic' in value ? { topic: hostile(5) } : {}) }))
    const routes = await check({ cacheOnly: true })
    expect(routes.cards['doc-0']).toMatchObject({ title: 'the real docs x', summary: 'p alert(1)', tasks: ['alert(1)', 'x x'] })
    expect(calls, 'the model is never asked again').toBe(asked)
  })

  it('lays out no link of its own even from cards and summaries that were never validated', async () => {
    const hostile = PAYLOADS.join(' ')
    const cards: Omit<Card, 'topics'>[] = PAYLOADS.map((payload, n) => ({ id: `doc-${n}`, path: `doc-${n}.md`, title: `${payload} ${hostile}`, summary: hostile, tasks: [payload, hostile, hostile, hostile, hostile, hostile], tokens: 10 }))
    const routes = await layoutRoutedSkill({
      name: 'home',
      description: 'Home guides.',
      cards,
      groups: PAYLOADS.map((payload, n) => ({ title: `${payload} ${n}`, ids: [`doc-${n}`] })),
      pageSize: 2,
      maxEntryTokens: 2000,
      summarize: async pages => pages.map(() => hostile),
    })
    const files = new Map<string, string>([['SKILL.md', routes.skill], ['llms.txt', routes.llmsTxt], ...Object.entries(routes.pages), ...Object.entries(routes.catalog)])
    const has = (path: string) => files.has(path) || cards.some(card => path === `references/${card.path}`)
    expect(markdownProblems(files, has)).toEqual([])
    // The key is the client's to redact (it is not known here); every other payload word is gone.
    expect(forbiddenIn(files).filter(problem => !problem.includes(HOSTILE_KEY))).toEqual([])
    // Bounded as a validated card is.
    for (const card of Object.values(routes.cards)) {
      expect(card.title.length).toBeLessThanOrEqual(100)
      expect(card.summary.length).toBeLessThanOrEqual(350)
      expect(card.tasks.length).toBeLessThanOrEqual(4)
    }
  })

  it('gets the key into no message and quotes what it says bounded', async () => {
    const long = 'x'.repeat(20_000)
    const replies: [string, Reply][] = [
      ['finish_reason', { finishReason: `${HOSTILE_KEY} ${long}` }],
      ['refusal', { refusal: `I will not, ${HOSTILE_KEY} ${long}` }],
      ['non-JSON content', { content: `not JSON ${HOSTILE_KEY} ${long}` }],
      ['an invalid field', { content: JSON.stringify({ title: HOSTILE_KEY, summary: `${HOSTILE_KEY} ${long}`, tasks: [HOSTILE_KEY], topic: HOSTILE_KEY }) }],
    ]
    for (const [what, answer] of replies) {
      reply = () => answer
      logs = []
      const error = await route(project()).then(() => undefined, (error: Error) => error)
      expect(error?.name, what).toBe('RoutingError')
      expect(error!.message, what).not.toContain(HOSTILE_KEY)
      expect(error!.message.length, what).toBeLessThan(1000)
      expect(logs.join('\n'), what).not.toContain(HOSTILE_KEY)
      rmSync(join(root, 'project'), { recursive: true, force: true })
    }
  })
})
