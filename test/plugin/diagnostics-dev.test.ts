/**
 * An invalid skill in the Vite dev server, seen in Chromium: the error
 * overlay points at the file, line and 0-based column of the first error,
 * shows one code frame (none left in the message), and shows again on every
 * page load until the file is fixed, once per load however many of the
 * skill's modules the page imports.
 *
 * Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH); .ci/run installs it.
 */
import type { Browser, Page } from 'playwright-core'
import type { Logger, Plugin, ViteDevServer } from 'vite'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createLogger, createServer } from 'vite'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import skillKitVite from '../../dist/vite.mjs'
import { launchChromium } from '../support/knowledge-app'
import { BROKEN } from '../support/broken-skill'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/diagnostics-dev')
const skill = join(work, 'skills/broken/SKILL.md')
const second = join(work, 'skills/second/SKILL.md')

/** What the overlay shows: Vite's parts of its shadow DOM. */
interface Overlay {
  plugin: string
  message: string
  file: string
  frame: string
}

/** The overlay's parts once it shows `file` (a location ending). */
async function overlayAt(page: Page, file: string): Promise<Overlay> {
  await page.waitForFunction(end => document.querySelector('vite-error-overlay')?.shadowRoot?.querySelector('.file')?.textContent?.endsWith(end), file)
  return page.evaluate(() => {
    const root = document.querySelector('vite-error-overlay')!.shadowRoot!
    const text = (selector: string) => root.querySelector(selector)!.textContent!
    return { plugin: text('.plugin'), message: text('.message-body'), file: text('.file'), frame: text('.frame') }
  })
}

/** A plugin that reports each file change once the dev server has invalidated its modules (its `hotUpdate` runs after that). */
function fileEvents(): { plugin: Plugin, next: () => Promise<string> } {
  const waiting: ((file: string) => void)[] = []
  return {
    plugin: {
      name: 'test-file-events',
      hotUpdate({ file }) {
        if (this.environment.name === 'client')
          waiting.shift()?.(file)
      },
    },
    next: () => new Promise(done => waiting.push(done)),
  }
}

describe('an invalid skill in the Vite dev server', () => {
  let server: ViteDevServer
  let origin: string
  let browser: Browser
  /** Errors the dev server sent to the overlay (it logs each as it sends it; errors of its pre-transforms it only logs). */
  const sent: string[] = []
  /** Files the dev server has taken a change of (after its modules are invalidated). */
  const changed = fileEvents()

  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(join(work, 'skills/broken'), { recursive: true })
    writeFileSync(skill, BROKEN)
    writeFileSync(join(work, 'index.html'), '<!doctype html>\n<html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module" src="/main.js"></script></body></html>\n')
    // Two modules of the one skill.
    writeFileSync(join(work, 'main.js'), 'import cover from \'./skills/broken/SKILL.md?cover\'\nimport meta from \'./skills/broken/SKILL.md?meta\'\ndocument.body.dataset.skill = meta.name + cover.length\n')
    // Another invalid skill, and two pages that import one module of it each.
    mkdirSync(join(work, 'skills/second'), { recursive: true })
    writeFileSync(second, BROKEN.replace('name: broken', 'name: second'))
    for (const form of ['cover', 'meta']) {
      writeFileSync(join(work, `${form}.html`), `<!doctype html>\n<html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module" src="/${form}.js"></script></body></html>\n`)
      writeFileSync(join(work, `${form}.js`), `import skill from './skills/second/SKILL.md?${form}'\ndocument.body.dataset.skill = String(skill)\n`)
    }
    // Vite colours the line where picocolors sees colour support, which includes any CI=… environment.
    const plain = (message: string) => message.replace(/\x1B\[\d+(?:;\d+)*m/g, '')
    const logger: Logger = { ...createLogger('silent'), error: (message) => { if (plain(message).startsWith('Internal server error: ')) sent.push(message) } }
    server = await createServer({ configFile: false, root: work, customLogger: logger, plugins: [skillKitVite(), changed.plugin], server: { port: 0, host: '127.0.0.1' } })
    await server.listen()
    origin = `http://127.0.0.1:${(server.httpServer!.address() as { port: number }).port}`
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  /**
   * Vite keeps an error for a page that has yet to connect only while no page
   * is connected: a page a failed test left open would take later pages' overlays.
   */
  const pages: Page[] = []
  const newPage = async () => {
    const page = await browser.newPage()
    pages.push(page)
    return page
  }
  afterEach(async () => {
    await Promise.all(pages.splice(0).map(page => page.close()))
  })

  /** Opens the page, waiting until both skill modules have been answered. */
  async function open(page: Page, load: () => Promise<unknown>): Promise<void> {
    const answered = (query: string) => page.waitForResponse(response => response.url().includes('/skills/broken/SKILL.md') && response.url().includes(query))
    await Promise.all([answered('cover'), answered('meta'), load()])
  }

  it('shows the overlay at the first error\'s line and 0-based column, with one code frame, once per page load', async () => {
    const page = await newPage()
    await open(page, () => page.goto(origin))
    const overlay = await overlayAt(page, ':5:18')
    expect(overlay).toEqual({
      plugin: '[plugin:unplugin-skill-kit] ',
      message: `Invalid skill skills/broken/SKILL.md (2 errors). Fix them, or set onInvalid: 'fallback' to load it whole:

skills/broken/SKILL.md:5:19 error always-unknown-id: "progressive.always" names "missing-rules", but no heading has {#missing-rules}. Known IDs: setup.
skills/broken/SKILL.md:14:9 error section-id-missing: Level-2 heading "Usage" has no section ID. Add {#usage} at the end of the heading line.`,
      file: `${skill}:5:18`,
      frame: `3 | description: A progressive skill with two mistakes.
  4 | progressive:
> 5 |   always: [setup, missing-rules]
    |                   ^
  6 | ---
  7 |`,
    })
    expect(sent).toHaveLength(1)

    // A page load asks again: the module that reported the error reports it again.
    await open(page, () => page.reload())
    expect((await overlayAt(page, ':5:18')).message).toBe(overlay.message)
    expect(sent).toHaveLength(2)
    await page.close()
  })

  it('shows the overlay on a page that imports only a module of the skill that another page\'s load did not report from', async () => {
    /** Opens the page that imports `form` of the second skill; its overlay. */
    const openForm = async (form: string) => {
      const page = await newPage()
      const answered = page.waitForResponse(response => response.url().includes('/skills/second/SKILL.md') && response.url().includes(form))
      await Promise.all([answered, page.goto(`${origin}/${form}.html`)])
      const overlay = await overlayAt(page, ':5:18')
      await page.close()
      return overlay
    }
    expect((await openForm('cover')).file).toBe(`${second}:5:18`)
    // `?meta` is not the module that reported the skill, and reports nothing itself: it imports `?cover`, which does.
    const before = sent.length
    expect((await openForm('meta')).file).toBe(`${second}:5:18`)
    expect(sent.length).toBe(before + 1)
  })

  it('points at the new first error after an edit, at the end of its line', async () => {
    const before = await newPage()
    await open(before, () => before.goto(origin))
    await overlayAt(before, ':5:18')
    await before.close()
    const edited = changed.next()
    writeFileSync(skill, BROKEN.replace('always: [setup, missing-rules]', 'always: [setup]'))
    expect(await edited).toBe(skill)
    // A page opened after the edit (one open during it may reload on its own, as Vite decides).
    const page = await newPage()
    await open(page, () => page.goto(origin))
    const overlay = await overlayAt(page, ':14:8')
    expect(overlay.message).toBe(`Invalid skill skills/broken/SKILL.md (1 error). Fix them, or set onInvalid: 'fallback' to load it whole:

skills/broken/SKILL.md:14:9 error section-id-missing: Level-2 heading "Usage" has no section ID. Add {#usage} at the end of the heading line.`)
    expect(overlay.frame).toBe(`12 | Install the tools.
  13 | 
> 14 | ## Usage
     |         ^
  15 | 
  16 | Run the tool on the input file.`)
    await page.close()
  })
})
