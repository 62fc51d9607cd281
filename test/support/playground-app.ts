/**
 * The docs site of the browser tests: a copy of playground/ in test/.tmp (the tests
 * edit it, never the repository's files), with the hostile fixture skill and document,
 * 15 of the Modern Web Guidance guides, and the repository's docs/ (read where they are,
 * indexed into the copy), all embedded with the tiny test model (the real model takes
 * minutes to embed them; the page's code paths are the same).
 * Chromium pages that record every request and abort any that would leave the origin.
 */
import type { Browser, Page } from 'playwright-core'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { sourcePackageDir } from '../../scripts/models/minilm.mjs'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { openKnowledgeProject } from '../../src/knowledge/project'
import { readPublishedIndex } from '../../src/knowledge/publish'
import { decodeSnapshot, searchFused, searchLexical, searchVectors } from '../../src/runtime'
import { repo } from './knowledge-app'

/** The guide categories copied: 15 guides, so that the tiny model embeds them in seconds. */
const CATEGORIES = ['accessibility', 'html', 'js', 'privacy', 'webmcp']
export const SEARCH_TOP_K = 10

/**
 * Copies the playground's sources (not its build, guides or index) into `work`, with the guides and the hostile fixtures.
 * The page is the one that embeds queries with the model (vite.config.ts reads PLAYGROUND_QUERY_ENCODER when the
 * tests build or serve it): the tests hold and fail the model's download to see each state of the page.
 */
export async function preparePlayground(work: string): Promise<void> {
  process.env.PLAYGROUND_QUERY_ENCODER = 'model'
  process.env.PLAYGROUND_DOCS_MODEL = TINY_MODEL_ID
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  const playground = join(repo, 'playground')
  for (const entry of ['index.html', 'main.ts', 'style.css', 'vite.config.ts', 'src', 'skills'])
    cpSync(join(playground, entry), join(work, entry), { recursive: true })
  cpSync(join(repo, 'test/fixtures/playground/hostile'), join(work, 'skills/hostile'), { recursive: true })
  const guides = join(sourcePackageDir(), 'skills/modern-web-guidance/guides')
  for (const category of CATEGORIES)
    cpSync(join(guides, category), join(work, 'guides/docs', category), { recursive: true })
  cpSync(join(repo, 'test/fixtures/playground/hostile.md'), join(work, 'guides/docs/hostile/payload.md'))
  writeFileSync(join(work, 'guides/skill-kit.json'), JSON.stringify({
    name: 'modern-web-guidance',
    description: 'Fifteen of the Modern Web Guidance guides, and a hostile document. Use it to find the guide for a web development task.',
    knowledge: 'docs',
    model: { id: TINY_MODEL_ID },
  }, null, 2))
  // Where vite.config.ts looks for models (the repository's .cache/models).
  await buildTinyModel(join(repo, '.cache/models'))
}

interface Ranked { id: string, score: number }

/** Node's rankings of a knowledge base's queries, and its documents' titles by ID. */
export interface NodeRankings { lexical: Ranked[][], vector: Ranked[][], auto: Ranked[][], titles: Map<string, string> }

/**
 * Node's lexical and vector rankings of `queries` over the index the plugin published for the
 * knowledge folder `dir` of the site in `work` (the guides' project, or the bare docs folder), as the page asks for them.
 */
export async function nodeRankings(work: string, dir: string, queries: string[]): Promise<NodeRankings> {
  const published = readPublishedIndex(openKnowledgeProject(dir, { root: work }).project!.config.output)
  if (!published)
    throw new Error(`The build published no index for ${dir}.`)
  const snapshot = decodeSnapshot(published.snapshot)
  const titles = new Map(snapshot.documents.map(d => [d.id, d.title ?? d.id]))
  const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: join(repo, '.cache/models'), offline: true })
  try {
    const vectors = await embedder.embed(queries, 'query')
    const pick = (hits: Ranked[]) => hits.map(({ id, score }) => ({ id, score }))
    return {
      lexical: queries.map(query => pick(searchLexical(snapshot, query, { topK: SEARCH_TOP_K }))),
      vector: vectors.map(vector => pick(searchVectors(snapshot, vector, { topK: SEARCH_TOP_K }))),
      auto: vectors.map((vector, q) => pick(searchFused(snapshot, queries[q]!, vector, { topK: SEARCH_TOP_K }))),
      titles,
    }
  }
  finally {
    await embedder.dispose()
  }
}

/** A page of the playground with what it asked the network for. */
export interface PlaygroundPage {
  page: Page
  /** Every URL the page and its workers asked for, in order. */
  requests: string[]
  /** Requests that would have left the origin: aborted. */
  escaped: string[]
  errors: string[]
  /** Dialogs the page opened (alert, confirm, prompt): a hostile payload that ran would. */
  dialogs: string[]
  close: () => Promise<void>
}

/**
 * Opens the playground at `origin` in a context of its own. `holdModel` keeps the
 * model's ONNX file from answering until the returned page's `releaseModel()`
 * (the model stays "loading"); `failModel` aborts it (the model "failed").
 */
export async function openPlayground(browser: Browser, origin: string, options: { holdModel?: boolean, failModel?: boolean, width?: number } = {}): Promise<PlaygroundPage & { releaseModel: () => void }> {
  const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: options.width ?? 1280, height: 900 } })
  const requests: string[] = []
  const escaped: string[] = []
  const errors: string[] = []
  const dialogs: string[] = []
  let release!: () => void
  const released = new Promise<void>((done) => {
    release = done
  })
  await context.route('**/*', async (route) => {
    const url = route.request().url()
    if (!url.startsWith(`${origin}/`)) {
      escaped.push(url)
      return route.abort('blockedbyclient')
    }
    if (url.endsWith('/onnx/model_quantized.onnx')) {
      if (options.failModel)
        return route.abort('failed')
      if (options.holdModel)
        await released
    }
    return route.continue()
  })
  context.on('request', request => requests.push(request.url()))
  const page = await context.newPage()
  page.on('console', m => m.type() === 'error' && errors.push(m.text()))
  page.on('pageerror', error => errors.push(String(error)))
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message())
    void dialog.dismiss()
  })
  await page.goto(`${origin}/`)
  await page.waitForSelector('body[data-ready="yes"]', { state: 'attached', timeout: 30_000 })
  return { page, requests, escaped, errors, dialogs, releaseModel: release, close: () => context.close() }
}
