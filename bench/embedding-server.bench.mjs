// A knowledge build of a large synthetic corpus (deterministic: by default
// 10,000 documents of 10 sections, 100,000 chunks, about 40 words each)
// embedded by a fake embedding server on loopback that answers at a fixed
// rate (bench/fake-embedding-server.mjs, its own process). The baseline is the
// time the server itself needs at the chosen concurrency, measured in the same
// run by a bare client sending the same requests and only parsing the answers
// (windows / rate is printed too: it leaves out the server's own JSON work); the
// goal is a build within 10 % of it. Also the build's peak memory (the process's maximum
// resident set) and the snapshot's size. Windows are cut on characters (no
// local tokenizer for the model), one per chunk here.
//
//   npm run build && node bench/embedding-server.bench.mjs [--documents 10000] [--sections 10] [--rate 5000] [--concurrency 4] [--batch 32] [--dims 384] [--rounds 1] [--warm] [--json]

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createRng } from './corpus.mjs'
import { benchCache, bundleSource, root } from './knowledge.mjs'
import { emitResult, fmtMs, isMain, numberArg } from './util.mjs'

export const GOAL_OVERHEAD = 0.1
const VOCABULARY = 30_000
const WORDS = 40

/** Writes the corpus once per shape into .cache/bench (a marker file says it is whole). */
function writeCorpus(dir, documents, sections) {
  const done = join(dir, '.complete')
  if (existsSync(done))
    return
  rmSync(dir, { recursive: true, force: true })
  const rng = createRng(documents * 31 + sections)
  // Zipf-like word frequencies: word k is picked with weight 1 / (k + 1).
  const word = () => `w${Math.floor(Math.exp(rng.next() * Math.log(VOCABULARY))) - 1}`
  const words = n => Array.from({ length: n }, word).join(' ')
  for (let d = 0; d < documents; d++) {
    const folder = join(dir, `group-${d % 100}`)
    mkdirSync(folder, { recursive: true })
    const body = Array.from({ length: sections }, (_, s) => `## Section ${s} of ${d}\n\n${words(WORDS)}.\n`).join('\n')
    writeFileSync(join(folder, `doc-${d}.md`), `# Document ${d}\n\n${words(12)}.\n\n${body}`)
  }
  writeFileSync(done, '')
}

function startServer(rate, concurrency) {
  const child = spawn(process.execPath, [join(root, 'bench/fake-embedding-server.mjs'), String(rate), String(concurrency)], { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (line) => {
      const port = /listening (\d+)/.exec(line)?.[1]
      if (port)
        resolve({ baseUrl: `http://127.0.0.1:${port}/v1`, stop: () => child.kill() })
    })
    child.on('exit', code => reject(new Error(`the fake embedding server exited (${code})`)))
  })
}

/**
 * The server's own time as a client sees it: `windows` inputs of `chars`
 * characters sent in requests of `batch`, `concurrency` in flight, each answer
 * parsed, and nothing else done: what the fake server's delay, its JSON and
 * the connection cost, the time a build cannot go under.
 */
async function bareClientMs(baseUrl, { windows, chars, batch, concurrency, dims }) {
  const requests = Math.ceil(windows / batch)
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < requests) {
      const r = next++
      const size = Math.min(batch, windows - r * batch)
      const input = Array.from({ length: size }, (_, i) => `${r} ${i} `.padEnd(chars, 'x'))
      const response = await fetch(`${baseUrl}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'fake', input, dimensions: dims }) })
      const answer = JSON.parse(await response.text())
      if (answer.data.length !== size)
        throw new Error('the fake server answered the wrong number of embeddings')
    }
  }))
  return performance.now() - started
}

/**
 * One build of the project, timed, with when its answers came and when it was cut into windows: from
 * an empty cache, or (`warm`) from the cache the last build left, where nothing is to embed.
 */
async function timedBuild(buildKnowledgeProject, project, dir, windows, { warm = false } = {}) {
  if (warm)
    rmSync(join(dir, '.skill-kit', 'index'), { recursive: true, force: true })
  else rmSync(join(dir, '.skill-kit'), { recursive: true, force: true })
  let toEmbed = 0
  const at = { read: 0, firstAnswer: 0, lastAnswer: 0 }
  const started = performance.now()
  const built = await buildKnowledgeProject(project, {
    onProgress: (event) => {
      const time = performance.now() - started
      if (event.phase === 'read') {
        toEmbed = event.windows - event.cached
        at.read = time
      }
      if (event.phase === 'embed') {
        at.firstAnswer ||= time
        at.lastAnswer = time
      }
    },
  })
  const wallMs = performance.now() - started
  if (toEmbed !== (warm ? 0 : windows))
    throw new Error(`the build embedded ${toEmbed} windows, not the ${warm ? 0 : windows} expected`)
  if (!('snapshotFile' in built))
    throw new Error(`the build failed: ${built.diagnostics?.map(d => d.message).join('\n')}`)
  return { wallMs, ...at, snapshotMB: statSync(built.snapshotFile).size / 1024 / 1024 }
}

const median = values => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]

export async function run({ documents = 10_000, sections = 10, rate = 5000, concurrency = 4, batch = 32, dims = 384, rounds = 1, warm = false, log = console.log } = {}) {
  const shape = `${documents}x${sections}`
  const dir = join(benchCache, `server-corpus-${shape}`)
  log(`corpus: ${documents.toLocaleString('en-US')} documents of ${sections} sections (${shape}), written once into ${dir}`)
  writeCorpus(join(dir, 'knowledge'), documents, sections)
  const { openKnowledgeProject, buildKnowledgeProject } = await bundleSource('embedding-server-bench', `export { openKnowledgeProject, buildKnowledgeProject } from './src/knowledge/project'\n`)
  const server = await startServer(rate, concurrency)
  try {
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({
      name: 'large',
      model: { provider: 'openai-compatible', baseUrl: server.baseUrl, id: 'fake/all-MiniLM-L6-v2', dimensions: dims, batchSize: batch, concurrency },
    }))
    const opened = openKnowledgeProject(dir)
    if (!opened.project)
      throw new Error(opened.diagnostics.map(d => d.message).join('\n'))
    // The same requests from a bare client (windows of about the corpus's average, 260 characters): each
    // document of this corpus is cut into sections + 2 windows (checked against the build's count). The
    // two alternate which goes first, round by round, so neither always meets a fresh server.
    const windows = documents * (sections + 2)
    const bare = () => bareClientMs(server.baseUrl, { windows, chars: 260, batch, concurrency, dims })
    const rateMs = windows / rate * 1000
    log(`${windows.toLocaleString('en-US')} windows at ${rate.toLocaleString('en-US')}/s, ${concurrency} requests of ${batch} in flight: the server's rate alone needs ${fmtMs(rateMs)}`)
    const measured = []
    for (let round = 0; round < rounds; round++) {
      let serverMs
      let build
      if (round % 2 === 0) {
        serverMs = await bare()
        build = await timedBuild(buildKnowledgeProject, opened.project, dir, windows)
      }
      else {
        build = await timedBuild(buildKnowledgeProject, opened.project, dir, windows)
        serverMs = await bare()
      }
      const overhead = build.wallMs / serverMs - 1
      measured.push({ serverMs, ...build, overhead })
      log(`round ${round + 1} (${round % 2 === 0 ? 'bare client first' : 'build first'}): bare client ${fmtMs(serverMs)}, build ${fmtMs(build.wallMs)} (${(overhead * 100).toFixed(1)} % over); first answer at ${fmtMs(build.firstAnswer)}, folder cut into windows at ${fmtMs(build.read)}, last answer at ${fmtMs(build.lastAnswer)}, published at ${fmtMs(build.wallMs)}`)
    }
    // A rebuild of the same folder from the cache the last round left (published index removed): every vector read back from it.
    const rebuild = warm ? await timedBuild(buildKnowledgeProject, opened.project, dir, windows, { warm: true }) : undefined
    if (rebuild)
      log(`rebuild from the cache, nothing to embed: ${fmtMs(rebuild.wallMs)}`)
    const result = {
      documents,
      chunks: documents * (sections + 1),
      windows,
      rate,
      concurrency,
      batch,
      dims,
      rounds: measured,
      rebuildMs: rebuild?.wallMs,
      rateMs,
      overhead: median(measured.map(r => r.overhead)),
      peakRssMB: process.resourceUsage().maxRSS / 1024,
      snapshotMB: measured[0].snapshotMB,
    }
    log(`build over the bare client, median of ${rounds}: ${(result.overhead * 100).toFixed(1)} % (goal ≤ ${GOAL_OVERHEAD * 100} %); per round ${measured.map(r => `${(r.overhead * 100).toFixed(1)} %`).join(', ')}`)
    log(`peak resident memory ${result.peakRssMB.toFixed(0)} MB, snapshot ${result.snapshotMB.toFixed(1)} MB`)
    return result
  }
  finally {
    server.stop()
  }
}

if (isMain(import.meta)) {
  emitResult(await run({
    documents: numberArg('documents', 10_000),
    sections: numberArg('sections', 10),
    rate: numberArg('rate', 5000),
    concurrency: numberArg('concurrency', 4),
    batch: numberArg('batch', 32),
    dims: numberArg('dims', 384),
    rounds: numberArg('rounds', 1),
    warm: process.argv.includes('--warm'),
  }))
}
