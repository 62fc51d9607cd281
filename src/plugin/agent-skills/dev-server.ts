// The Vite dev server's `/.well-known/agent-skills/…` and `/llms.txt`: the
// same files a build publishes, made on each request from the skills as they
// are now (the loader reuses each compiled skill until its files change), so
// an agent pointed at the dev server sees an edit at once. Knowledge exports
// are builds' only: here the index lists the registry's skills.

import type { ViteDevServer } from 'vite'
import type { PluginState } from '../state'
import { WELL_KNOWN_DIR } from '../../export/agent-skills-index'
import { agentSkillsFiles } from './files'

/** The content types the RFC asks servers for, by extension. */
const CONTENT_TYPES: Record<string, string> = {
  json: 'application/json',
  md: 'text/markdown; charset=utf-8',
  gz: 'application/gzip',
  txt: 'text/plain; charset=utf-8',
}

/** The published path a request asks for (relative to the output's root), or `undefined` for any other request. */
function publishedPath(url: string | undefined, base: string): string | undefined {
  const path = (url ?? '').split(/[?#]/)[0]!
  if (!path.startsWith(base))
    return undefined
  let relative: string
  try {
    relative = decodeURIComponent(path.slice(base.length))
  }
  catch {
    return undefined
  }
  return relative === 'llms.txt' || relative.startsWith(`${WELL_KNOWN_DIR}/`) ? relative : undefined
}

/** Serves what `agentSkills` publishes, when it is set; a skill that cannot be published answers 500 with the build's message. */
export function serveAgentSkills(server: ViteDevServer, state: PluginState): void {
  server.middlewares.use((request, response, next) => {
    const path = state.options.agentSkills && state.viteServe ? publishedPath(request.url, state.viteServe.base) : undefined
    if (path === undefined || (request.method !== 'GET' && request.method !== 'HEAD'))
      return next()
    let files: ReturnType<typeof agentSkillsFiles>
    try {
      files = agentSkillsFiles(state, [], () => {})
    }
    catch (error) {
      response.statusCode = 500
      response.setHeader('Content-Type', 'text/plain; charset=utf-8')
      response.end(`${(error as Error).message}\n`)
      return
    }
    const data = files?.get(path)
    if (data === undefined)
      return next()
    response.setHeader('Content-Type', CONTENT_TYPES[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream')
    response.setHeader('Cache-Control', 'no-cache')
    response.end(request.method === 'HEAD' ? undefined : data)
  })
}
