/**
 * The integration fixtures' harness: builds a fixture site (test/integrations/fixtures/<name>)
 * with its own tool, as a user of the package would, deploys what it built to a
 * folder of its own, serves that folder on 127.0.0.1 with clean URLs (as static
 * hosts do), and drives the search in Chromium.
 *
 * A fixture imports `unplugin-skill-kit` by name: its copy (under test/.tmp, so
 * that VitePress, Astro and Vite resolve from the repository's node_modules)
 * gets `node_modules/unplugin-skill-kit` linked to the repository, whose
 * `exports` point into dist/ (`npm run build` first).
 */
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, normalize, relative, sep } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { launchChromium, repo } from '../support/knowledge-app'

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
}

/** A build's output, deployed: `dir` is all the server has; `remove()` deletes it. */
export interface Deployed {
  dir: string
  remove: () => void
}

/**
 * Copies fixture `name`, runs `bin` (a file under node_modules) with `args` in the
 * copy, moves `outDir` (relative to the copy) to a temporary folder and deletes
 * the copy: what is served can only use what the build wrote.
 */
export async function buildFixture(name: string, bin: string, args: string[], outDir: string): Promise<Deployed> {
  const tmp = join(repo, 'test/.tmp')
  mkdirSync(tmp, { recursive: true })
  const work = mkdtempSync(join(tmp, `integration-${name}-`))
  try {
    cpSync(join(repo, 'test/integrations/fixtures', name), work, { recursive: true })
    mkdirSync(join(work, 'node_modules'))
    symlinkSync(relative(join(work, 'node_modules'), repo), join(work, 'node_modules/unplugin-skill-kit'), 'dir')
    await run(join(repo, 'node_modules', bin), args, work)
    const dir = mkdtempSync(join(tmpdir(), `skill-kit-${name}-site-`))
    cpSync(join(work, outDir), dir, { recursive: true })
    return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
  }
  finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/** Runs a Node script to its end; rejects with its output when it fails. */
function run(script: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd,
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => output += chunk)
    child.stderr.on('data', (chunk: Buffer) => output += chunk)
    child.on('error', reject)
    child.on('close', code => code === 0
      ? resolve()
      : reject(new Error(`${relative(repo, script)} ${args.join(' ')} exited with ${code}:\n${output.slice(-4000)}`)))
  })
}

/** A static server of a deployed site; `close()` stops it. */
export interface SiteServer {
  origin: string
  close: () => Promise<void>
}

/**
 * Serves `dir` on a free port of 127.0.0.1 as static hosts do: `/a/` is
 * `/a/index.html`, `/a` is `/a.html` when there is no file `a` (VitePress's
 * clean URLs), anything else is a 404 (the site's 404.html if it has one).
 */
export async function serveSite(dir: string): Promise<SiteServer> {
  const fileOf = (path: string): string | undefined => {
    const candidates = path.endsWith('/') ? [`${path}index.html`] : [path, `${path}.html`, `${path}/index.html`]
    return candidates
      .map(candidate => normalize(join(dir, candidate)))
      .find(file => file.startsWith(dir + sep) && existsSync(file) && statSync(file).isFile())
  }
  const server = createServer((request, response) => {
    const file = fileOf(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname))
    const notFound = join(dir, '404.html')
    if (file === undefined) {
      response.writeHead(404, { 'Content-Type': MIME['.html']! })
      response.end(existsSync(notFound) ? readFileSync(notFound) : 'not found')
      return
    }
    response.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' })
    response.end(readFileSync(file))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
    },
  }
}

/** A page of a served site, with the requests that tried to leave it and the page's errors. */
export interface SitePage {
  page: Page
  /** URLs of another origin the page asked for (each aborted). */
  foreign: string[]
  errors: string[]
  close: () => Promise<void>
}

/** Opens `path` of the site at `origin` and waits until its search is mounted with its knowledge base (`body[data-ready]`). */
export async function openSite(browser: Browser, origin: string, path: string): Promise<SitePage> {
  const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 1280, height: 800 } })
  const foreign: string[] = []
  const errors: string[] = []
  await context.route('**/*', (route) => {
    const url = route.request().url()
    if (url.startsWith(`${origin}/`))
      return route.continue()
    foreign.push(url)
    return route.abort('blockedbyclient')
  })
  const page = await context.newPage()
  page.on('pageerror', error => errors.push(String(error)))
  // A failed load's console message names no URL: the response does.
  page.on('console', message => message.type() === 'error' && !message.text().startsWith('Failed to load resource') && errors.push(message.text()))
  page.on('response', response => response.status() >= 400 && errors.push(`HTTP ${response.status()} for ${response.url()}`))
  await page.goto(`${origin}${path}`)
  await waitReady(page)
  return { page, foreign, errors, close: () => context.close() }
}

/** Waits until the page's search has its knowledge base (the fixtures set `body[data-ready]` then). */
export function waitReady(page: Page): Promise<unknown> {
  return page.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: 30_000 })
}

/** An option shown: a result (`sub: false`) or one of its headings. */
export interface ShownOption {
  title: string
  href: string
  sub: boolean
}

/** Opens the search with its button, types `query` and returns the options once its results are shown. */
export async function search(page: Page, query: string): Promise<ShownOption[]> {
  await page.getByRole('button', { name: 'Search' }).click()
  // The component's box (Starlight has comboboxes of its own: its theme and language menus).
  const box = page.locator('.panel').getByRole('combobox')
  await box.fill('')
  await box.pressSequentially(query)
  const panel = await page.waitForSelector(`.panel:is([data-query="${query}"][data-state="done"], [data-state="failed"])`, { state: 'attached', timeout: 30_000 })
  if (await panel.getAttribute('data-state') === 'failed')
    throw new Error(`The search for ${JSON.stringify(query)} failed: ${await page.locator('.panel [role=status]').textContent()}`)
  return page.locator('[role=option]').evaluateAll(options => options.map(o => ({
    title: o.querySelector('.title')?.textContent ?? '',
    href: (o as HTMLAnchorElement).href,
    sub: (o as HTMLElement).dataset.key!.includes('\n'),
  })))
}

/**
 * Follows the option titled `title` (a click, as a visitor would), waits for its
 * page, and returns where it landed: the URL, the element its `#fragment` names
 * (tag and text), once that element is scrolled into view.
 */
export async function follow(page: Page, title: string, expectedUrl: string): Promise<{ url: string, target?: { tag: string, text: string } }> {
  const options = page.locator('[role=option]')
  const index = (await options.locator('.title').allTextContents()).indexOf(title)
  if (index < 0)
    throw new Error(`No option titled ${JSON.stringify(title)} is shown.`)
  await Promise.all([page.waitForURL(expectedUrl, { timeout: 30_000 }), options.nth(index).click()])
  await waitReady(page)
  const hash = new URL(page.url()).hash
  if (!hash)
    return { url: page.url() }
  // The browser scrolls to the fragment once the page has laid out: wait for it.
  await page.waitForFunction((id) => {
    const box = document.getElementById(id)?.getBoundingClientRect()
    return box !== undefined && box.top >= 0 && box.top < window.innerHeight
  }, decodeURIComponent(hash.slice(1)), { timeout: 30_000 })
  const target = await page.evaluate(id => {
    const element = document.getElementById(id)!
    return { tag: element.tagName.toLowerCase(), text: element.textContent!.replace(/\u200B/g, '').trim() }
  }, decodeURIComponent(hash.slice(1)))
  return { url: page.url(), target }
}

/** A built, deployed and served fixture site, and the browser that searches it (set once `beforeAll` has run). */
export interface SiteUnderTest {
  server: SiteServer
  browser: Browser
}

/**
 * Builds fixture `name` with its tool (see {@link buildFixture}), serves the
 * deployed output and launches Chromium before the file's tests, and takes
 * them down after.
 */
export function siteUnderTest(name: string, bin: string, args: string[], outDir: string): SiteUnderTest {
  const under = {} as SiteUnderTest
  let site: Deployed | undefined
  beforeAll(async () => {
    site = await buildFixture(name, bin, args, outDir)
    under.server = await serveSite(site.dir)
    under.browser = await launchChromium()
  }, 240_000)
  afterAll(async () => {
    await under.browser?.close()
    await under.server?.close()
    site?.remove()
  })
  return under
}
