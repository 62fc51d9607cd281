// The `url` option in real builds: each document of the module has its page's
// URL and title, search results carry the URL, and the search UI's source
// links results and headings to the site's pages (a sharded snapshot's core
// still matches its module's documents).

import type { Bundler } from '../../support/build'
import { cpSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { searchSource } from '../../../src/runtime/search-ui/source'
import { build, settle } from '../../support/build'
import { prepareDocsApp } from '../../support/docs-app'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-page-urls')
const entry = join(work, 'main.js')

beforeAll(async () => {
  await prepareDocsApp(work, entry, { model: false })
  // A folder imported as `./site?knowledge`: its skill-kit.json names the preset.
  cpSync(join(repo, 'test/fixtures/knowledge-app/docs/knowledge'), join(work, 'site/knowledge'), { recursive: true })
  writeFileSync(join(work, 'site/skill-kit.json'), JSON.stringify({ name: 'site', knowledge: 'knowledge', model: false, url: 'vitepress-html' }))
  writeFileSync(join(work, 'folder.js'), 'import site from \'./site?knowledge\'\n\nexport { site }\n')
})

describe.each([
  ['esbuild', 'vitepress', {}, ['/install', '/setup/proxy', '/troubleshooting']],
  ['vite', 'astro', { shards: true }, ['/install/', '/setup/proxy/', '/troubleshooting/']],
] as [Bundler, string, object, string[]][])('the url option with %s (%s)', (bundler, url, more, expected) => {
  it('gives each document its page\'s URL and title, and the search UI links its results and headings there', async () => {
    const result = await build(bundler, entry, { root: work, offline: true, knowledge: { docs: { dir: 'docs', model: false, url, ...more } } }, `page-urls-${url}`)
    const { docs } = result.module
    expect(docs.documents.map((d: { url: string }) => d.url)).toEqual(expected)
    expect(docs.documents.map((d: { title: string }) => d.title)).toEqual(['Install', 'Proxy settings', expect.any(String)])
    expect((await docs.search('upgrade', { mode: 'lexical' }))[0]).toMatchObject({ id: 'install', title: 'Install', url: expected[0] })
    const { results } = await searchSource(docs).search('upgrade', { ranking: 'lexical', filters: { categories: [], tags: [] } })
    expect(results[0]).toMatchObject({ id: 'install', title: 'Install', url: expected[0], subResults: [{ title: 'Upgrading', url: `${expected[0]}#upgrading` }] })
  }, 120_000)
})

it('takes a preset from skill-kit.json for a folder import', async () => {
  const { site } = (await build('esbuild', join(work, 'folder.js'), { root: work, offline: true }, 'page-urls-folder')).module
  expect(site.documents.map((d: { url: string }) => d.url)).toEqual(['/install.html', '/setup/proxy.html', '/troubleshooting.html'])
}, 120_000)

it('fails the build with the document and the fix when a url function returns no URL', async () => {
  const failed = await settle(build('esbuild', entry, { root: work, offline: true, knowledge: { docs: { dir: 'docs', model: false, url: () => undefined as unknown as string } } }, 'page-urls-bad'))
  expect(failed.ok).toBe(false)
  expect(String((failed as { error: Error }).error.message)).toContain('The url option of Knowledge base "docs" (docs) returned undefined for install.md; it must return the page\'s URL (a non-empty string), e.g. \'/guide/intro\'.')
}, 120_000)
