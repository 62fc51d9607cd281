// Streamable HTTP on a loopback port: one MCP session per client, each with its
// own server. Only 127.0.0.1 is listened on, and the SDK's DNS rebinding
// protection refuses a Host header other than this address (a web page
// reaching the server through a name that resolves to it) and an Origin
// header of any other site (a web page calling it directly): agent hosts
// send no Origin, and the server has no authentication to fall back on.

import type { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { McpSdk } from './sdk'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { CliError } from '../io'

/** The path clients connect to: `http://127.0.0.1:<port>/mcp`. */
export const MCP_PATH = '/mcp'

/** A listening HTTP endpoint. */
export interface HttpEndpoint {
  url: string
  /** The servers of the open sessions (for notifications). */
  servers: () => McpServer[]
  /** Resolves when the endpoint is closed. */
  closed: Promise<void>
  close: () => Promise<void>
}

function answer(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

/** Listens on 127.0.0.1:`port` (0: any free port); `newServer` makes each session's server. */
export async function listenHttp(sdk: McpSdk, port: number, newServer: () => McpServer): Promise<HttpEndpoint> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport, server: McpServer }>()
  let allowedHosts: string[] = []
  let allowedOrigins: string[] = []

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== MCP_PATH)
      return answer(response, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`)
    const id = request.headers['mcp-session-id']
    const open = typeof id === 'string' ? sessions.get(id) : undefined
    if (open)
      return open.transport.handleRequest(request, response)
    if (id !== undefined)
      return answer(response, 404, 'Unknown or closed session: initialize a new one.')
    if (request.method !== 'POST')
      return answer(response, 400, 'No session: start one with an initialize request (POST).')
    const server = newServer()
    const transport: StreamableHTTPServerTransport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: sessionId => void sessions.set(sessionId, { transport, server }),
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins,
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined)
        sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    await transport.handleRequest(request, response)
    // Not an initialize request: the transport refused it, and nothing will use this server again.
    if (transport.sessionId === undefined)
      await server.close()
  }

  const http = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        answer(response, 500, `skill-kit mcp failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`)
    })
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE'
      ? new CliError(`Port ${port} of 127.0.0.1 is in use. Choose another with --http <port> (0: any free port).`)
      : error))
    http.listen(port, '127.0.0.1', resolve)
  })
  const bound = (http.address() as AddressInfo).port
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`]
  allowedOrigins = allowedHosts.map(host => `http://${host}`)
  const closed = new Promise<void>(resolve => http.once('close', resolve))
  return {
    url: `http://127.0.0.1:${bound}${MCP_PATH}`,
    servers: () => [...sessions.values()].map(s => s.server),
    closed,
    async close() {
      await Promise.all([...sessions.values()].map(s => s.server.close()))
      http.closeAllConnections()
      await new Promise(resolve => http.close(resolve))
    },
  }
}
