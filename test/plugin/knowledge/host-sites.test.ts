// What docs-site tools do around the plugin, with plain Vite (the tools themselves
// are in test/integrations): a Markdown plugin of the site that claims every
// `.md` id, its query stripped (VitePress compiles them as Vue components), and
// one plugin instance used by a dev server and then by a build (Astro's content
// sync, then its build).

import type { Plugin } from 'vite'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { prepareDocsApp } from '../../support/docs-app'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-host-sites')
const entry = join(work, 'main.js')
const options = { root: work, knowledge: { docs: { dir: 'docs/knowledge', model: false as const } } }

/** Like VitePress's Vue plugin: any id whose path ends in `.md` is a component; ids starting with `\0` are left alone (createFilter). */
const siteMarkdown: Plugin = {
  name: 'site-markdown',
  transform(_code, id) {
    if (!id.startsWith('\0') && id.split('?')[0]!.endsWith('.md'))
      throw new Error(`${id}: At least one <template> or <script> is required in a single file component.`)
  },
}

async function skillKit(): Promise<Plugin> {
  const { default: plugin } = await import(pathToFileURL(join(repo, 'dist/vite.mjs')).href)
  return plugin(options)
}

/** Builds the entry with Vite and `plugins`; returns the output's JavaScript, all files joined. */
async function buildWith(plugins: Plugin[], name: string): Promise<string> {
  const { build } = await import('vite')
  const outDir = join(work, `dist-${name}`)
  await build({
    configFile: false,
    root: work,
    logLevel: 'silent',
    plugins,
    build: { outDir, emptyOutDir: true, minify: false, rollupOptions: { input: entry } },
  })
  return readdirSync(outDir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile() && e.name.endsWith('.js'))
    .map(e => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n')
}

beforeAll(async () => {
  await prepareDocsApp(work, entry, { model: false })
})

describe('a knowledge base on a docs site\'s Vite', () => {
  it('builds beside a Markdown plugin that claims every .md id: the bodies are not .md ids', async () => {
    const code = await buildWith([await skillKit(), siteMarkdown], 'markdown')
    // Each document's body is a chunk of its own, with its text.
    expect(code).toContain('Install again with `@latest` to upgrade.')
  })

  it('builds for deployment with a plugin that served a dev server before, in the same process', async () => {
    const { createServer } = await import('vite')
    const plugin = await skillKit()
    const server = await createServer({ configFile: false, root: work, logLevel: 'silent', plugins: [plugin], server: { middlewareMode: true, ws: false } })
    await server.close()
    const code = await buildWith([plugin], 'after-serve')
    // No URL of the dev server's (it is gone once the site is deployed).
    expect(code.match(/\/@skill-kit\/[^'"`]*/g)).toBeNull()
    expect(code).toMatch(/assets\/docs-[\w-]+\.skillkit/)
  })
})
