// What the docs site's benchmarks watch in a page: when a search component
// (unplugin-skill-kit/search-ui, in its shadow root) first shows results ranked
// by words and by meaning, the query typed, the long tasks, and the bytes of
// the files that had arrived by then, as served and gzip -9.

import { spawnSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { arg, fmtMs, numberArg } from './util.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * What both docs-site benches take from `argv`: `--rounds` (default 5), `--encoder` (else
 * `encoders`), and the flags given.
 */
export function siteBenchArgs(argv, encoders) {
  const encoder = arg('encoder', undefined, argv)
  return { rounds: numberArg('rounds', 5, argv), encoders: encoder ? [encoder] : encoders, flag: name => argv.includes(`--${name}`) }
}

/** The playground's generated inputs (its models, its copied docs), as `npm start` makes them. */
export function preparePlayground() {
  const prepared = spawnSync(process.execPath, [join(root, 'scripts/playground-prepare.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (prepared.status !== 0)
    throw new Error('scripts/playground-prepare.mjs failed')
}

/**
 * Before the page loads: stamps (`window.__firsts.lexical`, `.semantic`,
 * ms from navigation start) the moment the search mounted on an element
 * matching `host` first shows results of each ranking, and resolves the
 * returned `firstSemantic` promise at the first semantic ones (a CDP binding:
 * no polling in the page; in an object, which an async function's caller does
 * not await the way it would a promise returned bare). The component's shadow root is watched from its creation: a
 * document observer does not see inside it.
 */
export async function watchSearch(page, host) {
  let shown
  const firstSemantic = new Promise(resolve => shown = resolve)
  await page.exposeFunction('__benchFirstSemantic', () => shown())
  await page.addInitScript((host) => {
    window.__firsts = {}
    const attachShadow = Element.prototype.attachShadow
    Element.prototype.attachShadow = function (init) {
      const root = attachShadow.call(this, init)
      if (this.matches(host)) {
        new MutationObserver(() => {
          const panel = root.querySelector('.panel')
          const ranking = panel?.dataset.ranking
          if (ranking && !(ranking in window.__firsts) && panel.querySelector('[role=option].result')) {
            window.__firsts[ranking] = performance.now()
            if (ranking === 'semantic')
              window.__benchFirstSemantic()
          }
        }).observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-ranking'] })
      }
      return root
    }
    // When the query reached the page (input events cross the shadow root), and the main thread's long tasks.
    addEventListener('input', () => window.__typed ??= performance.now(), true)
    window.__longTasks = []
    new PerformanceObserver(list => window.__longTasks.push(...list.getEntries().map(e => [e.startTime, e.duration]))).observe({ type: 'longtask', buffered: true })
  }, host)
  return { firstSemantic }
}

/** Waits for `promise`, failing after `ms` with `message`. */
export async function within(promise, ms, message) {
  let timer
  try {
    return await Promise.race([promise, new Promise((_, reject) => timer = setTimeout(() => reject(new Error(message)), ms))])
  }
  finally {
    clearTimeout(timer)
  }
}

/** What the page saw: the stamps, DOMContentLoaded, and the files that had arrived by the first lexical and the first semantic result. */
export async function pageFigures(page) {
  const firsts = await page.evaluate(() => window.__firsts)
  // With the query table the first result may already be semantic: no lexical one shows before it.
  const lexical = firsts.lexical ?? firsts.semantic
  return page.evaluate(({ lexical, semantic }) => {
    const navigation = performance.getEntriesByType('navigation')[0]
    const resources = performance.getEntriesByType('resource')
    const arrived = at => [location.href, ...resources.filter(e => e.responseEnd <= at).map(e => e.name)]
    return {
      ready: navigation.domContentLoadedEventEnd,
      typed: window.__typed,
      longTasks: window.__longTasks,
      lexical,
      semantic,
      beforeLexical: arrived(lexical),
      beforeSemantic: arrived(semantic),
      timings: [navigation, ...resources.filter(e => e.responseEnd <= semantic)].map(e => ({ url: e.name, start: e.startTime, end: e.responseEnd, protocol: e.nextHopProtocol })),
    }
  }, { lexical, semantic: firsts.semantic })
}

/** The bytes of the files of `dir` behind `urls` (paths of `origin`), as served and gzip -9; `/` is index.html. */
export function bytesOf(dir, urls, origin) {
  let raw = 0
  let gzip = 0
  for (const url of new Set(urls)) {
    const path = decodeURIComponent(new URL(url, origin).pathname).replace(/^\//, '') || 'index.html'
    const file = join(dir, path)
    try {
      raw += statSync(file).size
      gzip += gzipSync(readFileSync(file), { level: 9 }).length
    }
    catch {
      // Not a file of the build (a data: or blob: URL).
    }
  }
  return { raw, gzip }
}

/**
 * Prints, for `--files`, what a load fetched before its first semantic result
 * (gzip -9; requested → received, ms after navigation start), when it showed
 * its first results, and the long tasks until then.
 */
export function printFetches(dir, origin, { timings, ready, typed, lexical, semantic, longTasks }) {
  const kb = bytes => `${(bytes / 1024).toFixed(1)} KB`
  for (const { url, start, end } of timings)
    console.log(`    ${kb(bytesOf(dir, [url], origin).gzip).padStart(9)}  ${fmtMs(start).padStart(8)} → ${fmtMs(end).padStart(8)}  ${new URL(url).pathname}`)
  console.log(`    DOMContentLoaded ${fmtMs(ready)}, query typed ${typed === undefined ? 'by the page (no input event)' : fmtMs(typed)}, first lexical ${fmtMs(lexical)}, first semantic ${fmtMs(semantic)}`)
  console.log(`    long tasks (start +duration): ${longTasks.filter(([start]) => start <= semantic).map(([start, ms]) => `${fmtMs(start)} +${fmtMs(ms)}`).join(', ') || 'none'}`)
}
