// The LLM router against a real HTTP server on 127.0.0.1 that plays the model:
// what it asks, how it fails, what it caches, and where the key never goes.

import type { KnowledgeProject } from '../../src/knowledge/project'
import type { RoutedSkill } from '../../src/routing/layout'
import type { RouteProjectOptions } from '../../src/routing/project'
import type { Call, Reply } from '../support/model-server'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { hash } from '../../src/core/hash'
import { loadKnowledgeFolder } from '../../src/knowledge/load-folder'
import { sourcePackageDir } from '../../src/knowledge/minilm'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { unreachableDocuments } from '../support/crawl-routed-skill'
import { documentWindows } from '../../src/routing/llm'
import { newRoutingStats, RoutingMemo } from '../../src/routing/memo'
import { routeKnowledgeProject, routingCacheDir } from '../../src/routing/project'
import { writeRoutedSkill } from '../support/write-routed-skill'
import { startModelServer } from '../support/model-server'

const KEY = 'sk-test-3f9a7c1e5b2d4068SECRET'

let closeServer: () => Promise<void>
let baseUrl = ''
let calls: Call[] = []
let reply: (call: Call) => Reply | undefined | Promise<Reply | undefined>
let topicOf: (path: string) => string
let maxInFlight = 0

beforeAll(async () => {
  const server = await startModelServer({
    onCall: call => calls.push(call),
    reply: call => reply(call),
    topicOf: path => topicOf(path),
    onInFlight: (count) => {
      maxInFlight = Math.max(maxInFlight, count)
    },
  })
  baseUrl = server.baseUrl
  closeServer = server.close
})

afterAll(() => closeServer())

let root: string
let logs: string[]
let sleeps: number[]

beforeEach(() => {
  calls = []
  reply = () => undefined
  topicOf = () => 'General'
  maxInFlight = 0
  logs = []
  sleeps = []
  root = mkdtempSync(join(tmpdir(), 'skill-kit-routes-'))
  return () => rmSync(root, { recursive: true, force: true })
})

/** A project of `documents` (path → Markdown) routed by the test server. */
function project(documents: Record<string, string>, routing: Record<string, unknown> = {}): KnowledgeProject {
  const dir = join(root, 'project')
  for (const [path, text] of Object.entries(documents)) {
    mkdirSync(dirname(join(dir, 'knowledge', path)), { recursive: true })
    writeFileSync(join(dir, 'knowledge', path), text)
  }
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'home', description: 'Find the house guides that answer a question.', routing: { baseUrl, model: 'test-model', apiKeyEnv: 'TEST_KEY', pageSize: 2, ...routing } }))
  const opened = openKnowledgeProject(dir)
  expect(opened.diagnostics).toEqual([])
  return opened.project!
}

function route(p: KnowledgeProject, options: RouteProjectOptions = {}): Promise<RoutedSkill> {
  return routeKnowledgeProject(p, {
    env: { TEST_KEY: KEY },
    log: line => logs.push(line),
    client: { backoffMs: 10, sleep: async (ms) => { sleeps.push(ms) } },
    ...options,
  }).then((routes) => {
    if ('diagnostics' in routes)
      throw new Error(JSON.stringify(routes.diagnostics))
    return routes
  })
}

/** Routes and writes the skill to `<root>/out`, as an export would. */
async function publish(p: KnowledgeProject, options: RouteProjectOptions = {}): Promise<RoutedSkill> {
  const routes = await route(p, options)
  await writeRoutedSkill(join(root, 'out'), routes, p.config.knowledge)
  return routes
}

const HOUSE = {
  'backups/restore.md': '# Restore a backup\n\nOpen the archive and restore the files.\n',
  'backups/schedule.md': '# Schedule backups\n\nBackups run at night.\n',
  'network/vpn.md': '# VPN\n\nConnect with WireGuard.\n',
  'network/router.md': '# Router\n\nThe router is in the hall.\n',
  'printer.md': '# Printer\n\nLoad paper in the lower tray.\n',
}
const TOPICS: Record<string, string> = {
  'backups/restore.md': 'Backups',
  'backups/schedule.md': 'backup ',
  'network/vpn.md': 'Networking',
  'network/router.md': 'networking',
  'printer.md': 'Printers',
}

/** Every file under `dir`, as text. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir))
    return []
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map(name => join(dir, name))
    .filter(file => statSync(file).isFile())
    .map(file => readFileSync(file, 'utf8'))
}

/** The pages (paths) that list `path` as an entry, and the pages above them. */
function pagesAbove(routes: RoutedSkill, path: string): string[] {
  const found = new Set<string>()
  let targets = [`../references/${path}`]
  while (targets.length > 0) {
    const next: string[] = []
    for (const [page, text] of Object.entries(routes.pages)) {
      const entries = text.split('\n').filter(line => line.startsWith('- ['))
      if (!found.has(page) && targets.some(t => entries.some(line => line.includes(`](${t})`)))) {
        found.add(page)
        next.push(page.slice('indexes/'.length))
      }
    }
    targets = next
  }
  return [...found].sort()
}

const pageTitle = (text: string) => /^# (.*)$/m.exec(text)![1]!

describe('the LLM router', () => {
  it('asks once per document and once per page, JSON objects from the configured model with the key as bearer token', async () => {
    topicOf = path => TOPICS[path]!
    const routes = await route(project(HOUSE))
    const pages = Object.keys(routes.pages).length
    expect(calls.filter(c => c.kind === 'card').map(c => c.subject).sort()).toEqual(Object.keys(HOUSE).sort())
    expect(calls.filter(c => c.kind === 'page')).toHaveLength(pages)
    expect(calls).toHaveLength(Object.keys(HOUSE).length + pages)
    for (const call of calls) {
      expect(call.body.model).toBe('test-model')
      expect(call.body.response_format).toEqual({ type: 'json_object' })
      expect(call.authorization).toBe(`Bearer ${KEY}`)
      expect(call.system).toContain('Write in English.')
    }
    // Topics normalized: "Backups"/"backup ", "Networking"/"networking" make one group each.
    expect(Object.fromEntries(Object.values(routes.cards).map(card => [card.path, card.topics]))).toEqual({
      'backups/restore.md': ['Backups'],
      'backups/schedule.md': ['Backups'],
      'network/router.md': ['Networking'],
      'network/vpn.md': ['Networking'],
      'printer.md': ['Printers'],
    })
    const sent = calls.find(c => c.subject === 'network/vpn.md')!.user
    expect(routes.cards['network/vpn']).toEqual({ id: 'network/vpn', path: 'network/vpn.md', title: 'Title of network/vpn.md', summary: `Summary of network/vpn.md (${hash(sent).slice(0, 8)}).`, tasks: ['Task 1 of network/vpn.md'], topics: ['Networking'], tokens: 8 })
    expect(sent).toBe('Path: network/vpn.md\nID: network/vpn\nCategories: network\n\n# VPN\n\nConnect with WireGuard.')
    expect(Object.values(routes.pages).join('\n')).toMatch(/About Networking \(\S{8}\)\./)
    expect(unreachableDocuments(routes, Object.keys(HOUSE), 3)).toEqual([])
  })

  it('keeps a document\'s own categories verbatim, under each of them, and asks no topic for it', async () => {
    topicOf = () => 'home backups'
    const routes = await route(project({
      ...HOUSE,
      'backups/restore.md': '---\ncategory: Home Backups\ncategories: [Disaster recovery]\n---\n\n# Restore\n\nRestore the files.\n',
    }))
    expect(calls.find(c => c.subject === 'backups/restore.md')!.system).not.toContain('"topic"')
    expect(calls.find(c => c.subject === 'printer.md')!.system).toContain('"topic"')
    expect(routes.cards['backups/restore']!.topics).toEqual(['Disaster recovery', 'Home Backups'])
    // Proposed topics that match a category join it, spelt as the category is.
    expect(routes.cards['printer']!.topics).toEqual(['Home Backups'])
  })

  it('sends at most routing.concurrency requests at once', async () => {
    let arrived = 0
    const waiting: (() => void)[] = []
    reply = async (call) => {
      if (call.kind === 'page')
        return undefined
      arrived++
      // Held until two are in flight (or every card was asked), so any parallelism shows.
      await new Promise<void>((resolve) => {
        waiting.push(resolve)
        if (waiting.length === 2 || arrived === Object.keys(HOUSE).length)
          waiting.splice(0).forEach(release => release())
      })
      return undefined
    }
    await route(project(HOUSE, { concurrency: 2 }))
    expect(maxInFlight).toBe(2)
  })

  it('counts about one request per document plus one per page on the 147 Modern Web Guidance guides', async () => {
    const dir = join(root, 'project')
    cpSync(join(sourcePackageDir(), 'skills', 'modern-web-guidance', 'guides'), join(dir, 'knowledge'), { recursive: true })
    const p = project({}, { pageSize: 8 })
    const routes = await route(p)
    const documents = loadKnowledgeFolder(p.config.knowledge).documents
    const windows = documents.reduce((sum, document) => sum + documentWindows(document, 12_000).length, 0)
    const cards = calls.filter(c => c.kind === 'card').length
    const pages = calls.filter(c => c.kind === 'page').length
    expect(documents).toHaveLength(147)
    expect(cards).toBe(windows)
    expect(new Set(calls.filter(c => c.kind === 'card').map(c => c.subject)).size).toBe(147)
    expect(cards).toBeLessThan(147 * 1.2)
    expect(pages).toBe(Object.keys(routes.pages).length)
    expect(unreachableDocuments(routes, documents.map(d => d.path), 3)).toEqual([])
  })

  it('splits a long document into windows without losing its tail, and merges their answers into one card', async () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}: ${'words of the guide '.repeat(8)}end ${i}.`)
    const routes = await route(project({ 'long.md': `# Long guide\n\n${paragraphs.join('\n\n')}\n\n## Last section\n\nTAIL-MARKER at the very end.\n` }, { maxInputChars: 500 }))
    const cardCalls = calls.filter(c => c.kind === 'card')
    expect(cardCalls.length).toBeGreaterThan(3)
    expect(cardCalls.map(c => /^Part (\d+) of (\d+)/m.exec(c.user)!.slice(1).join('/'))).toEqual(cardCalls.map((_, i) => `${i + 1}/${cardCalls.length}`))
    const sent = cardCalls.map(c => c.user).join('\n')
    for (const paragraph of paragraphs)
      expect(sent).toContain(paragraph)
    expect(cardCalls.at(-1)!.user).toContain('TAIL-MARKER at the very end.')
    for (const call of cardCalls)
      expect(call.user.slice(call.user.indexOf('\n\n') + 2).length).toBeLessThanOrEqual(500)
    expect(routes.cards.long!.tasks).toEqual(['Task 1 of long.md', 'Task 2 of long.md', 'Task 3 of long.md', 'Task 4 of long.md'])
  })
})

describe('the LLM router\'s cache', () => {
  it('reuses every answer for unchanged documents; an edit asks again for that card and the pages that list it; force asks for everything', async () => {
    topicOf = path => TOPICS[path]!
    const p = project(HOUSE)
    const first = await route(p)
    const all = calls.length
    calls = []
    expect(await route(p)).toEqual(first)
    expect(calls).toEqual([])

    writeFileSync(join(p.config.knowledge, 'network/vpn.md'), '# VPN\n\nConnect with WireGuard, then check the tunnel.\n')
    const edited = await route(p)
    expect(calls.filter(c => c.kind === 'card').map(c => c.subject)).toEqual(['network/vpn.md'])
    expect(calls.filter(c => c.kind === 'page').map(c => c.subject).sort()).toEqual(pagesAbove(edited, 'network/vpn.md').map(page => pageTitle(edited.pages[page]!)).sort())
    expect(pagesAbove(edited, 'network/vpn.md')).toHaveLength(2)
    expect(calls.filter(c => c.kind === 'page').length).toBeLessThan(Object.keys(edited.pages).length)

    calls = []
    await route(p, { force: true })
    expect(calls).toHaveLength(all)
  })

  it('is keyed by model and endpoint: another model asks again', async () => {
    const p = project(HOUSE)
    await route(p)
    calls = []
    await route(project(HOUSE, { model: 'other-model' }))
    expect(calls.filter(c => c.kind === 'card')).toHaveLength(5)
  })

  it('builds offline from the cache only, with no request and no key, and names the document on a miss', async () => {
    const p = project(HOUSE)
    const online = await route(p)
    calls = []
    expect(await route(p, { offline: true, env: {} })).toEqual(online)
    expect(calls).toEqual([])
    writeFileSync(join(p.config.knowledge, 'printer.md'), '# Printer\n\nLoad paper in the upper tray.\n')
    await expect(route(p, { offline: true, env: {} })).rejects.toThrow('No cached answer for printer.md, and the build may use the cache only (offline). Build once with the model reachable, without offline.')
    expect(calls).toEqual([])
  })

  it('routes cache-only with no request and no key: what the model never answered is the offline router\'s, and listed', async () => {
    topicOf = path => TOPICS[path]!
    const p = project(HOUSE)
    const online = await route(p)
    calls = []
    const cached = newRoutingStats()
    expect(await route(p, { cacheOnly: true, env: {}, stats: cached })).toEqual(online)
    expect(cached.uncached).toEqual([])
    expect(cached.uncachedPages).toBe(0)

    writeFileSync(join(p.config.knowledge, 'printer.md'), '# Printer\n\nLoad paper in the upper tray.\n')
    const stats = newRoutingStats()
    const edited = await route(p, { cacheOnly: true, env: {}, stats })
    expect(calls).toEqual([])
    expect(edited.cards.printer).toEqual({ id: 'printer', path: 'printer.md', title: 'Printer', summary: 'Load paper in the upper tray.', tasks: [], topics: ['Other documents'], tokens: 11 })
    expect(edited.cards['network/vpn']).toEqual(online.cards['network/vpn'])
    expect(stats.uncached).toEqual(['printer.md'])
    // The page "Other documents", which the model never summarized.
    expect(stats.uncachedPages).toBe(1)
  })

  it('with a memo, parses and cards only the documents that changed, and routes as without it', async () => {
    const p = project(HOUSE)
    const memo = new RoutingMemo()
    const routed = async () => {
      const stats = newRoutingStats()
      const routes = await route(p, { memo, stats })
      return { routes, parsed: stats.parsed, carded: stats.carded }
    }
    const first = await routed()
    expect(first.parsed).toEqual(Object.keys(HOUSE).sort())
    expect([...first.carded].sort()).toEqual(Object.keys(HOUSE).sort())
    expect(await routed()).toEqual({ routes: first.routes, parsed: [], carded: [] })

    writeFileSync(join(p.config.knowledge, 'network/vpn.md'), '# VPN\n\nConnect with WireGuard, then check the tunnel.\n')
    calls = []
    const edited = await routed()
    expect({ parsed: edited.parsed, carded: edited.carded }).toEqual({ parsed: ['network/vpn.md'], carded: ['network/vpn.md'] })
    expect(calls.filter(c => c.kind === 'card').map(c => c.subject)).toEqual(['network/vpn.md'])

    rmSync(join(p.config.knowledge, 'printer.md'))
    writeFileSync(join(p.config.knowledge, 'garden.md'), '# Garden\n\nWater the roses.\n')
    const moved = await routed()
    expect({ parsed: moved.parsed, carded: moved.carded }).toEqual({ parsed: ['garden.md'], carded: ['garden.md'] })
    expect(moved.routes).toEqual(await route(p))
  })

  it('uses SKILL_KIT_LLM_MODEL when routing.model is empty, and the offline router when neither is set', async () => {
    const p = project(HOUSE, { model: '' })
    const offline = await route(p)
    expect(calls).toEqual([])
    expect(offline.cards['printer']!.summary).toBe('Load paper in the lower tray.')
    await route(p, { env: { TEST_KEY: KEY, SKILL_KIT_LLM_MODEL: 'env-model' } })
    expect(calls.map(c => c.body.model)).toEqual(calls.map(() => 'env-model'))
    expect(calls.length).toBeGreaterThan(5)
  })
})

describe('the LLM router\'s failures', () => {
  const failing = (answer: Reply) => {
    reply = call => (call.subject === 'printer.md' ? answer : undefined)
  }

  it('says which document got an answer that is not JSON', async () => {
    failing({ content: 'Sure! Here is the card: {title: ...' })
    await expect(publish(project(HOUSE))).rejects.toThrow('The model\'s answer for printer.md is not a JSON object: Sure! Here is the card: {title: ...')
    expect(existsSync(join(root, 'out'))).toBe(false)
  })

  it('says which document the model refused', async () => {
    failing({ refusal: 'I cannot help with printers.' })
    await expect(route(project(HOUSE))).rejects.toThrow('The model refused to describe printer.md: "I cannot help with printers.".')
  })

  it('says when an answer was cut short', async () => {
    failing({ finishReason: 'length' })
    await expect(route(project(HOUSE))).rejects.toThrow('The model\'s answer for printer.md did not finish normally (finish_reason "length", expected "stop"). When it is "length", lower "routing.maxInputChars" or use a model with a longer output.')
  })

  it('rejects an over-long field and a card without tasks', async () => {
    failing({ content: JSON.stringify({ title: 'T'.repeat(101), summary: 'S', tasks: ['a'], topic: 'Printers' }) })
    await expect(route(project(HOUSE))).rejects.toThrow('The model\'s answer for printer.md is invalid: "title" has 101 characters, at most 100 are allowed. Build again (the model may answer differently), or use another model.')
    failing({ content: JSON.stringify({ title: 'T', summary: 'S'.repeat(351), tasks: ['a'], topic: 'Printers' }) })
    await expect(route(project(HOUSE))).rejects.toThrow('"summary" has 351 characters, at most 350 are allowed.')
    failing({ content: JSON.stringify({ title: 'T', summary: 'S', tasks: ['a', 'b'.repeat(201)], topic: 'Printers' }) })
    await expect(route(project(HOUSE))).rejects.toThrow('The model\'s answer for printer.md is invalid: "tasks[1]" has 201 characters, at most 200 are allowed.')
    failing({ content: JSON.stringify({ title: 'T', summary: 'S', tasks: ['a'] }) })
    await expect(route(project(HOUSE))).rejects.toThrow('The model\'s answer for printer.md is invalid: "topic" must be a non-empty string.')
    failing({ content: JSON.stringify({ title: 'T', summary: 'S', tasks: [], topic: 'Printers' }) })
    await expect(route(project(HOUSE))).rejects.toThrow('The model\'s answer for printer.md is invalid: "tasks" must be a list of 1 to 4 strings.')
    failing({ content: JSON.stringify({ title: 'T', summary: 'S', tasks: ['a', 'b', 'c', 'd', 'e'], topic: 'Printers' }) })
    await expect(route(project(HOUSE))).rejects.toThrow('"tasks" must be a list of 1 to 4 strings.')
  })

  it('names the index page whose summary is invalid', async () => {
    topicOf = path => TOPICS[path]!
    reply = call => (call.kind === 'page' && call.subject === 'Networking' ? { content: JSON.stringify({ summary: 'S'.repeat(351) }) } : undefined)
    await expect(publish(project(HOUSE))).rejects.toThrow('The model\'s answer for the index page "Networking" is invalid: "summary" has 351 characters, at most 350 are allowed. Build again (the model may answer differently), or use another model.')
    expect(existsSync(join(root, 'out'))).toBe(false)
  })

  it('times out a request that gets no answer', async () => {
    failing({ hold: true })
    await expect(route(project({ 'printer.md': HOUSE['printer.md'] }, { timeoutMs: 300 }))).rejects.toThrow(`The model server at ${baseUrl} did not answer within 300 ms for printer.md. Raise "routing.timeoutMs" in skill-kit.json, or check the server.`)
  })

  it('waits as Retry-After says on 429, then goes on', async () => {
    reply = call => (call.subject === 'printer.md' && calls.filter(c => c.subject === 'printer.md').length === 1
      ? { status: 429, headers: { 'retry-after': '7' }, body: '{"error":{"message":"Rate limit reached"}}' }
      : undefined)
    const routes = await route(project(HOUSE))
    expect(calls.filter(c => c.subject === 'printer.md')).toHaveLength(2)
    expect(sleeps).toEqual([7000])
    expect(logs).toEqual(['HTTP 429 for printer.md; retrying in 7000 ms (attempt 2 of 4).'])
    expect(routes.cards.printer!.title).toBe('Title of printer.md')
  })

  it('retries a 500 with backoff and jitter, then succeeds', async () => {
    reply = call => (call.subject === 'printer.md' && calls.filter(c => c.subject === 'printer.md').length <= 2 ? { status: 500, body: 'upstream failed' } : undefined)
    await route(project(HOUSE))
    expect(calls.filter(c => c.subject === 'printer.md')).toHaveLength(3)
    expect(sleeps).toHaveLength(2)
    expect(sleeps[0]).toBeGreaterThanOrEqual(10)
    expect(sleeps[0]).toBeLessThan(20)
    expect(sleeps[1]).toBeGreaterThanOrEqual(20)
    expect(sleeps[1]).toBeLessThan(40)
  })

  it('gives up after 4 attempts, publishing nothing, and never echoes the key the server echoed', async () => {
    reply = call => (call.subject === 'printer.md' ? { status: 503, body: `{"error":"overloaded","received":"${call.authorization}"}` } : undefined)
    const p = project(HOUSE)
    const error = await publish(p).catch((e: Error) => e)
    expect((error as Error).message).toBe(`The model server at ${baseUrl} answered HTTP 503 after 4 attempts for printer.md: {"error":"overloaded","received":"Bearer [redacted]"}`)
    expect(calls.filter(c => c.subject === 'printer.md')).toHaveLength(4)
    expect(existsSync(join(root, 'out'))).toBe(false)
  })

  it('names the variable to set when the key is missing', async () => {
    await expect(route(project(HOUSE), { env: {} })).rejects.toThrow('The routing model "test-model" needs an API key in the environment variable TEST_KEY ("routing.apiKeyEnv"): export TEST_KEY=… before building. For a local server that ignores it, any placeholder will do.')
    expect(calls).toEqual([])
  })

  it('publishes nothing when a document changes during the build, and keeps what was published before', async () => {
    const p = project(HOUSE)
    await publish(p)
    const before = readFileSync(join(root, 'out', 'SKILL.md'), 'utf8')
    reply = (call) => {
      if (call.subject === 'printer.md')
        writeFileSync(join(p.config.knowledge, 'printer.md'), '# Printer\n\nLoad paper in the upper tray.\n')
      return undefined
    }
    await expect(publish(p, { force: true })).rejects.toThrow('Documents changed while the index pages were built, so none were published. Build again once the edits are done.')
    expect(readFileSync(join(root, 'out', 'SKILL.md'), 'utf8')).toBe(before)
    expect(readFileSync(join(root, 'out', 'references', 'printer.md'), 'utf8')).toBe(HOUSE['printer.md'])
  })

  it('never writes the key to the output tree, the cache or the logs', async () => {
    let first = true
    reply = (call) => {
      if (first) {
        first = false
        return { status: 429, headers: { 'retry-after': '0' }, body: `{"error":"slow down","echo":"${call.authorization}"}` }
      }
      return undefined
    }
    const p = project(HOUSE)
    const routes = await publish(p)
    expect(logs).toHaveLength(1)
    const everything = [JSON.stringify(routes), ...logs, ...filesUnder(join(root, 'out')), ...filesUnder(routingCacheDir(p)), ...filesUnder(p.dir)]
    expect(filesUnder(routingCacheDir(p)).length).toBeGreaterThan(5)
    for (const text of everything)
      expect(text).not.toContain(KEY)
    expect(calls.every(c => c.authorization === `Bearer ${KEY}`)).toBe(true)
  })
})
