// Routed index pages in the Vite dev server: one guide of the 147 Modern Web
// Guidance guides edited, to the HMR update that carries the new pages (timed
// as Vite sends it), against routing the whole corpus from scratch with the
// offline router in the same process (what a dev server without the routing
// memo would do on every edit).
//
//   npm run build && node bench/hmr-routes.bench.mjs [--rounds 5] [--json]

import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer } from 'vite'
import { watcherReports } from '../test/support/watcher-ready.mjs'
import { benchCache, bundleSource, guidesDir } from './knowledge.mjs'
import { emitResult, fmtMs, importDist, isMain, median, numberArg } from './util.mjs'

export async function run({ rounds = 5 } = {}) {
  const log = message => console.log(message)
  const work = join(benchCache, 'hmr-routes')
  const guides = join(work, 'guides')
  rmSync(work, { recursive: true, force: true })
  cpSync(guidesDir(), guides, { recursive: true })
  writeFileSync(join(work, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>\n')

  const R = await bundleSource('hmr-routes', [
    `export { openKnowledgeProject } from './src/knowledge/project'`,
    `export { routeKnowledgeProject } from './src/routing/project'`,
    '',
  ].join('\n'))
  const { default: skillKit } = await importDist('vite.mjs')
  const server = await createServer({
    configFile: false,
    root: work,
    logLevel: 'silent',
    plugins: [skillKit({ knowledge: { guides: { dir: 'guides', model: false } } })],
    server: { port: 0, host: '127.0.0.1' },
  })
  await server.listen()
  const client = server.environments.client
  const url = 'virtual:skill-kit/knowledge/guides/routes'
  const waiting = []
  const send = client.hot.send.bind(client.hot)
  client.hot.send = (payload, ...rest) => {
    const at = performance.now()
    if (payload.type === 'update' && payload.updates.some(u => u.path === url))
      waiting.splice(0).forEach(resolve => resolve(at))
    return send(payload, ...rest)
  }
  const files = readdirSync(guides, { recursive: true }).map(String).filter(f => f.endsWith('.md')).sort()
  const file = join(guides, files[files.length >> 1])
  const original = readFileSync(file, 'utf8')
  try {
    // chokidar reports nothing for a file it has not finished scanning: wait until it reports a probe file.
    await watcherReports(server, guides)
    const loadStart = performance.now()
    await client.transformRequest(url)
    log(`initial load of the routes module (147 guides, offline router): ${fmtMs(performance.now() - loadStart)}`)
    const project = R.openKnowledgeProject(guides, { root: work, overrides: { model: false } }).project
    const results = []
    for (let round = 0; round < rounds; round++) {
      const sent = new Promise(resolve => waiting.push(resolve))
      const start = performance.now()
      // One more sentence each round: the guide's size, on its card, changes, so each round sends an update.
      writeFileSync(file, `${original.trimEnd()}\n\n${'Test it in every browser you support. '.repeat(round + 1)}\n`)
      const editMs = (await sent) - start
      const fullStart = performance.now()
      await R.routeKnowledgeProject(project)
      const fullMs = performance.now() - fullStart
      results.push({ editMs, fullMs })
      log(`round ${round + 1}: update sent ${fmtMs(editMs)} after the write; routing all 147 guides from scratch: ${fmtMs(fullMs)}`)
    }
    const editMs = median(results.map(r => r.editMs))
    const fullMs = median(results.map(r => r.fullMs))
    log(`\none-guide edit: update sent after ${fmtMs(editMs)} (file event, settle time and routing) vs ${fmtMs(fullMs)} to route the corpus from scratch: ${(editMs / fullMs).toFixed(2)}×`)
    return { editMs, fullMs, ratio: editMs / fullMs, rounds, file: file.slice(guides.length + 1) }
  }
  finally {
    writeFileSync(file, original)
    await server.close()
  }
}

if (isMain(import.meta)) {
  if (!existsSync(guidesDir()))
    throw new Error(`The Modern Web Guidance guides are missing at ${guidesDir()}: npm install.`)
  emitResult(await run({ rounds: numberArg('rounds', 5) }))
}
