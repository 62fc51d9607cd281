// `skill-kit mcp --http 0` driven by the MCP SDK's Client over Streamable HTTP
// on 127.0.0.1: the same tools as over stdio, a skill added while connected
// announced by tools/list_changed, and requests through another host name
// (DNS rebinding) refused.

import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultProjectConfig } from '../../../src/knowledge/config'
import { bundleCli, runCli } from '../../support/cli'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/cli-mcp-http')
let server: ChildProcess
let url: URL
let client: Client
let stderr = ''

/** A tool call's text and error flag. */
async function call(name: string, args: Record<string, unknown>): Promise<{ text: string, isError: boolean }> {
  const result = await client.callTool({ name, arguments: args }) as { content: { text: string }[], isError?: boolean }
  return { text: result.content.map(c => c.text).join(''), isError: result.isError === true }
}

/** Status of a raw POST initialize to the endpoint with the given Host (and Origin) header. */
function statusWithHost(host: string, origin?: string): Promise<number> {
  return new Promise((done, fail) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } })
    const req = request(url, { method: 'POST', headers: { 'host': host, ...(origin ? { origin } : {}), 'content-type': 'application/json', 'accept': 'application/json, text/event-stream' } }, (response) => {
      response.resume()
      done(response.statusCode ?? 0)
    })
    req.on('error', fail)
    req.end(body)
  })
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  const script = await bundleCli(work)
  cpSync(join(repo, 'test/fixtures/registry/skills'), join(work, 'skills'), { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(work, 'knowledge'), { recursive: true })
  writeFileSync(join(work, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig('home'), model: false }, null, 2))
  expect((await runCli(script, work, ['build'])).code).toBe(0)

  server = spawn(process.execPath, [script, 'mcp', '--http', '0'], { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] })
  url = await new Promise<URL>((done, fail) => {
    server.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = / at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stderr)
      if (match)
        done(new URL(match[1]!))
    })
    server.once('exit', code => fail(new Error(`skill-kit mcp exited with ${code}: ${stderr}`)))
  })
  client = new Client({ name: 'skill-kit-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url))
}, 60_000)

afterAll(async () => {
  await client?.close()
  server?.kill()
})

describe('skill-kit mcp --http', () => {
  it('listens on 127.0.0.1 and says where', () => {
    expect(url.hostname).toBe('127.0.0.1')
    expect(stderr).toBe(`skill-kit mcp: serving 3 skill(s) from skills and knowledge base "home" at ${url.href}\n`)
  })

  it('serves the same tools: loads a cover, reads a section, searches, retrieves', async () => {
    expect((await client.listTools()).tools.map(t => t.name)).toEqual(['skill', 'search_skills', 'list_skills', 'read_skill_file', 'search', 'retrieve'])
    expect((await call('skill', { action: 'load', skill: 'commit-style' })).text).toContain('Body sentinel: wombatbeta.')
    expect((await call('skill', { action: 'read_section', skill: 'db-migrations', section_id: 'large-tables' })).text).toContain('primary key ranges')
    expect(JSON.parse((await call('search', { query: 'borg' })).text)[0].id).toBe('restore-backup')
    expect((await call('retrieve', { id: 'restore-backup' })).text).toContain('# Restore a backup')
  })

  it('announces a skill added while connected (tools/list_changed), then serves it', async () => {
    const changed = new Promise<void>(resolve => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()))
    mkdirSync(join(work, 'skills/deploy-checks'))
    writeFileSync(join(work, 'skills/deploy-checks/SKILL.md'), '---\nname: deploy-checks\ndescription: Check a deployment before it goes live.\n---\n\nRun the smoke tests. Body sentinel: wombatdelta.\n')
    await changed
    const skill = (await client.listTools()).tools.find(t => t.name === 'skill')!
    expect(skill.description).toContain('- deploy-checks: Check a deployment before it goes live.')
    expect((await call('skill', { action: 'load', skill: 'deploy-checks' })).text).toContain('wombatdelta')

    // Edited, then removed: each announced, each served as it is now.
    const edited = new Promise<void>(resolve => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()))
    writeFileSync(join(work, 'skills/deploy-checks/SKILL.md'), '---\nname: deploy-checks\ndescription: Check a deployment before it goes live.\n---\n\nRun the load tests. Body sentinel: wombatepsilon.\n')
    await edited
    expect((await call('skill', { action: 'load', skill: 'deploy-checks' })).text).toContain('wombatepsilon')
    const removed = new Promise<void>(resolve => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()))
    rmSync(join(work, 'skills/deploy-checks'), { recursive: true })
    await removed
    expect(await call('skill', { action: 'load', skill: 'deploy-checks' })).toMatchObject({ isError: true, text: expect.stringContaining('Unknown skill "deploy-checks"') })
  })

  it('refuses a request through another host name (DNS rebinding) or from a web page of another site', async () => {
    expect(await statusWithHost('attacker.example')).toBe(403)
    expect(await statusWithHost(url.host, 'https://attacker.example')).toBe(403)
    expect(await statusWithHost(url.host)).toBe(200)
  })
})
