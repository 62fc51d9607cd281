/**
 * The playground end to end, in headless Chromium, as the dev server (`npm start`)
 * and as the production build served by `vite preview` (`npm run build:playground`,
 * `npm run preview`): search as you type (lexical while the model loads, then the
 * fused, vector and lexical rankings exactly as Node ranks them), keyboard navigation,
 * opening a document, skills and section reads, the activation simulator, the routed
 * pages, a hostile skill and document that must not run script, 360 px, and in dev an
 * edited skill and document reaching the page through HMR with its state kept. Every
 * request is recorded, and none may leave the page's origin.
 *
 * Screenshots of each state go to test/.artifacts/playground/ (git-ignored).
 * Everything waits on selectors the page sets when a state is reached, never on time.
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser, Page } from 'playwright-core'
import type { PreviewServer, ViteDevServer } from 'vite'
import type { PlaygroundPage } from '../support/playground-app'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, repo } from '../support/knowledge-app'
import { nodeRankings, openPlayground, preparePlayground } from '../support/playground-app'

const work = join(repo, 'test/.tmp/playground-e2e')
const artifacts = join(repo, 'test/.artifacts/playground')
const configFile = join(work, 'vite.config.ts')
/** Vite's dependency cache of the copy, beside it (not in the shared node_modules). */
const cacheDir = join(work, '.vite')

const LEXICAL_QUERY = 'screen reader announcements'
const VECTOR_QUERY = 'expose page functions as tools for AI agents'
const QUERIES = [LEXICAL_QUERY, VECTOR_QUERY]

type Env = 'production' | 'dev'

let browser: Browser
let dev: ViteDevServer
let preview: PreviewServer
const origins = {} as Record<Env, string>
let expected: Awaited<ReturnType<typeof nodeRankings>>
/** Every page opened, checked at the end for requests beyond the origin. */
const opened: Record<Env, PlaygroundPage[]> = { production: [], dev: [] }
/** Pages whose model was made to fail: they log that failure. */
const failing = new Set<PlaygroundPage>()

const originOf = (server: ViteDevServer | PreviewServer) => `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true })
  await preparePlayground(work)
  const { build, createServer, preview: startPreview } = await import('vite')
  await build({ root: work, configFile, cacheDir, logLevel: 'silent' })
  expected = await nodeRankings(work, QUERIES)
  preview = await startPreview({ root: work, configFile, cacheDir, logLevel: 'silent', preview: { host: '127.0.0.1', port: 0 } })
  origins.production = originOf(preview)
  dev = await createServer({ root: work, configFile, cacheDir, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } })
  await dev.listen()
  origins.dev = originOf(dev)
  browser = await launchChromium()
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await dev?.close()
  await preview?.close()
})

/** A screenshot of the state `name` (the viewport: full-page ones cost seconds each on a loaded machine). */
const shot = (page: Page, env: Env, name: string) => page.screenshot({ path: join(artifacts, `${env}-${name}.png`) })

/** The IDs of the results shown, in order. */
const shownIds = (page: Page) => page.$$eval('#results-list a', links => links.map(a => (a as HTMLElement).dataset.id!))

/** Waits until the results are those of `query` ranked in `mode`. */
const resultsOf = (page: Page, query: string, mode: string) => page.waitForSelector(`#results[data-query="${query}"][data-mode="${mode}"]`, { state: 'attached', timeout: 60_000 })

const go = (page: Page, hash: string) => page.evaluate((h) => {
  location.hash = h
}, hash)

describe.each<Env>(['production', 'dev'])('the playground (%s)', (env) => {
  let app: PlaygroundPage
  const open = async (options?: Parameters<typeof openPlayground>[2]) => {
    const page = await openPlayground(browser, origins[env], options)
    opened[env].push(page)
    return page
  }

  beforeAll(async () => {
    app = await open()
  }, 60_000)

  it('searches lexically as you type while the model loads, then ranks by fused scores once it is ready', async () => {
    const held = await open({ holdModel: true })
    const { page } = held
    await expect(page.textContent('#model-state')).resolves.toBe('Model: loading from this site… searching lexically meanwhile.')
    const box = page.getByRole('searchbox', { name: 'Search the guides' })
    await box.pressSequentially(LEXICAL_QUERY)
    await resultsOf(page, LEXICAL_QUERY, 'lexical')
    expect(expected.lexical[0]!.length).toBeGreaterThan(0)
    expect(await shownIds(page)).toEqual(expected.lexical[0]!.map(r => r.id))
    expect(await page.textContent('#results-summary')).toBe(`${expected.lexical[0]!.length} guides for “${LEXICAL_QUERY}”, ranked lexical (BM25); the model is still loading.`)
    // Results are links in a list inside a live region, for assistive technology and tests alike.
    expect(await page.getAttribute('#results', 'aria-live')).toBe('polite')
    expect(await page.locator('#results').getByRole('listitem').getByRole('link').count()).toBe(expected.lexical[0]!.length)
    await shot(page, env, 'search-lexical-model-loading')

    held.releaseModel()
    // The model compiles after its release: tens of seconds on a loaded 2-core machine, as in the tests below.
    await page.waitForSelector('#model-state[data-state="ready"]', { timeout: 60_000 })
    expect(await page.textContent('#model-state')).toMatch(/^Model: ready \(loaded in [\d,]+ ms\)\.$/)
    await resultsOf(page, LEXICAL_QUERY, 'auto')
    expect(await shownIds(page)).toEqual(expected.auto[0]!.map(r => r.id))
    expect(await page.textContent('#results-summary')).toBe(`${expected.auto[0]!.length} guides for “${LEXICAL_QUERY}”, ranked auto (vector and lexical scores fused).`)
    await shot(page, env, 'search-auto-model-ready')
  })

  it('ranks by vector as Node does, showing each score and matching heading', async () => {
    const { page } = app
    await page.waitForSelector('#model-state[data-state="ready"]', { timeout: 60_000 })
    await page.selectOption('#mode', 'vector')
    await page.getByRole('searchbox', { name: 'Search the guides' }).fill(VECTOR_QUERY)
    await resultsOf(page, VECTOR_QUERY, 'vector')
    const want = expected.vector[1]!
    expect(want.length).toBeGreaterThan(0)
    expect(await shownIds(page)).toEqual(want.map(r => r.id))
    const scores = await page.$$eval('#results-list .score', spans => spans.map(s => Number(s.textContent)))
    scores.forEach((score, i) => expect(Math.abs(score - want[i]!.score)).toBeLessThanOrEqual(0.0015))
    const headings = await page.$$eval('#results-list .heading', spans => spans.map(s => s.textContent))
    expect(headings.every(h => h && h.length > 0)).toBe(true)
    await shot(page, env, 'search-vector')
    await page.selectOption('#mode', 'auto')
  })

  it('says when the model failed, and keeps searching lexically', async () => {
    const failed = await open({ failModel: true })
    failing.add(failed)
    const { page } = failed
    await page.waitForSelector('#model-state[data-state="failed"]', { timeout: 60_000 })
    expect(await page.textContent('#model-state')).toMatch(/^Model: failed, searching lexically\. ./)
    await page.getByRole('searchbox', { name: 'Search the guides' }).fill(LEXICAL_QUERY)
    await resultsOf(page, LEXICAL_QUERY, 'lexical')
    expect(await shownIds(page)).toEqual(expected.lexical[0]!.map(r => r.id))
    expect(await page.textContent('#results-summary')).toBe(`${expected.lexical[0]!.length} guides for “${LEXICAL_QUERY}”, ranked lexical (BM25).`)
    await shot(page, env, 'search-model-failed')
  })

  it('is driven by the keyboard: Ctrl+K and / focus the box, arrows walk the results, Enter opens the document', async () => {
    const { page } = app
    await page.selectOption('#mode', 'lexical')
    await page.locator('#search-title').click()
    await page.keyboard.press('Control+k')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('q')
    await page.keyboard.type(LEXICAL_QUERY.slice(0, 6))
    await page.locator('#search-title').click()
    await page.keyboard.press('/')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('q')
    await page.keyboard.press('Control+a')
    await page.keyboard.type(LEXICAL_QUERY)
    await resultsOf(page, LEXICAL_QUERY, 'lexical')
    const ids = expected.lexical[0]!.map(r => r.id)
    expect(ids.length).toBeGreaterThan(1)
    const focused = () => page.evaluate(() => (document.activeElement as HTMLElement).dataset.id ?? document.activeElement?.id)
    await page.keyboard.press('ArrowDown')
    expect(await focused()).toBe(ids[0])
    await page.keyboard.press('ArrowDown')
    expect(await focused()).toBe(ids[1])
    await page.keyboard.press('ArrowUp')
    expect(await focused()).toBe(ids[0])
    await page.keyboard.press('ArrowUp')
    expect(await focused()).toBe('q')
    await page.keyboard.press('ArrowDown')
    // Focus is visible.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid')
    await shot(page, env, 'keyboard-focus')
    await page.keyboard.press('Enter')
    await page.waitForSelector(`#document[data-id="${ids[0]}"]`)
    expect(await page.evaluate(() => location.hash)).toBe(`#doc/${encodeURIComponent(ids[0]!)}`)
    expect(await page.isHidden('#results')).toBe(true)
    // The document's own text, rendered, with the heading of its best chunk marked.
    const source = readFileSync(join(work, 'guides/docs', `${ids[0]}.md`), 'utf8')
    const firstHeading = /^# (.+)$/m.exec(source)![1]!
    expect(await page.locator('#document .markdown h1').first().textContent()).toBe(firstHeading)
    const heading = (await page.$$eval('#results-list .heading', spans => spans[0]!.textContent!)).split(' › ').at(-1)
    expect(await page.locator('#document .match').textContent()).toBe(heading)
    await shot(page, env, 'document')
    await page.getByRole('link', { name: '← Back to the results' }).click()
    await page.waitForSelector('#results', { state: 'visible' })
  })

  it('lists the skills with token counts, opens a cover and reads a section on demand', async () => {
    const { page } = app
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: 'Skills' }).click()
    // The panel is a lazy chunk, set up on its first showing.
    await page.waitForSelector('#panel-skills[data-ready="yes"]', { state: 'attached' })
    const names = await page.$$eval('#skills-list > li > a', links => links.map(a => a.textContent))
    expect(names).toEqual(['accessibility-audit', 'commit-messages', 'css-layout', 'git-release', 'hostile', 'incident-notes', 'pdf-forms', 'sql-migrations'])
    const lines = await page.$$eval('#skills-list .tokens', ps => ps.map(p => p.textContent!))
    expect(lines.every(line => /^\d+ tokens listed · \d+ cover · [\d,]+ body · /.test(line))).toBe(true)
    expect(lines[7]).toMatch(/dormant until topics: database, schema migration, sql; paths: \*\.sql, migrations\/\*\*, supabase\/\*\*$/)
    await page.getByRole('link', { name: 'git-release', exact: true }).click()
    await page.waitForSelector('#skill-view[data-skill="git-release"]')
    expect(await page.locator('#skill-view .cover').textContent()).toContain('semver — Semver rules')
    await page.locator('#skill-view .index').getByRole('link', { name: 'semver', exact: true }).click()
    await page.waitForSelector('#skill-view .section-read[data-section="semver"]')
    const cost = await page.textContent('#skill-view .cost')
    const [, section, body] = /^readSection\('semver'\): about (\d+) tokens, against ([\d,]+) for the whole body \(\d+ %\)\.$/.exec(cost!) ?? []
    expect(Number(section)).toBeGreaterThan(0)
    expect(Number(section)).toBeLessThan(Number(body!.replace(',', '')))
    expect(await page.locator('#skill-view .section-read h3').first().textContent()).toBe('Semver rules {#semver}')
    expect(await page.evaluate(() => location.hash)).toBe('#skills/git-release/semver')
    await shot(page, env, 'skills-section')
  })

  it('simulates activation: which dormant skills activate and why, the listing against its budget, the tokens saved', async () => {
    const { page } = app
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: 'Activation' }).click()
    await page.waitForSelector('#panel-activation[data-ready="yes"]', { state: 'attached' })
    const log = () => page.$$eval('#act-log li', items => items.map(li => li.textContent))
    expect(await log()).toEqual(['No skill activated.'])
    await page.getByLabel('Scenario').selectOption({ label: 'A database question' })
    expect(await log()).toEqual(['[skills] Activated conditional skill \'sql-migrations\' (matched: topics: schema migration)'])
    expect(await page.$$eval('#act-skills tr[data-state="activated"] th', ths => ths.map(th => th.textContent))).toEqual(['sql-migrations'])
    expect(await page.textContent('#act-listing')).toContain('- sql-migrations: Write and review SQL schema migrations')
    const stats = await page.$$eval('#act-stats li', items => items.map(li => li.textContent!))
    expect(stats[1]).toBe('Skills: 5 active, 3 dormant, of 8.')
    const [, listed, all, saved] = /^Tokens: ([\d,]+) listed instead of ([\d,]+) for every skill: ([\d,]+) saved\.$/.exec(stats[2]!)!.map(n => Number(n.replace(/,/g, '')))
    expect(all! - listed!).toBe(saved)
    expect(saved).toBeGreaterThan(0)

    await page.getByLabel('Touched paths, one a line, relative to /project (observePaths)').fill('src/styles/cards.css')
    expect(await log()).toEqual([
      '[skills] Activated conditional skill \'sql-migrations\' (matched: topics: schema migration)',
      '[skills] Activated conditional skill \'css-layout\' (matched: paths: *.css)',
    ])
    await page.getByLabel('Listing budget (characters)').fill('120')
    const listing = (await page.textContent('#act-listing'))!.split('\n')
    // Over budget, the most recently activated skills lose their descriptions first; names stay.
    expect(listing.slice(-2)).toEqual(['- sql-migrations', '- css-layout'])
    expect((await page.$$eval('#act-stats li', items => items[0]!.textContent))).toMatch(/^Listing: \d+ characters of a 120-character budget( \(over: names always stay\))?\.$/)
    await shot(page, env, 'activation')

    await page.getByLabel('Scenario').selectOption({ label: 'An open incident (project code)' })
    expect(await log()).toEqual(['[skills] Activated conditional skill \'incident-notes\' (matched: projects: INC###)'])
  })

  it('browses the routed pages as an agent reads them: entry page, catalog, a document, llms.txt', async () => {
    const { page } = app
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name: 'Routes' }).click()
    await page.waitForSelector('#routes-view[data-file="SKILL.md"]')
    expect(await page.textContent('#routes-view .frontmatter')).toContain('name: modern-web-guidance')
    await page.locator('#routes-view').getByRole('link', { name: 'catalog' }).click()
    await page.waitForSelector('#routes-view[data-file="indexes/catalog.md"]')
    // The catalog's first page lists documents by path.
    await page.locator('#routes-view a[href^="#routes/indexes/catalog-"]').first().click()
    await page.waitForSelector('#routes-view[data-file^="indexes/catalog-"]')
    const documentLink = page.locator('#routes-view a[href^="#routes/references/"]').first()
    const href = (await documentLink.getAttribute('href'))!
    await documentLink.click()
    const path = href.slice('#routes/'.length)
    await page.waitForSelector(`#routes-view[data-file="${path}"]`)
    const source = readFileSync(join(work, 'guides/docs', path.slice('references/'.length)), 'utf8')
    expect(await page.locator('#routes-view .markdown h1').first().textContent()).toBe(/^# (.+)$/m.exec(source)?.[1])
    await shot(page, env, 'routes-document')
    await page.locator('#routes-files').getByRole('link', { name: 'llms.txt' }).click()
    await page.waitForSelector('#routes-view[data-file="llms.txt"]')
    await page.getByLabel('Show the Markdown source, as the agent reads it').check()
    await page.waitForSelector('#routes-view[data-file="llms.txt"] pre')
    expect(await page.textContent('#routes-view pre')).toMatch(/^# modern-web-guidance\n\n> /)
    await shot(page, env, 'routes-llms-txt')
    await page.getByLabel('Show the Markdown source, as the agent reads it').uncheck()
  })

  it('renders a hostile skill and document without running any of their script', async () => {
    const { page, dialogs } = app
    await go(page, 'skills/hostile')
    await page.waitForSelector('#skill-view[data-skill="hostile"]')
    await go(page, 'skills/hostile/payload')
    await page.waitForSelector('#skill-view .section-read[data-section="payload"]')
    await shot(page, env, 'hostile-skill')
    await page.locator('#skill-view').getByText('a mixed-case one').click()
    await go(page, 'doc/hostile%2Fpayload')
    await page.waitForSelector('#document[data-id="hostile/payload"]')
    await page.locator('#document').getByText('a javascript: link').click()
    await shot(page, env, 'hostile-document')
    await go(page, 'routes/references/hostile/payload.md')
    await page.waitForSelector('#routes-view[data-file="references/hostile/payload.md"]')
    const found = await page.evaluate(() => {
      // Everything the page rendered from Markdown.
      const rendered = Array.from(document.querySelectorAll('#document, #skill-view, #routes-view'))
      const inside = (selector: string) => rendered.flatMap(e => Array.from(e.querySelectorAll(selector)))
      return {
        pwned: (window as { __pwned?: unknown }).__pwned,
        elements: inside('script, iframe, svg, math, object, embed, img, style, form, button, input, animate').map(e => e.localName),
        handlers: inside('*').flatMap(e => Array.from(e.attributes).filter(a => a.name.startsWith('on')).map(a => `${e.localName} ${a.name}`)),
        hrefs: inside('a[href]').map(a => a.getAttribute('href')!).filter(h => !/^(#|https?:|mailto:)/.test(h)),
      }
    })
    expect(found).toEqual({ pwned: undefined, elements: [], handlers: [], hrefs: [] })
    expect(await page.locator('#routes-view').textContent()).toContain('a javascript: link')
    expect(dialogs).toEqual([])
  })

  it('labels every control', async () => {
    const unlabelled = await app.page.$$eval('input, select, textarea', controls => controls.filter(c => (c as HTMLInputElement).labels?.length === 0 && !c.getAttribute('aria-label')).map(c => c.id))
    expect(unlabelled).toEqual([])
    expect(await app.page.getByRole('searchbox').getAttribute('type')).toBe('search')
  })

  it('is usable 360 px wide: nothing scrolls sideways', async () => {
    const narrow = await open({ width: 360 })
    const { page } = narrow
    await page.getByRole('searchbox', { name: 'Search the guides' }).fill(LEXICAL_QUERY)
    await page.waitForSelector(`#results[data-query="${LEXICAL_QUERY}"]`, { state: 'attached' })
    for (const [hash, ready] of [['search', '#results-list a'], ['skills/git-release/semver', '.section-read[data-section="semver"]'], ['activation', '#act-log li'], ['routes/indexes/catalog.md', '#routes-view[data-file="indexes/catalog.md"]']] as const) {
      await go(page, hash)
      await page.waitForSelector(ready)
      expect(await page.evaluate(() => document.documentElement.scrollWidth), hash).toBeLessThanOrEqual(360)
      await shot(page, env, `narrow-${hash.split('/')[0]}`)
    }
  })

  if (env === 'dev') {
    it('shows an edited skill and an edited document through HMR, keeping the search text and the open panel', async () => {
      const { page } = app
      await page.evaluate(() => {
        (window as { kept?: string }).kept = 'yes'
      })
      await go(page, 'search')
      await page.selectOption('#mode', 'lexical')
      await page.getByRole('searchbox', { name: 'Search the guides' }).fill('wombat ledger')
      await resultsOf(page, 'wombat ledger', 'lexical')
      expect(await shownIds(page)).toEqual([])
      await go(page, 'skills/sql-migrations')
      await page.waitForSelector('#skill-view[data-skill="sql-migrations"]')

      const skillFile = join(work, 'skills/sql-migrations/SKILL.md')
      writeFileSync(skillFile, readFileSync(skillFile, 'utf8').replace('Write and review SQL schema migrations', 'Edited while the page was open, write SQL migrations'))
      await page.waitForFunction(() => document.getElementById('skills-list')!.textContent!.includes('Edited while the page was open'), undefined, { timeout: 30_000 })
      await page.waitForFunction(() => document.querySelector('#skill-view[data-skill="sql-migrations"] .description')?.textContent?.startsWith('Edited while the page was open') === true, undefined, { timeout: 30_000 })

      const docFile = join(work, 'guides/docs/js/manage-recurring-intervals.md')
      writeFileSync(docFile, `${readFileSync(docFile, 'utf8')}\n## Wombat ledger\n\nA wombat keeps the ledger of intervals.\n`)
      await page.waitForSelector('#results-list a[data-id="js/manage-recurring-intervals"]', { state: 'attached', timeout: 60_000 })

      // No reload: the page kept its marker, its panel, its search text.
      expect(await page.evaluate(() => (window as { kept?: string }).kept)).toBe('yes')
      expect(await page.evaluate(() => location.hash)).toBe('#skills/sql-migrations')
      expect(await page.inputValue('#q')).toBe('wombat ledger')
      await shot(page, env, 'hmr-skill')
      await go(page, 'search')
      await page.waitForSelector('#results-list a[data-id="js/manage-recurring-intervals"]')
      await shot(page, env, 'hmr-document')
    })
  }

  it('loaded the model and ONNX Runtime from its own origin, never reached beyond it, and logged no error', () => {
    const requests = opened[env].flatMap(page => page.requests)
    expect(requests.some(u => u.startsWith(`${origins[env]}/`) && u.endsWith('/onnx/model_quantized.onnx'))).toBe(true)
    expect(requests.some(u => u.startsWith(`${origins[env]}/`) && /\.wasm(\?|$)/.test(u))).toBe(true)
    for (const page of opened[env]) {
      expect(page.escaped).toEqual([])
      expect(page.requests.filter(u => !u.startsWith(`${origins[env]}/`) && !u.startsWith('blob:') && !u.startsWith('data:'))).toEqual([])
      expect(page.dialogs).toEqual([])
    }
    for (const page of opened[env].filter(p => !failing.has(p)))
      expect(page.errors).toEqual([])
  })
})
