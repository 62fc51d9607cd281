// `skill-kit watch` when 60 documents are added at once (a copy, a checkout):
// how many builds start (goal: 1) and how long until the published index
// names them, measured on the real command (a separate process on a
// temporary project), from the moment the last of the 60 files is written to
// the moment its line says the index is published (the manifest is then
// checked). Two projects: "model": false (the watcher's own latency plus a
// lexical build) and all-MiniLM-L6-v2 (q8, rebuilt offline into
// .cache/models), where each new document is one window to embed.
//
// The floor: the Semantic Skill Kit's watcher hashes every file every 1,000
// ms and builds once a change has been stable for 800 ms, so its build starts
// 1,000 to 2,000 ms after a write (1,500 ms on average: it sees the change at
// the next poll, and builds at the poll after), before building anything.
//
//   node bench/watch.bench.mjs [--rounds 7] [--json]

import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { buildMiniLM } from '../scripts/models/minilm.mjs'
import { bundleCli } from '../test/support/bundle-cli.mjs'
import { benchCache, modelsDir, root } from './knowledge.mjs'
import { emitResult, fmtMs, isMain, median, numberArg } from './util.mjs'

export const GOAL_BUILDS = 1
/** The seed's build starts at least this long after a write (a 1,000 ms poll, 800 ms of stability). */
export const SEED_FLOOR_MS = 1000
export const SEED_MEAN_MS = 1500
const DOCUMENTS = 60
/** Time given to a stray second build to show up after the published line (a benchmark may wait; tests never do). */
const QUIET_MS = 500

/** A running `skill-kit watch` whose stdout lines are timestamped as they arrive. */
function startWatch(script, cwd, project) {
  const child = spawn(process.execPath, [script, 'watch', '--project', project, '--offline'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
  const lines = []
  let buffer = ''
  let wake
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk
    const parts = buffer.split('\n')
    buffer = parts.pop()
    const at = performance.now()
    for (const text of parts)
      lines.push({ text, at })
    wake?.()
  })
  child.stderr.setEncoding('utf8').on('data', chunk => (stderr += chunk))
  child.on('close', () => wake?.())
  return {
    lines,
    async waitFor(pattern, from = 0) {
      for (;;) {
        const found = lines.slice(from).find(line => pattern.test(line.text))
        if (found)
          return found
        if (child.exitCode !== null)
          throw new Error(`skill-kit watch exited:\n${lines.map(l => l.text).join('\n')}\n${stderr}`)
        await new Promise(resolve => (wake = resolve))
      }
    },
    stop: () => new Promise(resolve => (child.once('close', resolve), child.kill('SIGINT'))),
  }
}

/** One project: rounds of 60 new documents each; per round the builds started and the time to the published index. */
async function measure(script, name, settings, rounds) {
  const work = mkdtempSync(join(tmpdir(), 'skill-kit-watch-bench-'))
  const dir = join(work, name)
  mkdirSync(join(dir, 'knowledge'), { recursive: true })
  writeFileSync(join(dir, 'knowledge/start.md'), '# Start\n\nThe first document.\n')
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify(settings))
  const watch = startWatch(script, work, name)
  await watch.waitFor(/^first build: published/)
  const results = []
  try {
    for (let round = 0; round < rounds; round++) {
      const from = watch.lines.length
      const documents = 1 + DOCUMENTS * (round + 1)
      for (let i = 0; i < DOCUMENTS; i++) {
        writeFileSync(join(dir, `knowledge/r${round}-${String(i).padStart(2, '0')}.md`), `# Guide ${round}.${i}\n\nHow to do task ${i} of round ${round}: open the settings, pick option ${i % 7}, and save.\n`)
      }
      const written = performance.now()
      const published = await watch.waitFor(new RegExp(`: published ${documents} documents`), from)
      await delay(QUIET_MS)
      const builds = watch.lines.slice(from).length
      // The build's own time, from its line: the rest is the watcher's (events, settle time, process I/O).
      const buildMs = Number(/ in (\d+) ms\.$/.exec(published.text)[1])
      results.push({ ms: published.at - written, buildMs, builds, line: published.text })
    }
  }
  finally {
    await watch.stop()
    rmSync(work, { recursive: true, force: true })
  }
  return results
}

export async function main() {
  const rounds = numberArg('rounds', 7)
  const [script] = await Promise.all([bundleCli(benchCache, 'skill-kit-watch.mjs'), buildMiniLM(modelsDir)])
  const projects = [
    ['lexical', { model: false }],
    ['minilm', { model: { cacheDir: modelsDir } }],
  ]
  const summary = {}
  for (const [name, settings] of projects) {
    const results = await measure(script, name, settings, name === 'minilm' ? Math.max(3, Math.ceil(rounds / 2)) : rounds)
    const ms = median(results.map(r => r.ms))
    const builds = Math.max(...results.map(r => r.builds))
    const overheadMs = median(results.map(r => r.ms - r.buildMs))
    summary[name] = { rounds: results.length, medianMs: ms, minMs: Math.min(...results.map(r => r.ms)), maxMs: Math.max(...results.map(r => r.ms)), medianBuildMs: median(results.map(r => r.buildMs)), overheadMs, maxBuilds: builds, lastLine: results.at(-1).line }
    console.log(`${name}: ${DOCUMENTS} documents added at once → ${builds} build${builds === 1 ? '' : 's'} per round (goal ${GOAL_BUILDS}), published after ${fmtMs(ms)} (median of ${results.length}; min ${fmtMs(summary[name].minMs)}, max ${fmtMs(summary[name].maxMs)}), of which the build ${fmtMs(summary[name].medianBuildMs)} and the watcher ${fmtMs(overheadMs)}`)
    console.log(`  last line: ${results.at(-1).line}`)
  }
  console.log(`seed: its build starts ${SEED_FLOOR_MS}–${SEED_FLOOR_MS * 2} ms after the write (mean ${SEED_MEAN_MS} ms), then builds`)
  const result = { documents: DOCUMENTS, goal: { builds: GOAL_BUILDS }, seed: { floorMs: SEED_FLOOR_MS, meanMs: SEED_MEAN_MS }, ...summary }
  emitResult(result)
  return result
}

if (isMain(import.meta))
  await main()
