/**
 * The app of knowledge-browser.test.ts built by Vite with `shards`, served by
 * `vite preview` to a headless Chromium: its lexical search fetches the core
 * and the shards of its terms only (no vector shard, no model), and every
 * search ranks exactly as the page of the single-snapshot build does.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser } from 'playwright-core'
import type { PreviewServer } from 'vite'
import type { AppPage } from '../support/knowledge-app'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { readPublishedIndex } from '../../src/knowledge/publish'
import { decodeSnapshot } from '../../src/runtime'
import { scoredTerms } from '../../src/runtime/knowledge/lexical/searched-terms'
import { ElementType, FLAG_SHARD } from '../../src/runtime/knowledge/format/snapshot-layout'
import { readContainer, view } from '../../src/runtime/knowledge/format/snapshot-container'
import { openShardedSnapshot, ShardKind } from '../../src/runtime/knowledge/format/snapshot-shards'
import { autoSearch, dist, expectLocalAndQuiet, filesOf, indexHtml, launchChromium, LEXICAL_QUERIES, LEXICAL_QUERY, lexicalSearch, openApp, openServedApp, prepareApp, repo, vectorSearch } from '../support/knowledge-app'

const work = join(repo, 'test/.tmp/browser-knowledge-shards')
const oneDir = join(work, 'dist-one')
const shardedDir = join(work, 'dist-shards')
const SIZES = { lexicalBytes: 96, vectorBytes: 128 }

/** The `.skillkit` files of a build: the core, and each shard by its index in the core. */
function shardFiles(dir: string): { core: string, shards: Map<number, string> } {
  let core = ''
  const shards = new Map<number, string>()
  for (const file of filesOf(dir).filter(f => f.endsWith('.skillkit'))) {
    const bytes = readFileSync(join(dir, file))
    if (bytes.readUInt16LE(10) !== FLAG_SHARD) {
      core = file
      continue
    }
    const container = readContainer(bytes, true, FLAG_SHARD)
    shards.set((view(bytes, container.sections.get('SHRD')!, ElementType.u32, 5) as Uint32Array)[1]!, file)
  }
  return { core, shards }
}

/** The index the builds published (one snapshot), and its documents. */
const published = () => readPublishedIndex(openKnowledgeProject(join(work, 'guides'), { root: work }).project!.config.output)!
const publishedDocuments = () => decodeSnapshot(published().snapshot).documents

describe('a Vite app with shards, served by vite preview to Chromium', () => {
  let browser: Browser | undefined
  let one: AppPage | undefined
  let split: AppPage | undefined
  let preview: PreviewServer | undefined

  beforeAll(async () => {
    const { options } = await prepareApp(work)
    writeFileSync(join(work, 'index.html'), indexHtml('/main.js'))
    const { build, preview: vitePreview } = await import('vite')
    const skillKit = (await import(pathToFileURL(join(dist, 'vite.mjs')).href)).default
    const knowledge = (options as { knowledge: { guides: object } }).knowledge
    for (const [outDir, shards] of [[oneDir, undefined], [shardedDir, SIZES]] as const) {
      await build({
        configFile: false,
        root: work,
        logLevel: 'silent',
        plugins: [skillKit({ ...options, knowledge: { guides: { ...knowledge.guides, shards } } })],
        build: { outDir, emptyOutDir: true, copyPublicDir: false },
      })
    }
    preview = await vitePreview({ configFile: false, root: work, logLevel: 'silent', build: { outDir: shardedDir }, preview: { host: '127.0.0.1', port: 0 } })
    const origin = preview.resolvedUrls!.local[0]!.replace(/\/$/, '')
    browser = await launchChromium()
    one = await openApp(browser, oneDir, false)
    split = await openServedApp(browser, { origin, close: async () => {} })
  }, 90_000)

  afterAll(async () => {
    await one?.close()
    await split?.close()
    await preview?.close()
    await browser?.close()
  })

  it('searches lexically having fetched the core and its terms\' shards only: no vector shard, no model', async () => {
    const { core, shards } = shardFiles(shardedDir)
    const directory = openShardedSnapshot(readFileSync(join(shardedDir, core)), publishedDocuments(), { load: async () => new Uint8Array(0), name: String }).shards
    expect(directory.filter(s => s.kind === ShardKind.lexical).length).toBeGreaterThan(3)
    expect(directory.filter(s => s.kind === ShardKind.vectors).length).toBeGreaterThan(1)
    expect(shards.size).toBe(directory.length)
    // The shards holding the postings of the query's terms, from the whole snapshot the build published.
    const terms = scoredTerms(decodeSnapshot(published().snapshot).lexical!, LEXICAL_QUERY)
    const needed = new Set(terms.map(t => directory.findIndex(s => s.kind === ShardKind.lexical && s.from <= t && t < s.to)))
    expect(needed.size).toBeGreaterThan(0)
    expect(needed.size).toBeLessThan(directory.filter(s => s.kind === ShardKind.lexical).length)

    const found = await lexicalSearch(split!, LEXICAL_QUERY)
    expect(found).toEqual(await lexicalSearch(one!, LEXICAL_QUERY))
    expect(found[0]).toMatchObject({ id: 'restore-backup' })
    const fetched = split!.requests.filter(u => u.endsWith('.skillkit')).map(u => new URL(u).pathname.slice(1))
    expect(fetched[0]).toBe(core)
    expect(fetched.slice(1).sort()).toEqual([...needed].map(i => shards.get(i)!).sort())
    expect(split!.requests.filter(u => /\/skill-kit\/|ort-wasm|\.wasm$/.test(u))).toEqual([])
  })

  it('ranks lexically, by vector and by default exactly as the single-snapshot build', async () => {
    for (const query of LEXICAL_QUERIES)
      expect(await lexicalSearch(split!, query), query).toEqual(await lexicalSearch(one!, query))
    const vector = await vectorSearch(one!)
    expect(vector.flat().length).toBeGreaterThan(0)
    expect(await vectorSearch(split!)).toEqual(vector)
    expect(await autoSearch(split!)).toEqual(await autoSearch(one!))
    // Vector search fetched every vector shard; no file was fetched twice.
    const { core, shards } = shardFiles(shardedDir)
    const directory = openShardedSnapshot(readFileSync(join(shardedDir, core)), publishedDocuments(), { load: async () => new Uint8Array(0), name: String }).shards
    const fetched = split!.requests.filter(u => u.endsWith('.skillkit')).map(u => new URL(u).pathname.slice(1))
    expect(new Set(fetched).size).toBe(fetched.length)
    for (const [index, file] of shards) {
      if (directory[index]!.kind === ShardKind.vectors)
        expect(fetched).toContain(file)
    }
  })

  it('never reached beyond the local servers, and logged no error', () => {
    expectLocalAndQuiet(one!)
    expectLocalAndQuiet(split!)
  })
})
