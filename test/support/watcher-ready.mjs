// Plain JavaScript so that bench/ can import it too.

import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Resolves once Vite's watcher reports a change to a hidden probe file in
 * `dir` (written again every 100 ms until it does): chokidar reports nothing
 * for files it has not finished scanning, and a loaded machine may still be
 * scanning when a test makes its first edit.
 * @param {import('vite').ViteDevServer} server
 * @param {string} dir
 * @returns {Promise<void>}
 */
export async function watcherReports(server, dir) {
  const probe = join(dir, '.watcher-probe')
  let writes = 0
  const seen = new Promise(resolve => server.watcher.on('all', (_event, path) => path === probe && resolve()))
  const timer = setInterval(() => writeFileSync(probe, String(++writes)), 100)
  writeFileSync(probe, String(++writes))
  await seen
  clearInterval(timer)
  rmSync(probe, { force: true })
}
