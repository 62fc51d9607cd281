// Hot updates in the Vite dev server: a `SKILL.md` write → the update message
// the server sends, and → the new registry content seen by a Chromium page
// that holds `virtual:skill-kit/skills` (through `onSkillUpdate`). The baseline,
// measured in the same run, is Vite's own HMR of a plain self-accepting JS module
// the same page imports: write → message, write → its accept callback ran.
// Rounds alternate skill and plain edits, after warm-up rounds; medians.
//
//   node bench/hmr.bench.mjs [--count 100] [--rounds 15] [--json]
//
// Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH) and `npm run build`.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_SEED, writeSkills } from './corpus.mjs'
import { emitResult, fmtMs, importDist, isMain, median, numberArg } from './util.mjs'

export const MESSAGE_GOAL_MS = 20
export const VISIBLE_GOAL_MS = 100
/** The seed's polling watcher waits for 800 ms of stability before it builds. */
export const SEED_FLOOR_MS = 800

const target = round => `---\nname: bench-target\ndescription: Benchmark target, version ${round}.\n---\n\nBody of version ${round}.\n`

const REGISTRY_JS = `
import skills from 'virtual:skill-kit/skills'
import { onSkillUpdate } from 'unplugin-skill-kit/runtime'
import './plain.js'
onSkillUpdate(() => window.seen('skill', skills.find(s => s.name === 'bench-target').description))
document.body.dataset.ready = 'yes'
`
const plain = round => `export const value = ${round}\nif (import.meta.hot)\n  import.meta.hot.accept(next => window.seen('plain', 'Benchmark target, version ' + next.value + '.'))\n`

export async function runHmrBench({ count = 100, rounds = 15, warmup = 3, log = console.log } = {}) {
  const { createServer } = await import('vite')
  const { chromium } = await import('playwright-core')
  const { default: skillKit } = await importDist('vite.mjs')
  const dist = fileURLToPath(new URL(process.env.SKILL_KIT_DIST ?? '../dist', import.meta.url))
  const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
  if (!existsSync(chromiumPath))
    throw new Error(`Chromium is missing at ${chromiumPath}: install it (Debian: apt-get install -y chromium), or set CHROMIUM_PATH.`)

  const app = mkdtempSync(join(tmpdir(), 'skill-kit-hmr-'))
  let server
  let browser
  try {
    writeSkills(join(app, 'skills'), count, DEFAULT_SEED)
    mkdirSync(join(app, 'skills/bench-target'))
    writeFileSync(join(app, 'skills/bench-target/SKILL.md'), target(0))
    writeFileSync(join(app, 'plain.js'), plain(0))
    writeFileSync(join(app, 'main.js'), REGISTRY_JS)
    writeFileSync(join(app, 'index.html'), '<!doctype html><html><head><link rel="icon" href="data:,"></head><body><script type="module" src="/main.js"></script></body></html>\n')

    server = await createServer({
      configFile: false,
      root: app,
      logLevel: 'silent',
      plugins: [skillKit()],
      resolve: { alias: { 'unplugin-skill-kit/runtime': join(dist, 'runtime.mjs') } },
      server: { host: '127.0.0.1', port: 0, fs: { allow: [app, dist] } },
      optimizeDeps: { noDiscovery: true, include: [] },
    })
    await server.listen()
    const { port } = server.httpServer.address()

    // When the server sends each update message.
    let onMessage
    const hot = server.environments.client.hot
    const send = hot.send.bind(hot)
    hot.send = (payload, ...rest) => {
      if (typeof payload === 'object' && payload.type === 'update')
        onMessage?.(performance.now())
      return send(payload, ...rest)
    }

    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--disable-gpu'] })
    const page = await browser.newPage()
    let onSeen
    await page.exposeFunction('seen', (kind, value) => onSeen?.(kind, value, performance.now()))
    await page.goto(`http://127.0.0.1:${port}/`)
    await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' })

    const times = { skill: { message: [], visible: [] }, plain: { message: [], visible: [] } }
    for (let round = 1; round <= warmup + rounds; round++) {
      const order = round % 2 ? ['skill', 'plain'] : ['plain', 'skill']
      for (const kind of order) {
        const expected = `Benchmark target, version ${round}.`
        const message = new Promise((resolve) => {
          onMessage = resolve
        })
        const visible = new Promise((resolve) => {
          onSeen = (seenKind, value, at) => seenKind === kind && value === expected && resolve(at)
        })
        // chokidar drops a second change of a file within its 50 ms throttle: edits are spaced as a person's would be.
        await new Promise(resolve => setTimeout(resolve, 200))
        const start = performance.now()
        if (kind === 'skill')
          writeFileSync(join(app, 'skills/bench-target/SKILL.md'), target(round))
        else
          writeFileSync(join(app, 'plain.js'), plain(round))
        const [sent, seen] = await Promise.all([message, visible])
        if (round > warmup) {
          times[kind].message.push(sent - start)
          times[kind].visible.push(seen - start)
        }
      }
    }

    const m = {
      skill: { message: median(times.skill.message), visible: median(times.skill.visible) },
      plain: { message: median(times.plain.message), visible: median(times.plain.visible) },
    }
    const result = {
      count,
      rounds,
      medianMs: m,
      samplesMs: times,
      goal: { messageMs: MESSAGE_GOAL_MS, visibleMs: VISIBLE_GOAL_MS },
      seedFloorMs: SEED_FLOOR_MS,
    }
    const row = (label, ours, base, goal) => `  ${label.padEnd(46)} ${fmtMs(ours).padStart(9)}   plain JS module ${fmtMs(base).padStart(9)}   ratio ${(ours / base).toFixed(2)}   goal ≤ ${goal} ms ${ours <= goal ? 'OK' : 'MISSED'}`
    log(`Vite dev server, ${count + 1} skills in the registry, median of ${rounds} rounds after ${warmup} warm-up (alternating with the baseline):`)
    log(row('SKILL.md write → update message sent', m.skill.message, m.plain.message, MESSAGE_GOAL_MS))
    log(row('SKILL.md write → new registry seen in the page', m.skill.visible, m.plain.visible, VISIBLE_GOAL_MS))
    log(`  the seed's polling watcher: ≥ ${SEED_FLOOR_MS} ms before it even starts a build (800 ms of stability)`)
    return result
  }
  finally {
    await browser?.close()
    await server?.close()
    rmSync(app, { recursive: true, force: true })
  }
}

if (isMain(import.meta))
  emitResult(await runHmrBench({ count: numberArg('count', 100), rounds: numberArg('rounds', 15) }))
