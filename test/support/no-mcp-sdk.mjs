// `node --import ./no-mcp-sdk.mjs …`: @modelcontextprotocol/sdk cannot be resolved, as in
// an app that never installed it (an optional peer, needed by `skill-kit mcp` only).
import { register } from 'node:module'

const hooks = `
export async function resolve(specifier, context, next) {
  if (/^@modelcontextprotocol\\/sdk(?:\\/|$)/.test(specifier)) {
    const error = new Error("Cannot find package '@modelcontextprotocol/sdk' imported from " + context.parentURL + " (hidden by test/support/no-mcp-sdk.mjs)")
    error.code = 'ERR_MODULE_NOT_FOUND'
    throw error
  }
  return next(specifier, context)
}
`
register(`data:text/javascript,${encodeURIComponent(hooks)}`)
