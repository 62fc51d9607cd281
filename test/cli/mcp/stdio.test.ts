// `skill-kit mcp` driven by the MCP SDK's own Client over stdio, as an agent
// host starts it: the CLI (bin/skill-kit.mjs on the current sources) in its
// own process, on a project with skills, a lexical knowledge base, and files
// outside its folders that no request may reach.

import type { CliRun } from '../../support/cli'
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ResourceListChangedNotificationSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultProjectConfig } from '../../../src/knowledge/config'
import { bundleCli, runCli } from '../../support/cli'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/cli-mcp')
/** In files outside the project's skill and knowledge folders: must never reach the client. */
const SECRET = 'outside-sentinel-7731'
let script: string
let client: Client
let stderr = ''

const skillKit = (...args: string[]): Promise<CliRun> => runCli(script, work, args)

/** A tool call's text and error flag. */
async function call(name: string, args: Record<string, unknown>): Promise<{ text: string, isError: boolean }> {
  const result = await client.callTool({ name, arguments: args }) as { content: { type: string, text: string }[], isError?: boolean }
  return { text: result.content.map(c => c.text).join(''), isError: result.isError === true }
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  script = await bundleCli(work)
  cpSync(join(repo, 'test/fixtures/registry/skills'), join(work, 'skills'), { recursive: true })
  mkdirSync(join(work, 'skills/release-notes/scripts'), { recursive: true })
  writeFileSync(join(work, 'skills/release-notes/SKILL.md'), '---\nname: release-notes\ndescription: Write release notes from the changelog.\n---\n\nRun scripts/check.sh first.\n')
  writeFileSync(join(work, 'skills/release-notes/scripts/check.sh'), '#!/bin/sh\necho checked\n')
  mkdirSync(join(work, 'outside'))
  writeFileSync(join(work, 'outside/secret.md'), `# Secret\n\n${SECRET}\n`)
  writeFileSync(join(work, 'outside/SKILL.md'), `---\nname: escape\ndescription: A skill file outside the skills folder.\n---\n\n${SECRET}\n`)
  // A skill whose SKILL.md is a link out of the folder, and a link out inside a served skill's folder.
  mkdirSync(join(work, 'skills/escape'))
  symlinkSync(join(work, 'outside/SKILL.md'), join(work, 'skills/escape/SKILL.md'))
  symlinkSync(join(work, 'outside/secret.md'), join(work, 'skills/release-notes/leak.md'))

  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(work, 'knowledge'), { recursive: true })
  writeFileSync(join(work, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig('home'), model: false }, null, 2))
  expect((await skillKit('build')).code).toBe(0)

  const transport = new StdioClientTransport({ command: process.execPath, args: [script, 'mcp'], cwd: work, stderr: 'pipe' })
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  client = new Client({ name: 'skill-kit-test', version: '1.0.0' })
  await client.connect(transport)
}, 60_000)

afterAll(async () => {
  await client?.close()
})

describe('skill-kit mcp over stdio', () => {
  it('lists the skill and knowledge tools; the skill tool lists the skills, never a file outside', async () => {
    const { tools } = await client.listTools()
    expect(tools.map(t => t.name)).toEqual(['skill', 'search_skills', 'list_skills', 'read_skill_file', 'search', 'retrieve'])
    const skill = tools.find(t => t.name === 'skill')!
    expect(skill.description).toContain('- db-migrations: Write and review SQL schema migrations.')
    expect(skill.description).toContain('- release-notes: Write release notes from the changelog.')
    expect(skill.description).not.toContain('escape')
    expect(skill.inputSchema.required).toEqual(['action', 'skill'])
    // Everything only reads: hosts may call the tools without asking each time.
    expect(tools.map(t => t.annotations)).toEqual(tools.map(() => ({ readOnlyHint: true, openWorldHint: false })))
    expect(client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/skills': {} })
  })

  it('loads a progressive skill\'s cover and reads one of its sections', async () => {
    const cover = await call('skill', { action: 'load', skill: 'db-migrations' })
    expect(cover.isError).toBe(false)
    expect(cover.text).toContain('Every migration is reversible')
    expect(cover.text).toContain('add-column')
    expect(cover.text).not.toContain('wombatalpha')
    const section = await call('skill', { action: 'read_section', skill: 'db-migrations', section_id: 'add-column' })
    expect(section).toEqual({ isError: false, text: expect.stringContaining('Body sentinel: wombatalpha.') })
    const unknown = await call('skill', { action: 'load', skill: 'db-migration' })
    expect(unknown).toEqual({ isError: true, text: expect.stringContaining('Unknown skill "db-migration". Did you mean "db-migrations"?') })
  })

  it('lists skills with their files, and reads a bundled file', async () => {
    const listed = JSON.parse((await call('list_skills', {})).text) as { name: string, files: string[], uri: string }[]
    expect(listed.map(s => s.name)).toEqual(['commit-style', 'db-migrations', 'quick-answers', 'release-notes'])
    expect(listed.find(s => s.name === 'release-notes')).toMatchObject({ uri: 'skill://release-notes/SKILL.md', files: ['scripts/check.sh'] })
    expect(await call('read_skill_file', { skill: 'release-notes', path: 'scripts/check.sh' })).toEqual({ isError: false, text: '#!/bin/sh\necho checked\n' })
    expect(await call('read_skill_file', { skill: 'release-notes', path: 'scripts/../scripts/check.sh' })).toEqual({ isError: false, text: '#!/bin/sh\necho checked\n' })
  })

  it('refuses every path outside the skill folders: "..", absolute paths, links out', async () => {
    for (const path of ['../commit-style/SKILL.md', '../../outside/secret.md', join(work, 'outside/secret.md'), 'leak.md']) {
      const answer = await call('read_skill_file', { skill: 'release-notes', path })
      expect(answer.isError).toBe(true)
      expect(answer.text).not.toContain(SECRET)
    }
    expect((await call('read_skill_file', { skill: 'release-notes', path: '../../outside/secret.md' })).text)
      .toBe('"../../outside/secret.md" of skill "release-notes" is outside the skill\'s folder: name a file of the skill by its path in the folder, without "..".')
    expect(await call('skill', { action: 'load', skill: 'escape' })).toMatchObject({ isError: true })
    for (const uri of ['skill://release-notes/../../outside/secret.md', 'skill://release-notes/leak.md', 'skill://escape/SKILL.md', 'skill://release-notes/%2E%2E/%2E%2E/outside/secret.md'])
      await expect(client.readResource({ uri })).rejects.toThrow(/outside|no file|No skill/)
  })

  it('lists skills as resources, with sha256 digests of the bytes it serves (skills/list, skills/get)', async () => {
    const { resources } = await client.listResources()
    const skills = resources.filter(r => r.uri.startsWith('skill://'))
    expect(skills.map(r => r.uri)).toEqual(['skill://commit-style/SKILL.md', 'skill://db-migrations/SKILL.md', 'skill://quick-answers/SKILL.md', 'skill://release-notes/SKILL.md'])
    expect(skills[1]).toMatchObject({ name: 'db-migrations', mimeType: 'text/markdown', description: expect.stringContaining('SQL schema migrations') })

    const { skills: entries } = await client.request({ method: 'skills/list', params: {} }, ResultSchema.passthrough()) as unknown as { skills: { uri: string, frontmatter: Record<string, unknown>, resources: { uri: string, digest: string, size: number }[] }[] }
    const notes = entries.find(e => e.uri === 'skill://release-notes/SKILL.md')!
    expect(notes.frontmatter).toEqual({ name: 'release-notes', description: 'Write release notes from the changelog.' })
    expect(notes.resources.map(r => r.uri)).toEqual(['skill://release-notes/SKILL.md', 'skill://release-notes/scripts/check.sh'])
    for (const entry of notes.resources) {
      const read = await client.readResource({ uri: entry.uri })
      const bytes = Buffer.from((read.contents[0] as { text: string }).text)
      expect(entry).toEqual({ uri: entry.uri, digest: sha256(bytes), size: bytes.byteLength })
    }
    expect(notes.resources[0]!.digest).toBe(sha256(readFileSync(join(work, 'skills/release-notes/SKILL.md'))))
    // A .skill.md file is its skill's SKILL.md.
    const quick = await client.readResource({ uri: 'skill://quick-answers/SKILL.md' })
    expect((quick.contents[0] as { text: string }).text).toBe(readFileSync(join(work, 'skills/quick-answers.skill.md'), 'utf8'))

    const got = await client.request({ method: 'skills/get', params: { uri: 'skill://db-migrations/SKILL.md' } }, ResultSchema.passthrough()) as unknown as { skill: { frontmatter: { progressive: unknown } } }
    expect(got.skill.frontmatter.progressive).toEqual({ always: ['rules'] })
    await expect(client.request({ method: 'skills/get', params: { uri: 'skill://escape/SKILL.md' } }, ResultSchema)).rejects.toThrow(/-32602/)
  })

  it('searches and retrieves as skill-kit search and retrieve print', async () => {
    const query = 'How can I recover deleted files?'
    const searched = await call('search', { query })
    expect(searched.isError).toBe(false)
    expect(JSON.parse(searched.text)).toEqual(JSON.parse((await skillKit('search', query)).stdout))
    expect(JSON.parse(searched.text)[0]).toMatchObject({ id: 'restore-backup', path: 'backups/restore.md' })
    const retrieved = await call('retrieve', { id: 'restore-backup' })
    expect(retrieved.text.replace(/\n?$/, '\n')).toBe((await skillKit('retrieve', 'restore-backup')).stdout)

    const cli = await skillKit('retrieve', 'restore-backups')
    expect(await call('retrieve', { id: 'restore-backups' })).toEqual({ isError: true, text: cli.stderr.replace(/^skill-kit retrieve: /, '').trimEnd() })
    expect(await call('search', { query: 'backup', mode: 'vector' })).toEqual({ isError: true, text: expect.stringContaining('"home" has no model ("model": false in skill-kit.json)') })
    expect(await call('search', { query: 'backup', top_k: 0 })).toEqual({ isError: true, text: '"top_k" must be a positive integer, got 0.' })
  })

  it('serves the routed index pages, and the documents they link to', async () => {
    const { resources } = await client.listResources()
    expect(resources.map(r => r.uri)).toContain('knowledge://home/SKILL.md')
    const entry = (await client.readResource({ uri: 'knowledge://home/SKILL.md' })).contents[0] as { text: string }
    expect(entry.text).toContain('name: home')
    const document = (await client.readResource({ uri: 'knowledge://home/references/backups/restore.md' })).contents[0] as { text: string }
    expect(document.text).toContain('borg list /mnt/backup')
    // A page's link resolved by a client that keeps the dot segments.
    const linked = (await client.readResource({ uri: 'knowledge://home/indexes/../references/backups/restore.md' })).contents[0] as { text: string }
    expect(linked.text).toBe(document.text)
    await expect(client.readResource({ uri: 'knowledge://home/references/../outside/secret.md' })).rejects.toThrow(/not a page/)
    await expect(client.readResource({ uri: 'knowledge://home/../cli-mcp/outside/secret.md' })).rejects.toThrow(/is outside "home"/)
  })

  it('sees a new build without a restart: a list_changed notification, then the new document', async () => {
    const changed = new Promise<void>(resolve => client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()))
    writeFileSync(join(work, 'knowledge/backups/offsite.md'), '---\nid: offsite-copies\ndescription: Keep a copy of the backups in another building.\n---\n\n# Offsite copies\n\nRotate the zebrafinch drives weekly.\n')
    expect((await skillKit('build')).code).toBe(0)
    await changed
    const results = JSON.parse((await call('search', { query: 'zebrafinch drives' })).text) as { id: string }[]
    expect(results[0]!.id).toBe('offsite-copies')
    expect((await call('retrieve', { id: 'offsite-copies' })).text).toContain('zebrafinch')
  })

  it('refuses to start with nothing to serve, or a skills folder that is not there, saying what to pass', async () => {
    const empty = join(work, 'empty')
    mkdirSync(empty, { recursive: true })
    expect(await runCli(script, empty, ['mcp'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'skill-kit mcp: Nothing to serve in the current folder: no skills folder (skills, .agents/skills) and no skill-kit.json. Point --skills at a folder of skills or --project at a knowledge project, or run the command in a project that has them.\n',
    })
    expect(await runCli(script, empty, ['mcp', '--skills', 'missing'])).toMatchObject({ code: 1, stderr: 'skill-kit mcp: --skills missing is not a folder. Point it at a folder of skills (<name>/SKILL.md or <name>.skill.md).\n' })
    expect(await runCli(script, empty, ['mcp', '3845'])).toMatchObject({ code: 2, stderr: expect.stringContaining('Unexpected argument "3845": a port is given after --http, e.g. skill-kit mcp --http 3845.') })
    expect(await runCli(script, empty, ['mcp', '--http', 'eighty'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--http takes a port from 0 to 65535 (0: any free port), got "eighty".') })
  })

  it('without the SDK installed, says in one line what to install, exit 1', async () => {
    const run = await runCli(script, work, ['mcp'], ['--import', join(repo, 'test/support/no-mcp-sdk.mjs')])
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'skill-kit mcp: @modelcontextprotocol/sdk is not installed (an optional peer dependency of unplugin-skill-kit, needed by this command only): install it with "npm install --save-dev @modelcontextprotocol/sdk".\n' })
  })

  it('says what it serves on stderr, and nothing else', () => {
    expect(stderr).toBe('skill-kit mcp: serving 4 skill(s) from skills and knowledge base "home" on stdio.\n')
  })
})
