// The MCP SDK is an optional peer: without it, `skill-kit mcp` says in one
// line what to install and exits 1, through the CLI's own error path.

import { describe, expect, it } from 'vitest'
import { CliError } from '../../../src/cli/io'
import { loadSdk, SDK_MISSING } from '../../../src/cli/mcp/sdk'

/** An import that fails as Node's does for a package that is not installed. */
async function missing(specifier: string): Promise<never> {
  const error = new Error(`Cannot find package '@modelcontextprotocol/sdk' imported from /app/node_modules/unplugin-skill-kit/dist/cli.mjs (${specifier})`) as Error & { code: string }
  error.code = 'ERR_MODULE_NOT_FOUND'
  throw error
}

describe('loadSdk', () => {
  it('loads the installed SDK', async () => {
    const sdk = await loadSdk()
    expect(typeof sdk.Server).toBe('function')
    expect(typeof sdk.StdioServerTransport).toBe('function')
    expect(typeof sdk.types.CallToolRequestSchema).toBe('object')
  })

  it('without the SDK, fails with one line naming the install command, exit 1', async () => {
    const error = await loadSdk(missing).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CliError)
    expect((error as CliError).exitCode).toBe(1)
    expect((error as CliError).message).toBe(SDK_MISSING)
    expect(SDK_MISSING).toBe('@modelcontextprotocol/sdk is not installed (an optional peer dependency of unplugin-skill-kit, needed by this command only): install it with "npm install --save-dev @modelcontextprotocol/sdk".')
    expect(SDK_MISSING).not.toContain('\n')
  })

  it('lets any other failure through: a broken install is not a missing one', async () => {
    await expect(loadSdk(async () => { throw new SyntaxError('Unexpected token') })).rejects.toThrow(SyntaxError)
  })
})
