// The routing model's server, as skill-kit.json configures it, against real
// servers on 127.0.0.1: routing.retryBudgetMs bounds the waits of a request,
// and a redirect to another origin is never followed.

import type { Call, Reply } from '../support/model-server'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { RoutingError } from '../../src/routing/client'
import { routeKnowledgeProject } from '../../src/routing/project'
import { startModelServer } from '../support/model-server'

const KEY = 'sk-Test-9e4B2a7C5d1F3068'

let model: Awaited<ReturnType<typeof startModelServer>>
let elsewhere: Awaited<ReturnType<typeof startModelServer>>
let reply: (call: Call) => Reply | undefined = () => undefined
let heardElsewhere = 0
beforeAll(async () => {
  model = await startModelServer({ onCall: () => {}, reply: call => reply(call) })
  elsewhere = await startModelServer({ onCall: () => heardElsewhere++ })
})
afterAll(async () => {
  await Promise.all([model.close(), elsewhere.close()])
})

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'skill-kit-routing-answers-'))
  return () => rmSync(root, { recursive: true, force: true })
})

/** Routes a one-document project with `routing` settings; the error, the waits and the retry lines. */
async function route(routing: Record<string, unknown>, now = Date.now()) {
  const dir = join(root, 'project')
  mkdirSync(join(dir, 'knowledge'), { recursive: true })
  writeFileSync(join(dir, 'knowledge', 'printer.md'), '# Printer\n\nLoad paper in the lower tray.\n')
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name: 'home', routing: { baseUrl: model.baseUrl, model: 'test-model', apiKeyEnv: 'TEST_KEY', ...routing } }))
  const opened = openKnowledgeProject(dir)
  expect(opened.diagnostics).toEqual([])
  const sleeps: number[] = []
  const logs: string[] = []
  const error = await routeKnowledgeProject(opened.project!, {
    env: { TEST_KEY: KEY },
    log: line => logs.push(line),
    client: { sleep: async (ms) => { sleeps.push(ms) }, now: () => now },
  }).then(() => undefined, (e: unknown) => e as Error)
  return { error, sleeps, logs }
}

describe('the routing model\'s server', () => {
  it('fails at once when Retry-After asks for more than "routing.retryBudgetMs" leaves', async () => {
    reply = () => ({ status: 429, headers: { 'retry-after': '999999999' }, body: '{"error":{"message":"Rate limit reached"}}' })
    const { error, sleeps, logs } = await route({ retryBudgetMs: 10_000 })
    expect(error).toBeInstanceOf(RoutingError)
    expect(error!.message).toBe(`The model server at ${model.baseUrl} answered HTTP 429 for printer.md: {"error":{"message":"Rate limit reached"}} It asks to be retried after "999999999" (Retry-After), which would pass "routing.retryBudgetMs" (10000 ms a request, 10000 ms left). Build again later, or raise "routing.retryBudgetMs" in skill-kit.json.`)
    expect(sleeps).toEqual([])
    expect(logs).toEqual([])
  })

  it('waits within the default budget of 120 s, a date included', async () => {
    const now = Date.UTC(2030, 0, 1)
    let first = true
    reply = () => {
      if (!first)
        return undefined
      first = false
      return { status: 503, headers: { 'retry-after': new Date(now + 90_000).toUTCString() } }
    }
    const { error, sleeps } = await route({}, now)
    expect(error).toBeUndefined()
    expect(sleeps).toEqual([90_000])
  })

  it('never follows a redirect to another origin, which hears nothing', async () => {
    reply = () => ({ status: 307, headers: { location: `${elsewhere.baseUrl}/chat/completions` } })
    const { error } = await route({})
    expect(error!.message).toBe(`The model server at ${model.baseUrl} answered printer.md with HTTP 307, a redirect to another origin, "${new URL(elsewhere.baseUrl).origin}", which is never followed: the key and the documents go to "routing.baseUrl" only. Set "routing.baseUrl" in skill-kit.json to the URL the API answers at without a redirect.`)
    expect(heardElsewhere).toBe(0)
  })
})
