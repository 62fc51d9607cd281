// @modelcontextprotocol/sdk is an optional peer: users of the bundler plugin
// never need it (it brings express and hono). It is imported only when
// `skill-kit mcp` starts, and its absence is one line saying what to install.

import type * as ServerModule from '@modelcontextprotocol/sdk/server/index.js'
import type * as StdioModule from '@modelcontextprotocol/sdk/server/stdio.js'
import type * as HttpModule from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js'
import { CliError } from '../io'

/** The parts of the SDK the server uses. */
export interface McpSdk {
  Server: typeof ServerModule.Server
  StdioServerTransport: typeof StdioModule.StdioServerTransport
  StreamableHTTPServerTransport: typeof HttpModule.StreamableHTTPServerTransport
  types: typeof TypesModule
}

export const SDK_PACKAGE = '@modelcontextprotocol/sdk'

/** The error of a missing SDK: what to install, in one line. */
export const SDK_MISSING = `${SDK_PACKAGE} is not installed (an optional peer dependency of unplugin-skill-kit, needed by this command only): install it with "npm install --save-dev ${SDK_PACKAGE}".`

function isMissing(error: unknown): boolean {
  const { code, message } = error as { code?: string, message?: string }
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String(message).includes(SDK_PACKAGE)
}

/**
 * Imports the SDK. `load` is the import (a test passes one that fails as a
 * missing package does); a missing SDK is a {@link CliError}.
 */
export async function loadSdk(load: (specifier: string) => Promise<unknown> = specifier => import(specifier)): Promise<McpSdk> {
  try {
    const [server, stdio, http, types] = await Promise.all([
      load(`${SDK_PACKAGE}/server/index.js`),
      load(`${SDK_PACKAGE}/server/stdio.js`),
      load(`${SDK_PACKAGE}/server/streamableHttp.js`),
      load(`${SDK_PACKAGE}/types.js`),
    ]) as [typeof ServerModule, typeof StdioModule, typeof HttpModule, typeof TypesModule]
    return { Server: server.Server, StdioServerTransport: stdio.StdioServerTransport, StreamableHTTPServerTransport: http.StreamableHTTPServerTransport, types }
  }
  catch (error) {
    if (isMissing(error))
      throw new CliError(SDK_MISSING)
    throw error
  }
}
