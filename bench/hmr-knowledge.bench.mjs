// Knowledge bases in the Vite dev server: file changes to the HMR update that
// carries the new index, timed at the dev server's HMR channel (the moment
// Vite sends the update to every page).
//
//   burst  60 documents written at once into a lexical knowledge base ("model": false):
//          builds started (goal 1) and write → update sent
//   edit   one paragraph added to one of the 147 Modern Web Guidance guides, with the
//          real model (all-MiniLM-L6-v2 in .cache/models): write → update sent, against
//          embedding that guide's windows alone with the same model (goal ≤ 1.5×)
//
//   node bench/hmr-knowledge.bench.mjs [--rounds 5] [--json]
//
// The guides and their vector cache live in .cache/bench/hmr-knowledge, so only the
// first run embeds all 2,044 windows (about 30 s); each run restores the guides first.

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createServer } from 'vite'
import { buildMiniLM } from '../scripts/models/minilm.mjs'
import { benchCache, bundleSource, guidesDir, modelsDir } from './knowledge.mjs'
import { emitResult, fmtMs, importDist, isMain, median, numberArg } from './util.mjs'

export const BURST_FILES = 60
export const EDIT_GOAL = 1.5

/** The guide edited: a mid-sized one (chosen by size, so the same every run). */
function pickGuide(dir) {
  const files = readdirSync(dir, { recursive: true }).filter(f => String(f).endsWith('.md')).map(String).sort()
  const sized = files.map(f => ({ f, size: readFileSync(join(dir, f)).length })).sort((a, b) => a.size - b.size || a.f.localeCompare(b.f))
  return sized[sized.length >> 1].f
}

export async function run({ rounds = 5 } = {}) {
  const log = message => console.log(message)
  await buildMiniLM(modelsDir, { log })
  const work = join(benchCache, 'hmr-knowledge')
  const guides = join(work, 'guides')
  const burst = join(work, 'burst')
  // The guides as published (an earlier run's edits undone); the vector cache in work/.skill-kit stays.
  rmSync(guides, { recursive: true, force: true })
  rmSync(burst, { recursive: true, force: true })
  cpSync(guidesDir(), guides, { recursive: true })
  mkdirSync(burst, { recursive: true })
  writeFileSync(join(burst, 'start.md'), '---\ndescription: The first note.\n---\n# Start\n\nWhere the burst lands.\n')
  writeFileSync(join(work, 'index.html'), '<!doctype html><script type="module" src="/main.js"></script>\n')

  const { default: skillKit } = await importDist('vite.mjs')
  const server = await createServer({
    configFile: false,
    root: work,
    logLevel: 'silent',
    plugins: [skillKit({
      offline: true,
      knowledge: {
        guides: { dir: 'guides', model: { cacheDir: modelsDir } },
        burst: { dir: 'burst', model: false },
      },
    })],
    server: { port: 0, host: '127.0.0.1' },
  })
  await server.listen()
  const api = server.config.plugins.find(p => p.name === 'unplugin-skill-kit').api
  const events = []
  api.onKnowledgeRebuild(event => events.push({ ...event, at: performance.now() }))
  // The client environment's HMR channel: each update is timed as it is sent.
  const client = server.environments.client
  const waiting = []
  const send = client.hot.send.bind(client.hot)
  client.hot.send = (payload, ...rest) => {
    const at = performance.now()
    for (const wait of waiting.splice(0)) {
      if (!wait(payload, at))
        waiting.push(wait)
    }
    return send(payload, ...rest)
  }
  /** The module's URL in the graph: as the bench loads it below. */
  const moduleUrl = name => `virtual:skill-kit/knowledge/${name}`
  /** Resolves with the time the next update of `name`'s module is sent. */
  const updateSent = name => new Promise((resolve) => {
    waiting.push((payload, at) => {
      const hit = payload.type === 'update' && payload.updates.some(u => u.path === moduleUrl(name))
      if (hit)
        resolve(at)
      return hit
    })
  })

  try {
    // As a page would: the client environment loads both modules (the first guides build embeds what the cache lacks).
    const loadStart = performance.now()
    for (const name of ['burst', 'guides'])
      await client.transformRequest(moduleUrl(name))
    log(`initial load of both knowledge modules: ${fmtMs(performance.now() - loadStart)}`)

    const burstRounds = []
    for (let round = 0; round < rounds; round++) {
      const from = events.length
      const sentAt = updateSent('burst')
      const start = performance.now()
      for (let i = 0; i < BURST_FILES; i++)
        writeFileSync(join(burst, `r${round}-${String(i).padStart(2, '0')}.md`), `---\ndescription: Note ${i} of round ${round}.\n---\n# Note ${i}\n\nPacket ${i} arrived in round ${round}.\n`)
      // From the last write: the file events and the build, not the writing.
      const delay = monitorEventLoopDelay({ resolution: 5 })
      delay.enable()
      const at = await sentAt
      delay.disable()
      const builds = events.slice(from).filter(e => e.name === 'burst' && e.type === 'start').length
      const stallMs = delay.max / 1e6
      burstRounds.push({ ms: at - start, builds, stallMs })
      log(`burst round ${round + 1}: ${builds} build(s), update sent after ${fmtMs(at - start)}, longest event-loop delay ${fmtMs(stallMs)}`)
    }

    const file = join(guides, pickGuide(guides))
    const original = readFileSync(file, 'utf8')
    const K = await bundleSource('hmr-knowledge', [
      `export { createTransformersEmbedder } from './src/knowledge/embedder'`,
      `export { chunkDocument } from './src/knowledge/chunk'`,
      `export { chunkContext } from './src/knowledge/build'`,
      `export { loadKnowledgeFolder } from './src/knowledge/load-folder'`,
      `export { tokenWindows } from './src/knowledge/windows'`,
      `export { DEFAULT_CHUNK, DEFAULT_MODEL } from './src/knowledge/config'`,
      '',
    ].join('\n'))
    const embedder = await K.createTransformersEmbedder({ cacheDir: modelsDir, offline: true, maxTokens: K.DEFAULT_MODEL.maxTokens })
    const windowOptions = { maxTokens: Math.min(K.DEFAULT_CHUNK.maxTokens, embedder.maxTokens), overlapTokens: K.DEFAULT_CHUNK.overlapTokens, reserved: embedder.reservedTokens.document }
    const editRounds = []
    try {
      for (let round = 0; round < rounds; round++) {
        const edited = `${original.trimEnd()}\n\nRound ${round}: check the feature in every browser you support before you ship it, and keep a fallback.\n`
        const sentAt = updateSent('guides')
        const start = performance.now()
        writeFileSync(file, edited)
        const at = await sentAt
        // The baseline: that guide's windows, embedded alone (as the build cuts them).
        const folder = K.loadKnowledgeFolder(guides)
        const index = folder.documents.findIndex(d => join(guides, d.path) === file)
        const document = folder.documents[index]
        const windows = K.chunkDocument(document, index).flatMap(chunk => K.tokenWindows(embedder.tokenize(`${K.chunkContext(document, chunk)}\n`), embedder.tokenize(chunk.text), windowOptions))
        const embedStart = performance.now()
        await embedder.embedTokens(windows, 'document')
        const embedMs = performance.now() - embedStart
        editRounds.push({ ms: at - start, embedMs, windows: windows.length })
        log(`edit round ${round + 1}: update sent after ${fmtMs(at - start)}; embedding the guide's ${windows.length} windows alone: ${fmtMs(embedMs)}`)
      }
    }
    finally {
      await embedder.dispose()
      writeFileSync(file, original)
    }

    const burstBuilds = median(burstRounds.map(r => r.builds))
    const burstMs = median(burstRounds.map(r => r.ms))
    const stallMs = median(burstRounds.map(r => r.stallMs))
    const editMs = median(editRounds.map(r => r.ms))
    const embedMs = median(editRounds.map(r => r.embedMs))
    const ratio = editMs / embedMs
    log(`\n${BURST_FILES} documents at once: median ${burstBuilds} build(s) (goal 1), update sent after ${fmtMs(burstMs)}, longest event-loop delay ${fmtMs(stallMs)}`)
    log(`one-guide edit: update sent after ${fmtMs(editMs)} vs ${fmtMs(embedMs)} to embed its ${editRounds[0].windows} windows alone: ${ratio.toFixed(2)}× (goal ≤ ${EDIT_GOAL}) ${ratio <= EDIT_GOAL ? 'ok' : 'MISSED'}`)
    return { burstBuilds, burstMs, stallMs, editMs, embedMs, ratio, goal: EDIT_GOAL, rounds, file: file.slice(guides.length + 1) }
  }
  finally {
    await server.close()
  }
}

if (isMain(import.meta)) {
  if (!existsSync(guidesDir()))
    throw new Error(`The Modern Web Guidance guides are missing at ${guidesDir()}: npm install.`)
  const result = await run({ rounds: numberArg('rounds', 5) })
  emitResult(result)
}
