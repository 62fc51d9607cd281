// The MCP server in-process, through the SDK's linked in-memory transports:
// the cases that need no process of their own (several knowledge bases, a
// base with no index yet, a server with no skills folder, bad requests).

import type { ServedKnowledge as Base } from '../../../src/cli/mcp/knowledge'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { run } from '../../../src/cli/index'
import { ServedKnowledge } from '../../../src/cli/mcp/knowledge'
import { loadSdk } from '../../../src/cli/mcp/sdk'
import { createMcpServer } from '../../../src/cli/mcp/server'
import { SkillCatalog } from '../../../src/cli/mcp/skills'
import { openKnowledgeProject } from '../../../src/knowledge/project'
import { defaultProjectConfig } from '../../../src/knowledge/config'
import { buildTinyModel, TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import { writeSkills } from '../../../bench/corpus.mjs'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/cli-mcp-server')
const quiet = { out: () => {}, err: () => {}, errIsTTY: false }
const clients: Client[] = []

function project(name: string, model: unknown = false): string {
  const dir = join(work, name)
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(dir, 'knowledge'), { recursive: true })
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig(name), model }, null, 2))
  return dir
}

const base = (dir: string): Base => new ServedKnowledge(openKnowledgeProject(dir).project!, true)

/** A client connected to a new server over linked in-memory transports. */
async function connect(catalog: SkillCatalog | undefined, knowledge: Base[]): Promise<Client> {
  const server = createMcpServer(await loadSdk(), { catalog, knowledge, version: '0.0.0-test' })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'test', version: '1.0.0' })
  await client.connect(clientSide)
  clients.push(client)
  return client
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string, isError: boolean }> {
  const result = await client.callTool({ name, arguments: args }) as { content: { text: string }[], isError?: boolean }
  return { text: result.content.map(c => c.text).join(''), isError: result.isError === true }
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  for (const name of ['home', 'office']) {
    const dir = project(name)
    expect(await run(['build', '--project', dir], quiet)).toBe(0)
  }
  writeFileSync(join(work, 'office/knowledge/printers.md'), '---\nid: printer-setup\ndescription: Add the office printer.\n---\n\n# Printer setup\n\nThe quetzal printer is on floor two.\n')
  expect(await run(['build', '--project', join(work, 'office')], quiet)).toBe(0)
  project('unbuilt')
  // A project with a model (the tiny test model, built offline): searched by vectors and words fused.
  await buildTinyModel(join(work, 'models'))
  expect(await run(['build', '--project', project('vectors', { id: TINY_MODEL_ID, cacheDir: '../models' })], quiet)).toBe(0)
}, 60_000)

afterEach(async () => {
  await Promise.all(clients.splice(0).map(c => c.close()))
})

describe('the MCP server', () => {
  it('with several knowledge bases, asks which one and searches each', async () => {
    const client = await connect(undefined, [base(join(work, 'home')), base(join(work, 'office'))])
    const search = (await client.listTools()).tools.find(t => t.name === 'search')!
    expect(search.inputSchema.required).toEqual(['query', 'knowledge_base'])
    expect((search.inputSchema.properties as Record<string, { enum?: string[] }>).knowledge_base!.enum).toEqual(['home', 'office'])
    expect(await call(client, 'search', { query: 'quetzal printer' })).toEqual({ isError: true, text: '"knowledge_base" must be one of "home", "office"; got undefined.' })
    expect(await call(client, 'search', { query: 'quetzal printer', knowledge_base: 'Office' })).toEqual({ isError: true, text: '"knowledge_base" must be one of "home", "office"; got "Office".' })
    expect(JSON.parse((await call(client, 'search', { query: 'quetzal printer', knowledge_base: 'office' })).text)[0].id).toBe('printer-setup')
    expect(JSON.parse((await call(client, 'search', { query: 'quetzal printer', knowledge_base: 'home' })).text).map((r: { id: string }) => r.id)).not.toContain('printer-setup')
    expect((await call(client, 'retrieve', { id: 'printer-setup', knowledge_base: 'office' })).text).toContain('floor two')
  })

  it('ranks a project with a model as skill-kit search does, in each mode', async () => {
    const dir = join(work, 'vectors')
    const client = await connect(undefined, [base(dir)])
    for (const mode of [undefined, 'vector', 'hybrid', 'lexical']) {
      const answer = await call(client, 'search', { query: 'recover a deleted file', ...(mode ? { mode } : {}) })
      let printed = ''
      const cli = await run(['search', 'recover a deleted file', '--project', dir, '--offline', ...(mode ? ['--mode', mode] : [])], { ...quiet, out: (text: string) => { printed += text } })
      expect(cli, mode).toBe(0)
      expect(answer.isError, mode).toBe(false)
      expect(JSON.parse(answer.text), mode).toEqual(JSON.parse(printed))
      expect(JSON.parse(answer.text).length, mode).toBeGreaterThan(0)
    }
  })

  it('offers no skill tools and no skills extension without a skills folder', async () => {
    const client = await connect(undefined, [base(join(work, 'home'))])
    expect((await client.listTools()).tools.map(t => t.name)).toEqual(['search', 'retrieve'])
    expect(client.getServerCapabilities()?.extensions).toBeUndefined()
    await expect(client.request({ method: 'skills/list', params: {} }, ResultSchema)).rejects.toThrow(/Method not found/)
  })

  it('says how to publish an index that is not there, for tools and pages', async () => {
    const client = await connect(undefined, [base(join(work, 'unbuilt'))])
    expect(await call(client, 'search', { query: 'backup' })).toEqual({ isError: true, text: 'No index is published in test/.tmp/cli-mcp-server/unbuilt/.skill-kit/index. Run "skill-kit build" first.' })
    expect((await client.listResources()).resources).toEqual([])
    await expect(client.readResource({ uri: 'knowledge://unbuilt/SKILL.md' })).rejects.toThrow('Run "skill-kit build" first.')
  })

  it('lists a few skills in the skill tool, and finds hundreds with search_skills instead of listing them', async () => {
    const few = join(work, 'few-skills')
    cpSync(join(repo, 'test/fixtures/registry/skills'), few, { recursive: true })
    const small = await connect(new SkillCatalog([few]), [])
    const smallTools = (await small.listTools()).tools
    expect(smallTools.map(t => t.name)).toEqual(['skill', 'search_skills', 'list_skills', 'read_skill_file'])
    expect(smallTools[0]!.description).toContain('- commit-style: ')
    expect((await call(small, 'search_skills', { query: 'write a database migration' })).text.split('\n')[1]).toMatch(/^- db-migrations: /)

    const many = join(work, 'many-skills')
    writeSkills(many, 240)
    const large = await connect(new SkillCatalog([many]), [])
    const [skill] = (await large.listTools()).tools
    expect(skill!.description).not.toContain('- pdf-converter: ')
    expect(skill!.description).toContain('search_skills')
    const found = await call(large, 'search_skills', { query: 'Convert this PDF into something I can edit', limit: 3 })
    expect(found.isError).toBe(false)
    expect(found.text.split('\n')[1]).toMatch(/^- pdf-converter: /)
    expect((await call(large, 'skill', { action: 'load', skill: 'pdf-converter' })).isError).toBe(false)
  })

  it('answers bad arguments with what to send instead, never a stack trace', async () => {
    const skills = join(work, 'skills')
    cpSync(join(repo, 'test/fixtures/registry/skills'), skills, { recursive: true })
    const client = await connect(new SkillCatalog([skills]), [base(join(work, 'home'))])
    expect(await call(client, 'search', { query: '' })).toEqual({ isError: true, text: '"query" must be a non-empty string, e.g. "restore a deleted file"; got "".' })
    expect(await call(client, 'search', { query: 'backup', threshold: 2 })).toEqual({ isError: true, text: '"threshold" must be a number from -1 to 1, got 2.' })
    expect(await call(client, 'search', { query: 'backup', mode: 'fuzzy' })).toEqual({ isError: true, text: '"mode" must be auto, vector, lexical or hybrid, got "fuzzy".' })
    expect(await call(client, 'read_skill_file', { skill: 'commit-style', path: 'notes.md' })).toEqual({ isError: true, text: 'Skill "commit-style" has no file "notes.md". Its files: SKILL.md.' })
    expect(await call(client, 'read_skill_file', { skill: 'x'.repeat(5000), path: 'SKILL.md' })).toMatchObject({ isError: true, text: expect.stringMatching(/^Unknown skill "x{79}…\. Skills: commit-style, db-migrations, quick-answers\.$/) })
    expect(await call(client, 'delete_everything', {})).toEqual({ isError: true, text: 'Unknown tool "delete_everything". Tools: skill, search_skills, list_skills, read_skill_file, search, retrieve.' })
    await expect(client.request({ method: 'skills/get', params: { uri: 'skill://commit-style/../db-migrations/SKILL.md' } }, ResultSchema)).rejects.toThrow(/-32602/)
    const text = (await client.readResource({ uri: 'skill://commit-style/SKILL.md' })).contents[0] as { text: string, mimeType: string }
    expect(text).toMatchObject({ mimeType: 'text/markdown', text: expect.stringContaining('wombatbeta') })
  })
})
