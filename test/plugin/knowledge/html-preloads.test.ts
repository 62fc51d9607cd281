// `preloadHtml` in Vite builds: a page whose entry imports a sharded knowledge
// base statically gets `<link rel="preload" as="fetch" crossorigin>` for the
// emitted snapshot core and query table core, at the URLs the module fetches
// (Vite's `base` applied); a page that does not import it, and a build without
// the option, get none; the option without shards is refused. In Chromium the
// module's fetches reuse the preloaded responses (one request a core).

import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { build, preview } from 'vite'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel } from '../../../scripts/models/tiny-bert.mjs'
import skillKit from '../../../dist/vite.mjs'
import { launchChromium } from '../../support/knowledge-app'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-html')

/** A page loading `script`. */
const page = (script: string) => `<!doctype html>\n<html><head><title>t</title></head><body><script type="module" src="./${script}"></script></body></html>\n`

/** Builds both pages with `docs` configured by `extra`; the HTML of each page and the emitted files. */
async function buildPages(name: string, base: string, extra: Record<string, unknown>): Promise<{ search: string, other: string, files: string[] }> {
  const outDir = join(work, 'out', name)
  await build({
    root: work,
    base,
    logLevel: 'silent',
    configFile: false,
    plugins: [skillKit({ root: work, offline: true, knowledge: { docs: { dir: 'docs', shards: true, ...extra } } })],
    build: { outDir, emptyOutDir: true, rollupOptions: { input: { search: join(work, 'search.html'), other: join(work, 'other.html') } } },
  })
  const files = readdirSync(outDir, { recursive: true, withFileTypes: true }).filter(e => e.isFile()).map(e => join(e.parentPath, e.name).slice(outDir.length + 1).split('\\').join('/'))
  return { search: readFileSync(join(outDir, 'search.html'), 'utf8'), other: readFileSync(join(outDir, 'other.html'), 'utf8'), files }
}

/** The `href`s of the page's knowledge preload links, in order. */
function preloads(html: string): string[] {
  return [...html.matchAll(/<link rel="preload" as="fetch" crossorigin href="([^"]+)">/g)].map(m => m[1]!)
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge-app/docs'), join(work, 'docs'), { recursive: true })
  await buildTinyModel(join(work, 'models'))
  writeFileSync(join(work, 'search.js'), 'import docs from \'virtual:skill-kit/knowledge/docs\'\n\ndocs.search(\'proxy\').then(r => console.log(`searched: ${r.length}`))\n')
  writeFileSync(join(work, 'other.js'), 'console.log(\'no search here\')\n')
  writeFileSync(join(work, 'search.html'), page('search.js'))
  writeFileSync(join(work, 'other.html'), page('other.js'))
}, 60_000)

describe('preloadHtml in a Vite build', () => {
  it('links the snapshot core and the query table core, under an absolute base, only on the page that imports the base', async () => {
    const { search, other, files } = await buildPages('absolute', '/site/', { preloadHtml: true })
    const core = files.filter(f => /^assets\/docs-(?!shard-)[^/]+\.skillkit$/.test(f))
    const tableCore = files.filter(f => /^skill-kit\/query-tables\/[^/]+\/query-table\.json$/.test(f))
    expect(core).toHaveLength(1)
    expect(tableCore).toHaveLength(1)
    expect(preloads(search)).toEqual([`/site/${core[0]}`, `/site/${tableCore[0]}`])
    // In the head, before the page's own script starts the fetches.
    expect(search.indexOf('rel="preload"')).toBeLessThan(search.indexOf('</head>'))
    expect(preloads(other)).toEqual([])
    expect(other).not.toContain('.skillkit')
  }, 120_000)

  it('makes the links relative to the page under a relative base', async () => {
    const { search, files } = await buildPages('relative', './', { preloadHtml: true })
    const core = files.find(f => /^assets\/docs-(?!shard-)[^/]+\.skillkit$/.test(f))!
    const tableCore = files.find(f => f.endsWith('/query-table.json'))!
    expect(preloads(search)).toEqual([`./${core}`, `./${tableCore}`])
  }, 120_000)

  it('makes Chromium reuse the preloaded responses: one request a core', async () => {
    const outDir = join(work, 'out', 'relative')
    const server = await preview({ root: work, configFile: false, logLevel: 'silent', build: { outDir }, preview: { host: '127.0.0.1', port: 0 } })
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      const requests: string[] = []
      page.on('request', request => requests.push(new URL(request.url()).pathname))
      const searched = page.waitForEvent('console', message => message.text().startsWith('searched: '))
      await page.goto(`${server.resolvedUrls!.local[0]}search.html`)
      expect((await searched).text()).not.toBe('searched: 0')
      const cores = preloads(readFileSync(join(outDir, 'search.html'), 'utf8')).map(href => `/${href.slice(2)}`)
      expect(cores).toHaveLength(2)
      for (const core of cores)
        expect(requests.filter(path => path === core), core).toHaveLength(1)
    }
    finally {
      await browser.close()
      await server.close()
    }
  }, 120_000)

  it('adds no link without the option', async () => {
    const { search, other } = await buildPages('without', '/', {})
    expect(search).not.toContain('rel="preload"')
    expect(other).not.toContain('rel="preload"')
  }, 120_000)

  it('refuses the option without shards, saying what to set', async () => {
    const failure = await buildPages('unsharded', '/', { shards: false, preloadHtml: true }).catch((error: Error) => error)
    expect((failure as Error).message).toContain('knowledge.docs.preloadHtml: expected false without shards, got true. It preloads the files of a sharded snapshot: set shards: true too, or remove preloadHtml.')
  })
})
