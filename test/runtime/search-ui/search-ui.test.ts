/**
 * The search component in headless Chromium, over a fake source
 * (test/support/search-ui-fake-source.ts): results as you type, the semantic
 * ranking replacing the lexical one with the active option and focus kept,
 * the combobox's keyboard and roles as Chromium's accessibility tree shows
 * them, filters with counts, sub-results landing on their heading, recent
 * searches, hostile documents inert, strings and themes, 320 px wide
 * (screenshot in test/.artifacts/search-ui/), and no request leaving the origin.
 * Everything waits on attributes the component sets when a state is reached.
 */
import type { Browser, Page, Request } from 'playwright-core'
import type { SearchUIServer } from '../../support/search-ui-page'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, repo } from '../../support/knowledge-app'
import { HOSTILE_TITLE } from '../../support/search-ui-fake-source'
import { openSearchUI, serveSearchUI } from '../../support/search-ui-page'

const artifacts = join(repo, 'test/.artifacts/search-ui')

let server: SearchUIServer
let browser: Browser
const requests: Request[] = []

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true })
  server = await serveSearchUI()
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const open = (query: string, viewport?: { width: number, height: number }) => openSearchUI(browser, server.origin, query, requests, viewport)

/** Waits until the results of `query` are shown in `state` (`pending`: lexical, semantic to come; `done`). */
const resultsOf = (page: Page, query: string, state: 'pending' | 'done', ranking = state === 'pending' ? 'lexical' : undefined) =>
  page.waitForSelector(`.panel[data-query="${query}"][data-state="${state}"]${ranking ? `[data-ranking="${ranking}"]` : ''}`, { state: 'attached' })

/** Opens the search with Ctrl+K, types `query` and waits for its results in `state`. */
async function searchFor(page: Page, query: string, state: 'pending' | 'done', ranking?: string): Promise<void> {
  await page.keyboard.press('Control+k')
  await page.keyboard.type(query)
  await resultsOf(page, query, state, ranking)
}

/** The keys of the options shown, in order (a result's ID; a heading's is `<ID>\n<url>`). */
const shownKeys = (page: Page) => page.locator('[role=option]').evaluateAll(options => options.map(o => (o as HTMLElement).dataset.key!))
const activeKey = (page: Page) => page.locator('[role=option][aria-selected=true]').getAttribute('data-key')
const status = (page: Page) => page.getByRole('status').textContent()
/** The role (else the class) of the element focused inside the component's shadow root (the page's activeElement is the host). */
const focusedRole = (page: Page) => page.evaluate(() => {
  const inside = document.activeElement?.shadowRoot?.activeElement
  return inside ? inside.getAttribute('role') ?? inside.className : undefined
})

const dialogIds = (n: number) => Array.from({ length: n }, (_, i) => `guides/dialog-${i + 1}`)

describe('the search component', () => {
  it('shows lexical results as you type: titles, categories, marked excerpts and up to three headings per document', async () => {
    const page = await open('semantic=off')
    await page.keyboard.press('Control+k')
    expect(await focusedRole(page)).toBe('combobox')
    await page.keyboard.type('light')
    await resultsOf(page, 'light', 'done', 'lexical')
    const keys = await shownKeys(page)
    // Each document, then its one heading with "light" in it.
    expect(keys).toEqual(dialogIds(14).flatMap((id, i) => [id, `${id}\n${i === 0 ? '/docs/dialogs.html' : `/docs/dialog-${i + 1}.html`}#light-dismiss`]))
    expect(await status(page)).toBe('14 results for “light”, ranked by words.')
    const first = page.locator('[role=option]').first()
    expect(await first.locator('.title').textContent()).toBe('Dialog pattern 1')
    expect(await first.locator('.path').textContent()).toBe('guides')
    expect(await first.locator('.excerpt').textContent()).toBe('A modal dialog blocks the page; light dismiss closes dialog 1 on a click outside.')
    expect(await first.locator('mark').allTextContents()).toEqual(['light'])
    expect(await first.getAttribute('href')).toBe(`${server.origin}/docs/dialogs.html`)
    expect(await page.locator('[role=option]').nth(1).getAttribute('href')).toBe(`${server.origin}/docs/dialogs.html#light-dismiss`)
    // Every prefix typed was searched, lexically only: this source has no semantic ranking.
    expect(await page.evaluate(() => (window as unknown as { searchCalls: string[] }).searchCalls)).toEqual(['l', 'li', 'lig', 'ligh', 'light'].map(q => `lexical:${q}`))

    // Four matching headings in the source: three shown, in the source's order.
    await page.keyboard.press('Control+a')
    await page.keyboard.type('dialog light')
    await resultsOf(page, 'dialog light', 'done')
    const firstDocument = (await shownKeys(page)).slice(0, 5)
    expect(firstDocument).toEqual(['guides/dialog-1', ...['light-dismiss', 'dialog-focus', 'closing-a-dialog'].map(a => `guides/dialog-1\n/docs/dialogs.html#${a}`), 'guides/dialog-2'])

    await page.keyboard.press('Control+a')
    await page.keyboard.type('zebra')
    await resultsOf(page, 'zebra', 'done')
    expect(await status(page)).toBe('No results for “zebra”.')
    expect(await page.locator('[role=option]').count()).toBe(0)
    expect(await page.getByRole('combobox').getAttribute('aria-expanded')).toBe('false')
    await page.close()
  })

  // At 320 px the status line is two lines while the semantic ranking is awaited, one after.
  it.each([1024, 320])('replaces the lexical results by the semantic ones without moving focus, the active option or its place on screen (%i px)', async (width) => {
    const page = await open('semantic=held', { width, height: 700 })
    await page.getByRole('button', { name: 'Search' }).click()
    await page.keyboard.type('dialog')
    await resultsOf(page, 'dialog', 'pending')
    expect(await status(page)).toBe('14 results for “dialog”, ranked by words; by meaning in a moment.')
    const lexical = await shownKeys(page)
    for (let i = 0; i < 9; i++)
      await page.keyboard.press('ArrowDown')
    // Options 0-3 are document 1 and its three headings, 4-7 document 2's: the ninth is document 3.
    expect(await activeKey(page)).toBe('guides/dialog-3')
    const before = await page.locator('[role=option][aria-selected=true]').boundingBox()

    await page.evaluate(() => (window as unknown as { releaseSemantic: () => void }).releaseSemantic())
    await resultsOf(page, 'dialog', 'done', 'semantic')
    const semantic = await shownKeys(page)
    expect(semantic.filter(k => !k.includes('\n'))).toEqual(dialogIds(14).reverse())
    expect(semantic).not.toEqual(lexical)
    expect(await status(page)).toBe('14 results for “dialog”, ranked by meaning.')
    // One semantic search at a time: the prefixes typed while the first was held were skipped.
    expect(await page.evaluate(() => (window as unknown as { searchCalls: string[] }).searchCalls.filter(c => c.startsWith('semantic')))).toEqual(['semantic:d', 'semantic:dialog'])
    expect(await activeKey(page)).toBe('guides/dialog-3')
    expect(await focusedRole(page)).toBe('combobox')
    const activeId = await page.locator('[role=option][aria-selected=true]').getAttribute('id')
    expect(await page.getByRole('combobox').getAttribute('aria-activedescendant')).toBe(activeId)
    const after = await page.locator('[role=option][aria-selected=true]').boundingBox()
    expect(after!.y).toBeCloseTo(before!.y, 0)
    // The list did move (document 3 is near its end now): it scrolled to keep the option in place.
    expect(await page.locator('[role=listbox]').evaluate(list => list.scrollTop)).toBeGreaterThan(0)
    await page.close()
  })

  it('searches once its source arrives, when the knowledge base loads after the page', async () => {
    const page = await open('semantic=off&late=1')
    await page.keyboard.press('Control+k')
    await page.keyboard.type('light')
    await page.waitForSelector('.panel[data-state="searching"]', { state: 'attached' })
    expect(await status(page)).toBe('Searching for “light”…')
    expect(await page.locator('[role=option]').count()).toBe(0)
    await page.evaluate(() => (window as unknown as { giveSource: () => void }).giveSource())
    await resultsOf(page, 'light', 'done')
    expect(await status(page)).toBe('14 results for “light”, ranked by words.')
    expect(await page.evaluate(() => (window as unknown as { searchCalls: string[] }).searchCalls)).toEqual(['lexical:light'])
    await page.close()
  })

  it('keeps the lexical results and says so when the semantic ranking fails', async () => {
    const page = await open('semantic=fail')
    // Escape gives focus back to what opened the dialog.
    await page.getByRole('button', { name: 'Search' }).click()
    await page.keyboard.press('Escape')
    expect(await focusedRole(page)).toBe('open')
    await searchFor(page, 'dialog', 'done', 'lexical')
    expect(await status(page)).toBe('14 results for “dialog”, ranked by words (ranking by meaning is unavailable).')
    expect((await shownKeys(page)).filter(k => !k.includes('\n'))).toEqual(dialogIds(14))
    await page.close()
  })

  it('is a WAI-ARIA combobox: / and Ctrl+K open it, arrows move the active option, Escape closes, Enter opens; as Chromium exposes it', async () => {
    const page = await open('semantic=off')
    await page.locator('h1').click()
    await page.keyboard.press('/')
    expect(await focusedRole(page)).toBe('combobox')
    await page.keyboard.press('Escape')
    expect(await page.locator('dialog').evaluate(d => (d as HTMLDialogElement).open)).toBe(false)
    // A "/" typed in another field is text, not the shortcut.
    await page.locator('#elsewhere').click()
    await page.keyboard.press('/')
    expect(await page.locator('#elsewhere').inputValue()).toBe('/')
    expect(await page.locator('dialog').evaluate(d => (d as HTMLDialogElement).open)).toBe(false)
    await page.keyboard.press('Control+k')
    expect(await focusedRole(page)).toBe('combobox')
    await page.keyboard.type('dialog')
    await resultsOf(page, 'dialog', 'done')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')

    const cdp = await page.context().newCDPSession(page)
    const { nodes } = await cdp.send('Accessibility.getFullAXTree') as { nodes: AXNode[] }
    const named = (role: string) => nodes.filter(n => n.role?.value === role && !n.ignored)
    const prop = (node: AXNode, name: string) => node.properties?.find(p => p.name === name)?.value.value
    const [dialog] = named('dialog')
    expect(dialog?.name?.value).toBe('Search the docs')
    const [combobox] = named('combobox')
    expect(combobox?.name?.value).toBe('Search the docs')
    expect(prop(combobox!, 'expanded')).toBe(true)
    expect(prop(combobox!, 'focused')).toBe(true)
    expect(prop(combobox!, 'autocomplete')).toBe('list')
    const [listbox] = named('listbox')
    expect(listbox?.name?.value).toBe('Results')
    const options = named('option')
    expect(options).toHaveLength(14 * 4)
    expect(options.slice(0, 5).map(o => o.name?.value)).toEqual(['Dialog pattern 1', 'Dialog focus Dialog pattern 1', 'Closing a dialog Dialog pattern 1', 'Dialog events Dialog pattern 1', 'Dialog pattern 2'])
    expect(options[0]?.description?.value).toBe('A modal dialog blocks the page; light dismiss closes dialog 1 on a click outside.')
    expect(options.map(o => prop(o, 'selected'))).toEqual(options.map((_, i) => i === 1))
    const active = (combobox!.properties?.find(p => p.name === 'activedescendant')?.value.relatedNodes ?? [])[0]
    expect(active?.backendDOMNodeId).toBe(options[1]?.backendDOMNodeId)
    const statuses = named('status')
    expect(statuses).toHaveLength(1)
    expect(prop(statuses[0]!, 'live')).toBe('polite')
    const groups = named('group').map(g => g.name?.value)
    expect(groups).toEqual(expect.arrayContaining(['Categories', 'Tags']))

    // Up from the first option wraps to the last.
    await page.keyboard.press('ArrowUp')
    await page.keyboard.press('ArrowUp')
    expect(await activeKey(page)).toBe('guides/dialog-14\n/docs/dialog-14.html#dialog-events')
    await page.keyboard.press('ArrowDown')
    expect(await activeKey(page)).toBe('guides/dialog-1')
    await Promise.all([page.waitForURL(`${server.origin}/docs/dialogs.html`), page.keyboard.press('Enter')])
    await page.close()
  })

  it('filters by category and tags, with the counts of the unfiltered results', async () => {
    const page = await open('semantic=off')
    await searchFor(page, 'dialog', 'done')
    const categories = page.getByRole('group', { name: 'Categories' }).getByRole('button')
    const tags = page.getByRole('group', { name: 'Tags' }).getByRole('button')
    expect(await categories.allTextContents()).toEqual(['guides (7)', 'reference (7)'])
    expect(await tags.allTextContents()).toEqual(['a11y (14)', 'forms (5)'])
    const documents = async (n: number) => {
      await page.waitForFunction(count => document.querySelector('skill-kit-search')!.shadowRoot!.querySelectorAll('.result:not(.sub)').length === count, n)
      return (await shownKeys(page)).filter(k => !k.includes('\n'))
    }

    await page.getByRole('button', { name: 'forms (5)' }).click()
    expect(await documents(5)).toEqual([1, 4, 7, 10, 13].map(n => `guides/dialog-${n}`))
    expect(await page.getByRole('button', { name: 'forms (5)' }).getAttribute('aria-pressed')).toBe('true')
    // The buttons were made anew; the pressed one kept focus, so Space unpresses it.
    expect(await page.evaluate(() => document.querySelector('skill-kit-search')!.shadowRoot!.activeElement?.textContent)).toBe('forms (5)')
    await page.keyboard.press('Space')
    expect(await documents(14)).toEqual(dialogIds(14))
    await page.getByRole('button', { name: 'forms (5)' }).click()
    expect(await documents(5)).toHaveLength(5)
    await page.getByRole('button', { name: 'reference (7)' }).click()
    expect(await documents(2)).toEqual(['guides/dialog-4', 'guides/dialog-10'])
    expect(await categories.allTextContents()).toEqual(['guides (7)', 'reference (7)'])
    await page.getByRole('button', { name: 'forms (5)' }).click()
    expect(await documents(7)).toEqual([2, 4, 6, 8, 10, 12, 14].map(n => `guides/dialog-${n}`))
    expect(await page.getByRole('button', { name: 'forms (5)' }).getAttribute('aria-pressed')).toBe('false')
    await page.close()
  })

  it('opens a heading\'s sub-result on that heading, and keeps the query as a recent search', async () => {
    const page = await open('semantic=off')
    await searchFor(page, 'light', 'done')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    expect(await activeKey(page)).toBe('guides/dialog-1\n/docs/dialogs.html#light-dismiss')
    await Promise.all([page.waitForURL(`${server.origin}/docs/dialogs.html#light-dismiss`), page.keyboard.press('Enter')])
    expect(await page.evaluate(() => document.querySelector(':target')?.id)).toBe('light-dismiss')
    const top = await page.evaluate(() => document.getElementById('light-dismiss')!.getBoundingClientRect().top)
    // Sub-pixel rounding of the scroll position puts it within a pixel of the top.
    expect(top).toBeGreaterThan(-1)
    expect(top).toBeLessThan(50)

    await page.goto(`${server.origin}/?semantic=off`)
    await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' })
    await page.keyboard.press('Control+k')
    const recent = page.getByRole('group', { name: 'Recent searches' }).getByRole('option')
    expect(await recent.allTextContents()).toEqual(['light'])
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await resultsOf(page, 'light', 'done')
    expect(await page.getByRole('combobox').inputValue()).toBe('light')
    expect(await focusedRole(page)).toBe('combobox')
    await page.close()
  })

  it('lets a client-side router take a chosen result over through its cancelable select event', async () => {
    const page = await open('semantic=off&route=1')
    await searchFor(page, 'light', 'done')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => (window as unknown as { selected: unknown[] }).selected)).toEqual([
      { href: `${server.origin}/docs/dialogs.html#light-dismiss`, query: 'light', id: 'guides/dialog-1', heading: 'Light dismiss' },
    ])
    // The link's click was prevented, so the browser follows nothing.
    expect(await page.evaluate(() => (window as unknown as { followed: boolean[] }).followed)).toEqual([false])
    expect(page.url()).toBe(`${server.origin}/?semantic=off&route=1`)
    expect(await page.locator('dialog').evaluate(d => (d as HTMLDialogElement).open)).toBe(false)
    await page.close()
  })

  it('renders hostile titles, categories, tags, headings and excerpts as text, and links no script or data URL', async () => {
    const page = await open('semantic=off')
    await searchFor(page, 'hostile svg', 'done')
    const [result, heading] = [page.locator('[role=option]').nth(0), page.locator('[role=option]').nth(1)]
    expect(await result.locator('.title').textContent()).toBe(HOSTILE_TITLE)
    expect(await result.locator('.path').textContent()).toBe('<i>guides</i>')
    expect(await result.locator('.excerpt').textContent()).toBe('hostile <script>window.pwned=4</script> <img src=x onerror="window.pwned=5"> text')
    expect(await heading.locator('.title').textContent()).toBe('<svg onload="window.pwned=6">')
    expect(await page.getByRole('group', { name: 'Tags' }).getByRole('button').allTextContents()).toEqual(['<script>window.pwned=3</script> (1)'])
    for (const option of [result, heading]) {
      expect(await option.getAttribute('href')).toBeNull()
      expect(await option.getAttribute('aria-disabled')).toBe('true')
    }
    expect(await page.evaluate(() => document.querySelector('skill-kit-search')!.shadowRoot!.querySelectorAll('img, script, svg, i, b').length)).toBe(0)
    // Disabled options: a click (forced past Playwright's check) follows nothing.
    await result.click({ force: true })
    await heading.click({ force: true })
    await page.keyboard.press('Enter')
    expect(page.url()).toBe(`${server.origin}/?semantic=off`)
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
    await page.close()
  })

  it('takes its strings from the page and follows the theme asked for, else the system\'s', async () => {
    const page = await open('semantic=on&mount=function')
    await page.getByRole('button', { name: 'Rechercher' }).click()
    await page.getByRole('combobox', { name: 'Rechercher dans la documentation' }).pressSequentially('dialog')
    await resultsOf(page, 'dialog', 'done', 'semantic')
    expect(await status(page)).toBe('14 résultats pour « dialog », classés par le sens.')
    expect(await page.getByRole('button', { name: 'Fermer' }).count()).toBe(1)
    expect(await page.getByRole('combobox').getAttribute('placeholder')).toBe('Un mot…')
    const background = (p: Page) => p.locator('dialog').evaluate(d => getComputedStyle(d).backgroundColor)
    expect(await background(page)).toBe('rgb(30, 30, 34)')
    await page.close()

    const system = await open('semantic=off')
    expect(await background(system)).toBe('rgb(255, 255, 255)')
    await system.emulateMedia({ colorScheme: 'dark' })
    expect(await background(system)).toBe('rgb(30, 30, 34)')
    await system.locator('skill-kit-search').evaluate(e => e.setAttribute('theme', 'light'))
    expect(await background(system)).toBe('rgb(255, 255, 255)')
    await system.close()
  })

  it('fits 320 px: the dialog fills the screen, nothing scrolls sideways', async () => {
    const page = await open('semantic=off', { width: 320, height: 640 })
    await page.getByRole('button', { name: 'Search' }).click()
    await page.keyboard.type('dialog')
    await resultsOf(page, 'dialog', 'done')
    await page.keyboard.press('ArrowDown')
    await page.screenshot({ path: join(artifacts, '320px.png'), animations: 'disabled' })
    const box = (await page.locator('dialog').boundingBox())!
    expect(box.x).toBe(0)
    expect(box.width).toBe(320)
    expect(await page.locator('[role=listbox]').evaluate(l => l.scrollWidth <= l.clientWidth)).toBe(true)
    expect(await page.locator('.panel').evaluate(p => p.scrollWidth <= p.clientWidth)).toBe(true)
    expect((await page.getByRole('combobox').boundingBox())!.width).toBeGreaterThan(180)
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.screenshot({ path: join(artifacts, '320px-dark.png'), animations: 'disabled' })
    await page.close()
  })

  it('says which elements it can be mounted into', async () => {
    const page = await open('semantic=off')
    const message = await page.evaluate(() => {
      try {
        (window as unknown as { mountSearch: (e: Element, s: undefined) => void }).mountSearch(document.getElementById('elsewhere')!, undefined)
      }
      catch (error) {
        return (error as Error).message
      }
    })
    expect(message).toBe('mountSearch cannot mount into <input>: it takes no shadow root. Mount the search into a <div>, a <span> or a custom element.')
    await page.close()
  })

  it('made no request beyond the page\'s origin', () => {
    expect(requests.length).toBeGreaterThan(0)
    expect(requests.map(r => r.url()).filter(url => !url.startsWith(`${server.origin}/`))).toEqual([])
  })
})

interface AXNode {
  ignored?: boolean
  backendDOMNodeId?: number
  role?: { value: string }
  name?: { value: string }
  description?: { value: string }
  properties?: { name: string, value: { value?: unknown, relatedNodes?: { backendDOMNodeId: number }[] } }[]
}
