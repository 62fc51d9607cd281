// The Vite dev server over a cold knowledge folder (no index, no vector cache):
// time from the module's request (`ssrLoadModule` of an entry that imports it)
// to the first lexical result, the module's own load, and, for the guides,
// the time until the complete index (with its vectors) arrives as an update,
// which is what the module waited for before the dev server served the
// lexical index first. Then, on the same folder now published (a fresh index),
// a new server's first result: the complete build, every vector cached.
//
//   guides     the 147 Modern Web Guidance guides, all-MiniLM-L6-v2 (.cache/models)
//   synthetic  1,000 generated documents of 10 sections (about 40 words each), same model
//
// Each cold round runs in a child process, which exits when it has its figures:
// a background build it leaves behind never slows the next round.
//
//   npm run build && node bench/dev-first-result.bench.mjs [--rounds 3] [--json]

import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'vite'
import { buildMiniLM } from '../scripts/models/minilm.mjs'
import { createRng, zipfWords } from './corpus.mjs'
import { benchCache, guidesDir, modelsDir } from './knowledge.mjs'
import { emitResult, fmtMs, importDist, isMain, median, numberArg, RESULT_MARK } from './util.mjs'

export const GOAL_MS = 1000
const SYNTHETIC_DOCUMENTS = 1000
const SECTIONS = 10
const QUERIES = { guides: 'screen reader announcements', synthetic: 'kaloster minerul' }
const work = join(benchCache, 'dev-first-result')

/** The synthetic folder, written once (a marker file says it is whole); its words drawn with Zipf frequencies. */
function writeSynthetic(dir) {
  const done = join(dir, '.complete')
  if (existsSync(done))
    return
  rmSync(dir, { recursive: true, force: true })
  const word = zipfWords(createRng(SYNTHETIC_DOCUMENTS * 31 + SECTIONS))
  const words = n => Array.from({ length: n }, word).join(' ')
  for (let d = 0; d < SYNTHETIC_DOCUMENTS; d++) {
    const folder = join(dir, `group-${d % 50}`)
    mkdirSync(folder, { recursive: true })
    const body = Array.from({ length: SECTIONS }, (_, s) => `## Section ${s} of ${d}\n\n${words(40)}.\n`).join('\n')
    writeFileSync(join(folder, `doc-${d}.md`), `---\ndescription: ${words(8)}.\n---\n# Document ${d}\n\n${words(12)}.\n\n${body}`)
  }
  writeFileSync(done, '')
}

/** A dev server whose plugin builds the folder `name` with the real model, and an entry that imports it. */
async function devServer(root, name) {
  const { default: skillKit } = await importDist('vite.mjs')
  writeFileSync(join(root, 'entry.js'), `export { default } from 'virtual:skill-kit/knowledge/${name}'\n`)
  const server = await createServer({
    configFile: false,
    root,
    logLevel: 'silent',
    plugins: [skillKit({ offline: true, knowledge: { [name]: { dir: name, model: { cacheDir: modelsDir } } } })],
    server: { middlewareMode: true, ws: false },
  })
  const api = server.config.plugins.find(p => p.name === 'unplugin-skill-kit').api
  return { server, api }
}

/**
 * Requests the module and searches it lexically: both times from the request,
 * and the CPU time this process spent until the result (the figure a loaded
 * machine inflates least).
 */
async function firstResult(server, query) {
  const cpu = process.cpuUsage()
  const start = performance.now()
  const { default: kb } = await server.ssrLoadModule('/entry.js')
  const loadMs = performance.now() - start
  const results = await kb.search(query, { mode: 'lexical' })
  const firstMs = performance.now() - start
  const { user, system } = process.cpuUsage(cpu)
  if (results.length === 0)
    throw new Error(`"${query}" found nothing: the benchmark's query must match`)
  return { start, loadMs, firstMs, cpuMs: (user + system) / 1000, vectors: kb.vectors, documents: kb.documents.length }
}

/** One cold round, in this (child) process: the folder copied afresh with nothing cached. */
async function childRound(corpus, complete) {
  const root = join(work, `round-${corpus}`)
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root, { recursive: true })
  if (corpus === 'guides') {
    cpSync(guidesDir(), join(root, corpus), { recursive: true })
  }
  else {
    writeSynthetic(join(work, 'synthetic-source'))
    cpSync(join(work, 'synthetic-source'), join(root, corpus), { recursive: true, filter: path => !path.endsWith('.complete') })
  }
  const { server, api } = await devServer(root, corpus)
  const updated = new Promise(resolve => api.onKnowledgeRebuild(event => event.type === 'update' && resolve(performance.now())))
  const cold = await firstResult(server, QUERIES[corpus])
  const result = { corpus, documents: cold.documents, loadMs: cold.loadMs, firstMs: cold.firstMs, cpuMs: cold.cpuMs, vectors: cold.vectors, loadAverage: loadavg()[0] }
  if (complete) {
    result.completeMs = (await updated) - cold.start
    const { default: kb } = await server.ssrLoadModule('/entry.js')
    result.completeVectors = kb.vectors
    await server.close()
    // The folder as the background build published it: a fresh index.
    const again = await devServer(root, corpus)
    const warm = await firstResult(again.server, QUERIES[corpus])
    Object.assign(result, { warmFirstMs: warm.firstMs, warmCpuMs: warm.cpuMs, warmVectors: warm.vectors })
    await again.server.close()
  }
  console.log(RESULT_MARK + JSON.stringify(result))
  process.exit(0)
}

/** Runs a round in a child process (at the lowest priority, as every command here). */
function round(corpus, complete) {
  return new Promise((resolve, reject) => {
    const child = spawn('nice', ['-n', '19', process.execPath, new URL(import.meta.url).pathname, '--child', corpus, ...(complete ? ['--complete'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (data) => {
      out += data
    })
    child.on('exit', (code) => {
      const line = out.split('\n').find(l => l.startsWith(RESULT_MARK))
      if (code !== 0 || !line)
        return reject(new Error(`the ${corpus} round exited (${code}): ${out}`))
      resolve(JSON.parse(line.slice(RESULT_MARK.length)))
    })
  })
}

export async function run({ rounds = 3 } = {}) {
  const log = message => console.log(message)
  await buildMiniLM(modelsDir, { log })
  const summary = {}
  for (const corpus of ['guides', 'synthetic']) {
    const results = []
    for (let r = 0; r < rounds; r++) {
      // The guides' first round also waits for the vectors, and times a warm restart.
      const result = await round(corpus, corpus === 'guides' && r === 0)
      results.push(result)
      log(`${corpus} round ${r + 1} (load average ${result.loadAverage.toFixed(1)}): ${result.documents} documents, module ${fmtMs(result.loadMs)}, first lexical result ${fmtMs(result.firstMs)} (CPU ${fmtMs(result.cpuMs)}, vectors ${result.vectors})${result.completeMs === undefined ? '' : `; vectors in after ${fmtMs(result.completeMs)} (${result.completeVectors}); warm restart: first result ${fmtMs(result.warmFirstMs)} (CPU ${fmtMs(result.warmCpuMs)}, vectors ${result.warmVectors})`}`)
    }
    const firstMs = median(results.map(r => r.firstMs))
    summary[corpus] = { documents: results[0].documents, loadMs: median(results.map(r => r.loadMs)), firstMs, cpuMs: median(results.map(r => r.cpuMs)), loadAverage: median(results.map(r => r.loadAverage)), completeMs: results[0].completeMs, warmFirstMs: results[0].warmFirstMs, rounds }
    log(`${corpus}: median first lexical result ${fmtMs(firstMs)} after the request (goal ≤ ${fmtMs(GOAL_MS)}) ${firstMs <= GOAL_MS ? 'ok' : 'MISSED'}`)
  }
  return summary
}

if (isMain(import.meta)) {
  const child = process.argv.indexOf('--child')
  if (child > 0) {
    await childRound(process.argv[child + 1], process.argv.includes('--complete'))
  }
  else {
    if (!existsSync(guidesDir()))
      throw new Error(`The Modern Web Guidance guides are missing at ${guidesDir()}: npm install.`)
    emitResult(await run({ rounds: numberArg('rounds', 3) }))
  }
}
