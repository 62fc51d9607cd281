// One MCP session's server: the SDK's low-level Server with plain JSON Schemas,
// its handlers answering from the skill catalog and the knowledge bases. The
// stdio transport has one; the HTTP transport one per session.

import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ServedKnowledge } from './knowledge'
import type { McpSdk } from './sdk'
import type { SkillCatalog } from './skills'
import { quoteForMessage } from '../../runtime/redact'
import { CliError } from '../io'
import { OutsideError } from './contain'
import { listResources, readResource, skillEntry } from './resources'
import { callTool, listTools } from './tools'
import { knowledgeUri, parseUri } from './uris'

/** What a server serves. */
export interface Served {
  catalog: SkillCatalog | undefined
  knowledge: readonly ServedKnowledge[]
  /** This package's version, for the server's `serverInfo`. */
  version: string
}

/** The MCP skills extension's identifier, declared in the server's capabilities. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills'

/**
 * An expected failure's message (a refusal, a missing index, a path outside):
 * for the client as it is. Anything else is a fault of ours: a short message,
 * never a stack trace.
 */
export function failureMessage(error: unknown): string {
  if (error instanceof CliError || error instanceof OutsideError)
    return error.message
  const message = error instanceof Error ? error.message : String(error)
  return `skill-kit mcp failed: ${message.split('\n')[0]}`
}

function instructions({ catalog, knowledge }: Served): string {
  const lines: string[] = []
  if (catalog)
    lines.push('Skills: call list_skills (or read the skill tool\'s description), load one with the skill tool, read its sections with read_section and its bundled files with read_skill_file. Each skill is also the resource skill://<name>/SKILL.md.')
  for (const base of knowledge)
    lines.push(`Documentation "${base.name}": call search, then retrieve the documents that answer; or browse its index pages from ${knowledgeUri(base.name, 'SKILL.md')}.`)
  return lines.join('\n')
}

/** A new server for one session, its handlers installed. */
export function createMcpServer(sdk: McpSdk, served: Served): Server {
  const { types } = sdk
  const server = new sdk.Server(
    { name: 'skill-kit', version: served.version },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        ...(served.catalog ? { extensions: { [SKILLS_EXTENSION]: {} } } : {}),
      },
      instructions: instructions(served),
    },
  )
  const invalid = (error: unknown) => new types.McpError(types.ErrorCode.InvalidParams, failureMessage(error))

  server.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools: listTools(served) }))
  server.setRequestHandler(types.CallToolRequestSchema, async (request) => {
    try {
      const answer = await callTool(served, request.params.name, request.params.arguments)
      return { content: [{ type: 'text' as const, text: answer.text }], isError: answer.isError }
    }
    catch (error) {
      return { content: [{ type: 'text' as const, text: failureMessage(error) }], isError: true }
    }
  })
  server.setRequestHandler(types.ListResourcesRequestSchema, async () => ({ resources: await listResources(served) }))
  server.setRequestHandler(types.ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      ...(served.catalog ? [{ uriTemplate: 'skill://{skill}/{+path}', name: 'skill-file', description: 'A file of a skill: SKILL.md, or a bundled file by its path in the skill\'s folder.' }] : []),
      ...served.knowledge.map(base => ({ uriTemplate: `${knowledgeUri(base.name, 'references')}/{+path}`, name: `${base.name}-document`, description: `A document of "${base.name}" by its path in the knowledge folder, as its index pages link it.`, mimeType: 'text/markdown' })),
    ],
  }))
  server.setRequestHandler(types.ReadResourceRequestSchema, async (request) => {
    try {
      return { contents: [await readResource(served, request.params.uri)] }
    }
    catch (error) {
      throw invalid(error)
    }
  })

  // skills/list and skills/get, the skills extension's methods: the SDK has no schema for them.
  server.fallbackRequestHandler = async (request) => {
    const catalog = served.catalog
    if (catalog && request.method === 'skills/list')
      return { resultType: 'complete', skills: catalog.skills().map(skill => skillEntry(catalog, skill)), ttlMs: 0, cacheScope: 'private' }
    if (catalog && request.method === 'skills/get') {
      const uri = (request.params as { uri?: unknown } | undefined)?.uri
      const parsed = typeof uri === 'string' ? parseUri(uri) : undefined
      const skill = parsed?.scheme === 'skill' && parsed.path === 'SKILL.md' ? catalog.find(parsed.owner) : undefined
      if (!skill)
        throw new types.McpError(types.ErrorCode.InvalidParams, `skills/get takes the URI of a skill's SKILL.md, e.g. skill://<name>/SKILL.md; no skill of this server has that URI.`)
      return { resultType: 'complete', skill: skillEntry(catalog, skill), ttlMs: 0, cacheScope: 'private' }
    }
    throw new types.McpError(types.ErrorCode.MethodNotFound, `Method not found: ${quoteForMessage(request.method)}.`)
  }
  return server
}
