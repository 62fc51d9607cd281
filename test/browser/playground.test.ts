/**
 * The docs site (the playground) end to end, in headless Chromium: the production build
 * (`npm run build:playground`) served by `vite preview`: our docs/ as pages (a list of
 * them, each at its own URL, links between them, the back button), `<skill-kit-search>`
 * over them (titles, lexical as you type then semantic, a sub-result landing on its
 * heading), the guides through the same component (their first semantic result as Node
 * ranks it), the skills, activation and routes panels, a hostile skill and document that
 * must not run script, 360 px, and the docs exported as an agent skill into the build
 * output. Then the dev server (`npm start`): an edited skill and guide reaching the page
 * through HMR with its state kept. Every request is recorded, and none may leave the
 * page's origin.
 *
 * Screenshots of each state go to test/.artifacts/playground/ (git-ignored).
 * Everything waits on selectors the page sets when a state is reached, never on time.
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser, Page } from 'playwright-core'
import type { PreviewServer, ViteDevServer } from 'vite'
import type { NodeRankings, PlaygroundPage } from '../support/playground-app'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filesOf, launchChromium, repo } from '../support/knowledge-app'
import { nodeRankings, openPlayground, preparePlayground } from '../support/playground-app'

const work = join(repo, 'test/.tmp/playground-e2e')
const artifacts = join(repo, 'test/.artifacts/playground')
const configFile = join(work, 'vite.config.ts')
/** Vite's dependency cache of the copy, beside it (not in the shared node_modules). */
const cacheDir = join(work, '.vite')
const docsDir = join(repo, 'docs')

const DOCS_QUERY = 'routed index pages'
const GUIDES_QUERY = 'expose page functions as tools for AI agents'

type Env = 'production' | 'dev'

let browser: Browser
let preview: PreviewServer
const origins = {} as Record<Env, string>
const expected = {} as { docs: NodeRankings, guides: NodeRankings }
/** Every page opened, checked at the end for requests beyond the origin. */
const opened: Record<Env, PlaygroundPage[]> = { production: [], dev: [] }
/** Pages whose model was made to fail: they log that failure. */
const failing = new Set<PlaygroundPage>()

const originOf = (server: ViteDevServer | PreviewServer) => `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true })
  await preparePlayground(work)
  const { build, preview: startPreview } = await import('vite')
  await build({ root: work, configFile, cacheDir, logLevel: 'silent' })
  expected.docs = await nodeRankings(work, docsDir, [DOCS_QUERY])
  expected.guides = await nodeRankings(work, join(work, 'guides'), [GUIDES_QUERY])
  preview = await startPreview({ root: work, configFile, cacheDir, logLevel: 'silent', preview: { host: '127.0.0.1', port: 0 } })
  origins.production = originOf(preview)
  browser = await launchChromium()
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await preview?.close()
})

/** A screenshot of the state `name` (the viewport: full-page ones cost seconds each on a loaded machine). */
const shot = (page: Page, env: Env, name: string) => page.screenshot({ path: join(artifacts, `${env}-${name}.png`) })

const go = (page: Page, hash: string) => page.evaluate((h) => {
  location.hash = h
}, hash)

/** The first line of `file` that is a `# ` heading: the page's title as it renders. */
const firstHeading = (file: string) => /^# (.+)$/m.exec(readFileSync(file, 'utf8'))![1]!

/** Waits until the search in `scope` shows `query` ranked `ranking` (the component's panel says so). */
const rankedAs = (page: Page, scope: string, query: string, ranking: 'lexical' | 'semantic') =>
  page.waitForSelector(`${scope} .panel[data-query="${query}"][data-ranking="${ranking}"]`, { state: 'attached', timeout: 60_000 })

/** The IDs of the results (not their headings) the search in `scope` shows, in order. */
const resultIds = (page: Page, scope: string) => page.locator(`${scope} [role=option].result:not(.sub)`).evaluateAll(options => options.map(o => (o as HTMLElement).dataset.key!))

describe('the docs site (production build)', () => {
  const env: Env = 'production'
  let app: PlaygroundPage
  const open = async (options?: Parameters<typeof openPlayground>[2]) => {
    const page = await openPlayground(browser, origins[env], options)
    opened[env].push(page)
    return page
  }

  beforeAll(async () => {
    app = await open()
  }, 60_000)

  it('serves our docs as pages: a list of them, each at its own URL, links between them, the back button', async () => {
    const { page } = app
    await page.waitForSelector('#doc-page[data-id="index"]')
    const pages = readdirSync(docsDir).filter(f => f.endsWith('.md'))
    const links = await page.locator('#docs-nav a').evaluateAll(as => as.map(a => ({ name: a.textContent, href: a.getAttribute('href') })))
    // Every page listed once, by its title (as the search shows it), the home page first.
    const title = (id: string) => expected.docs.titles.get(id)
    expect(links.map(l => l.href).sort()).toEqual(pages.map(f => `#docs/${f.replace(/\.md$/, '')}`).sort())
    expect(links.map(l => l.name)).toEqual(links.map(l => title(decodeURIComponent(l.href!.slice('#docs/'.length)))))
    expect(links[0]).toEqual({ name: title('index'), href: '#docs/index' })
    expect(await page.locator('#doc-page h1').first().textContent()).toBe(title('index'))
    await shot(page, env, 'docs-home')

    // A link of the home page to another page, rewritten from `cli.md` to the page's route.
    await page.locator('#doc-page a[href="#docs/cli"]').first().click()
    await page.waitForSelector('#doc-page[data-id="cli"]')
    expect(await page.evaluate(() => location.hash)).toBe('#docs/cli')
    expect(await page.locator('#doc-page h1').first().textContent()).toBe(title('cli'))
    expect(await page.getAttribute('#docs-nav a[aria-current="page"]', 'href')).toBe('#docs/cli')
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: title('options'), exact: true }).click()
    await page.waitForSelector('#doc-page[data-id="options"]')
    await page.goBack()
    await page.waitForSelector('#doc-page[data-id="cli"]')
    await page.goBack()
    await page.waitForSelector('#doc-page[data-id="index"]')
  })

  it('searches the docs with <skill-kit-search>: titles, by words as you type while the model loads, then by meaning; a heading lands on its heading', async () => {
    const held = await open({ holdModel: true })
    const { page } = held
    const search = 'skill-kit-search'
    await page.keyboard.press('Control+k')
    const box = page.getByRole('combobox', { name: 'Search the docs' })
    await box.pressSequentially(DOCS_QUERY)
    await rankedAs(page, search, DOCS_QUERY, 'lexical')
    const lexical = await resultIds(page, search)
    expect(lexical[0]).toBe(expected.docs.lexical[0]![0]!.id)
    // Results are titled by their pages' titles, and link to their pages' routes.
    const titles = await page.locator(`${search} [role=option].result:not(.sub) .title`).allTextContents()
    expect(titles).toEqual(lexical.map(id => expected.docs.titles.get(id)))
    expect(await page.locator(`${search} [role=option].result:not(.sub)`).first().getAttribute('href')).toBe(`${origins[env]}/#docs/${lexical[0]}`)
    expect(await page.locator(`${search} [role=status]`).textContent()).toMatch(/ranked by words; by meaning in a moment\.$/)
    await shot(page, env, 'docs-search-lexical')

    held.releaseModel()
    await rankedAs(page, search, DOCS_QUERY, 'semantic')
    expect((await resultIds(page, search))[0]).toBe(expected.docs.auto[0]![0]!.id)
    expect(await page.locator(`${search} [role=status]`).textContent()).toMatch(/ranked by meaning\.$/)
    await shot(page, env, 'docs-search-semantic')

    // A heading of a result: its link names the page and the heading's anchor, as the page renders its ids.
    const sub = page.locator(`${search} [role=option].result.sub`).first()
    const href = (await sub.getAttribute('href'))!
    const heading = (await sub.locator('.title').textContent())!
    const [, id, anchor] = /#docs\/([^/]+)\/(.+)$/.exec(href)!
    await sub.click()
    await page.waitForSelector(`#doc-page[data-id="${decodeURIComponent(id!)}"][data-anchor="${decodeURIComponent(anchor!)}"]`)
    expect(await page.evaluate(() => location.hash)).toBe(`#docs/${id}/${anchor}`)
    const target = page.locator(`#doc-page [id="${decodeURIComponent(anchor!)}"]`)
    expect(await target.evaluate(e => e.localName)).toMatch(/^h[1-6]$/)
    expect(await target.textContent()).toBe(heading)
    // Scrolled to it, below the sticky header, and focused for the keyboard and screen readers.
    const top = await target.evaluate(e => e.getBoundingClientRect().top)
    const header = await page.evaluate(() => document.querySelector('header')!.getBoundingClientRect().bottom)
    expect(top).toBeGreaterThanOrEqual(header - 1)
    expect(top).toBeLessThan(await page.evaluate(() => innerHeight))
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(decodeURIComponent(anchor!))
    await shot(page, env, 'docs-search-heading')
    await page.goBack()
    await page.waitForSelector('#doc-page[data-id="index"]')
  })

  it('keeps searching by words when the model fails to load', async () => {
    const failed = await open({ failModel: true })
    failing.add(failed)
    const { page } = failed
    await page.keyboard.press('Control+k')
    await page.getByRole('combobox', { name: 'Search the docs' }).fill(DOCS_QUERY)
    // Done: the second ranking is in too (an `auto` search over no query vector ranks by words).
    await page.waitForSelector(`skill-kit-search .panel[data-query="${DOCS_QUERY}"][data-state="done"]`, { state: 'attached', timeout: 60_000 })
    expect((await resultIds(page, 'skill-kit-search'))[0]).toBe(expected.docs.lexical[0]![0]!.id)
    // And says so: the results are labelled as ranked by words, not by meaning.
    expect(await page.locator(`skill-kit-search .panel[data-query="${DOCS_QUERY}"]`).getAttribute('data-ranking')).toBe('lexical')
  })

  it('searches the guides through the same component: the first semantic result as Node ranks it opens the guide', async () => {
    const { page } = app
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Guides' }).click()
    await page.waitForSelector('#panel-guides[data-ready="yes"]', { state: 'attached' })
    expect(await page.textContent('#guides-count')).toBe(String(expected.guides.titles.size))
    await page.locator('#guides-search').getByRole('button', { name: /^Search the guides/ }).click()
    await page.getByRole('combobox', { name: 'Search the guides' }).fill(GUIDES_QUERY)
    await rankedAs(page, '#guides-search', GUIDES_QUERY, 'semantic')
    const first = expected.guides.auto[0]![0]!.id
    expect((await resultIds(page, '#guides-search'))[0]).toBe(first)
    expect(await page.locator('#guides-search [role=option].result:not(.sub) .title').first().textContent()).toBe(expected.guides.titles.get(first))
    await shot(page, env, 'guides-search-semantic')
    await page.locator('#guides-search [role=option].result:not(.sub)').first().click()
    await page.waitForSelector(`#guide-view[data-id="${first}"]`)
    expect(await page.evaluate(() => location.hash)).toBe(`#doc/${encodeURIComponent(first)}`)
    expect(await page.locator('#guide-view .markdown h1').first().textContent()).toBe(firstHeading(join(work, 'guides/docs', `${first}.md`)))
    await shot(page, env, 'guide')
  })

  it('lists the skills with token counts, opens a cover and reads a section on demand', async () => {
    const { page } = app
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Skills' }).click()
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
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Activation' }).click()
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
    await page.getByRole('navigation', { name: 'Site' }).getByRole('link', { name: 'Routes' }).click()
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
    await page.waitForSelector('#guide-view[data-id="hostile/payload"]')
    await page.locator('#guide-view').getByText('a javascript: link').click()
    await shot(page, env, 'hostile-document')
    await go(page, 'routes/references/hostile/payload.md')
    await page.waitForSelector('#routes-view[data-file="references/hostile/payload.md"]')
    const found = await page.evaluate(() => {
      // Everything the page rendered from Markdown.
      const rendered = Array.from(document.querySelectorAll('#guide-view, #doc-page, #skill-view, #routes-view'))
      const inside = (selector: string) => rendered.flatMap(e => Array.from(e.querySelectorAll(selector)))
      return {
        pwned: (window as { __pwned?: unknown }).__pwned,
        elements: inside('script, iframe, svg, math, object, embed, img, style, form, button, input, animate').map(e => e.localName),
        handlers: inside('*').flatMap(e => Array.from(e.attributes).filter(a => a.name.startsWith('on')).map(a => `${e.localName} ${a.name}`)),
        hrefs: inside('a[href]').map(a => a.getAttribute('href')!).filter(h => !/^(#|https?:|mailto:)/.test(h)),
      }
    })
    expect(found).toEqual({ pwned: undefined, elements: [], handlers: [], hrefs: [] })
    // Headings named after the page's own elements do not take their ids: the panels stay the panels.
    expect(await page.evaluate(() => ['panel-skills', 'doc-page'].map(id => document.getElementById(id)?.localName))).toEqual(['section', 'article'])
    expect(await page.locator('#guide-view h2').allTextContents()).toEqual(['Quokka beacon', 'panel-skills', 'doc-page'])
    expect(await page.locator('#routes-view').textContent()).toContain('a javascript: link')
    expect(dialogs).toEqual([])
  })

  it('labels every control', async () => {
    const unlabelled = await app.page.$$eval('input, select, textarea', controls => controls.filter(c => (c as HTMLInputElement).labels?.length === 0 && !c.getAttribute('aria-label')).map(c => c.id))
    expect(unlabelled).toEqual([])
  })

  it('is usable 360 px wide: nothing scrolls sideways', async () => {
    const narrow = await open({ width: 360 })
    const { page } = narrow
    for (const [hash, ready] of [['docs/cli', '#doc-page[data-id="cli"]'], ['guides', '#panel-guides[data-ready="yes"]'], ['skills/git-release/semver', '.section-read[data-section="semver"]'], ['activation', '#act-log li'], ['routes/indexes/catalog.md', '#routes-view[data-file="indexes/catalog.md"]']] as const) {
      await go(page, hash)
      await page.waitForSelector(ready, { state: 'attached' })
      expect(await page.evaluate(() => document.documentElement.scrollWidth), hash).toBeLessThanOrEqual(360)
      await shot(page, env, `narrow-${hash.split('/')[0]}`)
    }
  })

  it('exports our docs into the build output as a routed agent skill: SKILL.md, llms.txt, index pages, the pages as they are', () => {
    const skill = join(work, 'dist/skills/docs')
    const files = filesOf(skill)
    expect(readFileSync(join(skill, 'SKILL.md'), 'utf8')).toMatch(/^---\nname: docs\ndescription: "The documentation of unplugin-skill-kit: [^"\n]+"\n---\n/)
    expect(readFileSync(join(skill, 'llms.txt'), 'utf8')).toMatch(/^# docs\n\n> /)
    expect(files.some(f => f.startsWith('indexes/'))).toBe(true)
    // The documents, byte for byte, and nothing else of the repository.
    const pages = readdirSync(docsDir).filter(f => f.endsWith('.md')).sort()
    expect(files.filter(f => f.startsWith('references/')).sort()).toEqual(pages.map(f => `references/${f}`))
    for (const page of pages)
      expect(readFileSync(join(skill, 'references', page), 'utf8'), page).toBe(readFileSync(join(docsDir, page), 'utf8'))
    // No search script, index or model: an agent reads it over HTTP by its links.
    expect(files.filter(f => /\.(?:mjs|js|skillkit|onnx|json)$/.test(f))).toEqual([])
  })

  it('publishes its skills and the exported docs for agents: the well-known index, its artefacts and llms.txt at the root', () => {
    const dist = join(work, 'dist')
    const index = JSON.parse(readFileSync(join(dist, '.well-known/agent-skills/index.json'), 'utf8')) as { skills: { name: string, type: string, url: string, digest: string }[] }
    const docs = index.skills.find(s => s.name === 'docs')!
    expect(docs).toMatchObject({ type: 'archive', url: 'docs.tar.gz' })
    expect(index.skills.find(s => s.name === 'git-release')).toBeDefined()
    for (const skill of index.skills) {
      const bytes = readFileSync(join(dist, '.well-known/agent-skills', skill.url))
      expect(skill.digest, skill.name).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`)
    }
    const llms = readFileSync(join(dist, 'llms.txt'), 'utf8')
    expect(llms).toMatch(/^# unplugin-skill-kit\n\n> Agent skills/)
    expect(llms).toContain('skills/docs/llms.txt')
  })

  it('loaded the model and ONNX Runtime from its own origin, never reached beyond it, and logged no error', () => {
    expectLocal(env)
  })
})

/** The pages of `env` asked only their origin (the model and ONNX Runtime's WebAssembly included), opened no dialog and logged no error. */
function expectLocal(env: Env): void {
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
}

describe('the docs site (dev server)', () => {
  const env: Env = 'dev'
  let dev: ViteDevServer

  beforeAll(async () => {
    const { createServer } = await import('vite')
    dev = await createServer({ root: work, configFile, cacheDir, logLevel: 'silent', server: { host: '127.0.0.1', port: 0 } })
    await dev.listen()
    origins.dev = originOf(dev)
  }, 120_000)

  afterAll(async () => {
    await dev?.close()
  })

  it('shows a docs page, and an edited skill and guide through HMR, keeping the page\'s state', async () => {
    const app = await openPlayground(browser, origins.dev)
    opened.dev.push(app)
    const { page } = app
    await page.waitForSelector('#doc-page[data-id="index"]')
    expect(await page.locator('#doc-page h1').first().textContent()).toBe(expected.docs.titles.get('index'))
    await page.evaluate(() => {
      (window as { kept?: string }).kept = 'yes'
    })
    await go(page, 'skills/sql-migrations')
    await page.waitForSelector('#skill-view[data-skill="sql-migrations"]')
    const skillFile = join(work, 'skills/sql-migrations/SKILL.md')
    writeFileSync(skillFile, readFileSync(skillFile, 'utf8').replace('Write and review SQL schema migrations', 'Edited while the page was open, write SQL migrations'))
    await page.waitForFunction(() => document.getElementById('skills-list')!.textContent!.includes('Edited while the page was open'), undefined, { timeout: 30_000 })
    await page.waitForFunction(() => document.querySelector('#skill-view[data-skill="sql-migrations"] .description')?.textContent?.startsWith('Edited while the page was open') === true, undefined, { timeout: 30_000 })

    const guide = 'js/manage-recurring-intervals'
    await go(page, `doc/${encodeURIComponent(guide)}`)
    await page.waitForSelector(`#guide-view[data-id="${guide}"]`)
    const guideFile = join(work, 'guides/docs', `${guide}.md`)
    writeFileSync(guideFile, `${readFileSync(guideFile, 'utf8')}\n## Wombat ledger\n\nA wombat keeps the ledger of intervals.\n`)
    // The open guide is rendered again from the new build, the new heading with the id the search links to.
    await page.waitForSelector('#guide-view h2#wombat-ledger', { timeout: 60_000 })

    // No reload: the page kept its marker and its route.
    expect(await page.evaluate(() => (window as { kept?: string }).kept)).toBe('yes')
    expect(await page.evaluate(() => location.hash)).toBe(`#doc/${encodeURIComponent(guide)}`)
    await shot(page, env, 'hmr-guide')
    expectLocalDev()
  })
})

/** The dev page asked only its origin and logged no error (it loads no model: nothing was searched). */
function expectLocalDev(): void {
  for (const page of opened.dev) {
    expect(page.escaped).toEqual([])
    expect(page.errors).toEqual([])
    expect(page.dialogs).toEqual([])
  }
}
