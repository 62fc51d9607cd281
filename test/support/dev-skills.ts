/**
 * A Vite dev server of an app that imports skills and the registry, on
 * 127.0.0.1, and Chromium pages of it that record every HMR message they
 * receive. Shared by the HMR tests and (in spirit) bench/hmr.bench.mjs.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser, Page } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { dist } from './knowledge-app'

/** A progressive skill `name` whose `usage` section says `text`; `always` may name a section that does not exist (invalid). */
export function skillSource(name: string, text: string, always = 'rules'): string {
  return `---\nname: ${name}\ndescription: The ${name} skill. ${text}\nprogressive:\n  always: [${always}]\n---\n\n## Rules {#rules}\n\nAlways ${text}.\n\n## Usage {#usage}\n\nUsage of ${name}: ${text}.\n`
}

/** Holds the registry; no HMR code. Skill tool and activation made once, at start. */
const REGISTRY_JS = `
import './probe.css'
import skills from 'virtual:skill-kit/skills'
import { createActivation, createSkillTool } from 'unplugin-skill-kit/runtime'
sessionStorage.loads = String(Number(sessionStorage.loads ?? 0) + 1)
window.marker = Math.random()
const tool = createSkillTool(skills)
const activation = createActivation(skills, { log: () => {} })
/** What the registry lists, without loading any skill (a deleted skill's module can only fail to load). */
window.listing = () => ({ names: skills.map(s => s.name), tool: tool.description })
// A skill deleted a moment ago fails to load until the update arrives: the view says so, and the test waits on.
const failed = error => 'failed: ' + error
window.view = async () => ({
  names: skills.map(s => s.name),
  descriptions: skills.map(s => s.description),
  covers: await Promise.all(skills.map(s => s.load().then(skill => skill.cover, failed))),
  usage: await Promise.all(skills.map(s => s.readSection('usage').catch(failed))),
  tool: tool.description,
  loaded: (await tool.execute({ action: 'load', skill: skills[0]?.name ?? '' })).content,
  active: activation.active.map(s => s.name),
})
document.body.dataset.ready = 'yes'
`

/** The one-line helper: re-renders on every registry update. */
const HELPER_JS = `
import './probe.css'
import skills from 'virtual:skill-kit/skills'
import { onSkillUpdate } from 'unplugin-skill-kit/runtime'
sessionStorage.loads = String(Number(sessionStorage.loads ?? 0) + 1)
window.marker = Math.random()
const render = () => { document.body.dataset.names = skills.map(s => s.name + ': ' + s.description).join('\\n') }
render()
onSkillUpdate(render)
document.body.dataset.ready = 'yes'
`

/** Plain data imports of one skill; no HMR code. */
const COVER_JS = `
import './probe.css'
import cover from './skills/alpha/SKILL.md?cover'
import meta from './skills/alpha/SKILL.md?meta'
sessionStorage.loads = String(Number(sessionStorage.loads ?? 0) + 1)
window.marker = Math.random()
document.body.dataset.cover = cover
document.body.dataset.resources = meta.resources.join(',')
document.body.dataset.ready = 'yes'
`

function html(script: string): string {
  return `<!doctype html>\n<html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module" src="${script}"></script></body></html>\n`
}

/** Writes the app: skills `alpha` (with scripts/run.py) and `beta`, and one page per script. */
export function writeApp(root: string): void {
  rmSync(root, { recursive: true, force: true })
  mkdirSync(join(root, 'skills/alpha/scripts'), { recursive: true })
  mkdirSync(join(root, 'skills/beta'), { recursive: true })
  writeFileSync(join(root, 'skills/alpha/SKILL.md'), skillSource('alpha', 'first'))
  writeFileSync(join(root, 'skills/alpha/scripts/run.py'), 'print("run")\n')
  writeFileSync(join(root, 'skills/beta/SKILL.md'), skillSource('beta', 'second'))
  writeFileSync(join(root, 'probe.css'), ':root { --probe: "0"; }\n')
  for (const [name, script] of [['registry', REGISTRY_JS], ['helper', HELPER_JS], ['cover', COVER_JS]] as const) {
    writeFileSync(join(root, `${name}.js`), script)
    writeFileSync(join(root, `${name}.html`), html(`/${name}.js`))
  }
}

/** The dev server of `root` with the plugin as `npm run build` made it, on a free loopback port. */
export async function startServer(root: string): Promise<{ server: ViteDevServer, origin: string }> {
  const { createServer } = await import('vite')
  const skillKit = (await import(pathToFileURL(join(dist, 'vite.mjs')).href)).default
  const server = await createServer({
    configFile: false,
    root,
    logLevel: 'silent',
    plugins: [skillKit()],
    resolve: { alias: { 'unplugin-skill-kit/runtime': join(dist, 'runtime.mjs') } },
    server: { host: '127.0.0.1', port: 0, strictPort: false },
    optimizeDeps: { noDiscovery: true, include: [] },
  })
  await server.listen()
  const address = server.httpServer!.address() as { port: number }
  return { server, origin: `http://127.0.0.1:${address.port}` }
}

/** An HMR message a page received: its type and, for updates, the paths. */
export interface Message {
  type: string
  paths: string[]
  /** An error's message. */
  error?: string
}

/** A page and the HMR messages it received, across reloads. */
export interface DevPage {
  page: Page
  messages: Message[]
  errors: string[]
  close: () => Promise<void>
}

export async function openPage(browser: Browser, url: string, ready = true): Promise<DevPage> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const messages: Message[] = []
  const errors: string[] = []
  page.on('websocket', (socket) => {
    socket.on('framereceived', ({ payload }) => {
      const data = JSON.parse(String(payload)) as { type: string, updates?: { path: string }[], paths?: string[], err?: { message: string } }
      if (data.type !== 'connected' && data.type !== 'ping')
        messages.push({ type: data.type, paths: data.updates?.map(u => u.path) ?? data.paths ?? [], ...(data.err ? { error: data.err.message } : {}) })
    })
  })
  page.on('pageerror', error => errors.push(String(error)))
  await page.goto(url)
  if (ready)
    await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' })
  return { page, messages, errors, close: () => context.close() }
}
