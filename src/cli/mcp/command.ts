// `skill-kit mcp`: a project's skills and knowledge bases as an MCP server,
// over stdio (what agent hosts spawn) or Streamable HTTP on 127.0.0.1. On
// stdio, stdout is the protocol: everything for people goes to stderr.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Command, ParsedArgs } from '../command'
import type { CliIo } from '../io'
import type { Served } from './server'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PROJECT_FILE } from '../../knowledge/project'
import { packageRoot } from '../../export/assets'
import { DEFAULT_SKILL_DIRS } from '../../plugin/options'
import { flag, stringOption } from '../command'
import { CliError, UsageError } from '../io'
import { openCliProject } from '../knowledge/project'
import { displayPath } from '../report'
import { listenHttp } from './http'
import { ServedKnowledge } from './knowledge'
import { loadSdk } from './sdk'
import { createMcpServer } from './server'
import { SkillCatalog } from './skills'
import { listTools } from './tools'
import { watchServed } from './watch'

/** The port of `--http` without a number. */
export const DEFAULT_HTTP_PORT = 3845

/** The values of an option given several times. */
function many(args: ParsedArgs, name: string): string[] {
  const value = args.values[name] as unknown
  return Array.isArray(value) ? value as string[] : typeof value === 'string' ? [value] : []
}

/** `--http [port]`: `undefined` for stdio. */
function httpPort(args: ParsedArgs): number | undefined {
  const [text] = args.positionals
  if (!flag(args, 'http')) {
    if (text !== undefined)
      throw new UsageError(`Unexpected argument "${text}": a port is given after --http, e.g. skill-kit mcp --http ${text}.`)
    return undefined
  }
  if (text === undefined)
    return DEFAULT_HTTP_PORT
  const port = Number(text)
  if (!/^\d+$/.test(text) || port > 65_535)
    throw new UsageError(`--http takes a port from 0 to 65535 (0: any free port), got "${text}".`)
  return port
}

/** The registry folders: each `--skills`, else the plugin's defaults that exist. */
function skillRoots(args: ParsedArgs): string[] | undefined {
  const named = many(args, 'skills')
  for (const dir of named) {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      throw new CliError(`--skills ${dir} is not a folder. Point it at a folder of skills (<name>/SKILL.md or <name>.skill.md).`)
  }
  const roots = (named.length > 0 ? named : DEFAULT_SKILL_DIRS).map(dir => resolve(dir)).filter(dir => existsSync(dir))
  return roots.length > 0 ? roots : undefined
}

/** The knowledge projects: each `--project`, else the working folder when it holds a skill-kit.json. */
function knowledgeBases(args: ParsedArgs, io: CliIo): ServedKnowledge[] {
  const named = many(args, 'project')
  const dirs = named.length > 0 ? named : existsSync(PROJECT_FILE) ? ['.'] : []
  const root = stringOption(args, 'root')
  const bases = dirs.map(dir => new ServedKnowledge(openCliProject({ values: { project: dir, root }, positionals: [] }, io), flag(args, 'offline')))
  const seen = new Set<string>()
  for (const base of bases) {
    if (seen.has(base.name))
      throw new CliError(`Two knowledge projects are named "${base.name}": give one another "name" in its ${PROJECT_FILE}, so that tools and resources can tell them apart.`)
    seen.add(base.name)
  }
  return bases
}

function packageVersion(): string {
  const root = packageRoot(dirname(fileURLToPath(import.meta.url)))
  try {
    return root ? (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version : '0.0.0'
  }
  catch {
    return '0.0.0'
  }
}

/** Sends a list_changed notification to every connected server; a client that left is skipped. */
function notify(servers: readonly Server[], change: 'skills' | 'knowledge'): void {
  for (const server of servers) {
    if (change === 'skills')
      server.sendToolListChanged().catch(() => {})
    server.sendResourceListChanged().catch(() => {})
  }
}

/** Serves on stdio until the client closes stdin. */
async function serveStdio(served: Served, sdk: Awaited<ReturnType<typeof loadSdk>>, io: CliIo, onServers: (servers: () => Server[]) => void): Promise<void> {
  // stdout carries the protocol: a library's console.log there would break the session.
  console.log = console.error
  const server = createMcpServer(sdk, served)
  const transport = new sdk.StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve
    // The transport never closes itself: a host ends the session by closing our stdin.
    process.stdin.once('end', () => void server.close())
    process.stdin.once('close', () => void server.close())
  })
  onServers(() => [server])
  await server.connect(transport)
  io.err(`skill-kit mcp: serving ${describe(served)} on stdio.\n`)
  await closed
}

function describe({ catalog, knowledge }: Served): string {
  const parts = [
    ...(catalog ? [`${catalog.skills().length} skill(s) from ${catalog.roots.map(displayPath).join(', ')}`] : []),
    ...knowledge.map(k => `knowledge base "${k.name}"`),
  ]
  return parts.join(' and ')
}

/** `skill-kit mcp`. */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: '  mcp                   Serve the skills and knowledge bases to agents over MCP',
  usage: `Usage: skill-kit mcp [options]

Serves the project's skills and knowledge bases as an MCP server: over stdio
(what agent hosts start), or Streamable HTTP on 127.0.0.1 with --http. Tools:
skill, list_skills, read_skill_file, search, retrieve. Resources:
skill://<name>/SKILL.md and the skill's files, with sha256 digests (the MCP
skills extension); knowledge://<base>/SKILL.md and the routed index pages.
Knowledge bases answer from what the last "skill-kit build" published; a new
build is served without a restart. Needs @modelcontextprotocol/sdk.

Options:
  --skills <dir>        A folder of skills (<name>/SKILL.md, <name>.skill.md); may be
                        given several times (default: skills and .agents/skills, as
                        the bundler plugin, where they exist)
  --project <dir>       A knowledge project (a folder with ${PROJECT_FILE}) or a folder
                        of Markdown; may be given several times (default: the current
                        folder when it holds ${PROJECT_FILE})
  --root <dir>          For a folder of Markdown: where its index lives, under
                        <root>/.skill-kit/ (default: the current folder)
  --http [port]         Serve Streamable HTTP at http://127.0.0.1:<port>/mcp instead of
                        stdio (default port ${DEFAULT_HTTP_PORT}; 0: any free port)
  --offline             Never download the embedding model`,
  options: {
    skills: { type: 'string', multiple: true },
    project: { type: 'string', multiple: true },
    root: { type: 'string' },
    http: { type: 'boolean' },
    offline: { type: 'boolean' },
  },
  maxPositionals: 1,
  async run(args, io) {
    const port = httpPort(args)
    const roots = skillRoots(args)
    const knowledge = knowledgeBases(args, io)
    if (!roots && knowledge.length === 0)
      throw new CliError(`Nothing to serve in the current folder: no skills folder (${DEFAULT_SKILL_DIRS.join(', ')}) and no ${PROJECT_FILE}. Point --skills at a folder of skills or --project at a knowledge project, or run the command in a project that has them.`)
    const sdk = await loadSdk()
    const catalog = roots && new SkillCatalog(roots)
    // The watcher below reports every change: requests need not read the skills again.
    catalog?.trustUntilInvalidated()
    const served: Served = { catalog, knowledge, version: packageVersion() }
    let servers: () => Server[] = () => []
    const stop = watchServed({
      skillRoots: roots ?? [],
      onSkillPath: path => catalog?.invalidate(path),
      onWatchLost: () => catalog?.stopTrusting(),
      outputs: knowledge.map(k => k.project.config.output),
      skillsSignature: () => JSON.stringify(listTools({ catalog, knowledge: [] })) + JSON.stringify(catalog?.skills().map(s => catalog.files(s)) ?? []),
      knowledgeVersions: () => knowledge.map(k => k.version()),
      onChange: change => notify(servers(), change),
    })
    try {
      if (port === undefined) {
        await serveStdio(served, sdk, io, (list) => { servers = list })
        return 0
      }
      const endpoint = await listenHttp(sdk, port, () => createMcpServer(sdk, served))
      servers = endpoint.servers
      io.err(`skill-kit mcp: serving ${describe(served)} at ${endpoint.url}\n`)
      const stopHttp = () => void endpoint.close()
      process.once('SIGINT', stopHttp)
      process.once('SIGTERM', stopHttp)
      await endpoint.closed
      return 0
    }
    finally {
      stop()
    }
  },
}
