// Runs every benchmark, each in its own Node process (started with --expose-gc
// so rounds start from a collected heap), and prints a summary table.
//
//   npm run bench          # = npm run build && node bench/run.mjs

import { spawn } from 'node:child_process'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { RESULT_MARK } from './util.mjs'

function runChild(script, args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(new URL(script, import.meta.url)), '--json', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    let result
    let buffer = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      buffer += chunk
      let newline
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(newline + 1)
        if (line.startsWith(RESULT_MARK))
          result = JSON.parse(line.slice(RESULT_MARK.length))
        else console.log(line)
      }
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0 || !result)
        reject(new Error(`${script} failed (exit code ${code})`))
      else resolve(result)
    })
  })
}

const cpu = cpus()
console.log(`Node ${process.version}, ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, load average ${loadavg().map(n => n.toFixed(2)).join(' ')}\n`)

console.log('== parse.bench.mjs ==')
const parse = await runChild('./parse.bench.mjs')
console.log('\n== vite-build.bench.mjs ==')
const vite = await runChild('./vite-build.bench.mjs')
console.log('\n== activation.bench.mjs ==')
const act = await runChild('./activation.bench.mjs')
const actOk = act.ratio.messages >= act.goal.ratio && act.ratio.paths >= act.goal.ratio && act.medianMessageUs < act.goal.messageUs

const rows = [
  ['benchmark', 'ours', 'baseline', 'ratio', 'goal', ''],
  [`parse+validate+render, ${parse.count} skills`, `${parse.medianMs.compileSkill.toFixed(0)} ms`, `${parse.medianMs.baseline.toFixed(0)} ms`, parse.ratio.toFixed(2), `≤ ${parse.goal}`, parse.ratio <= parse.goal ? 'ok' : 'MISSED'],
  [`  SkillLoader.load (files), ${parse.count}`, `${parse.medianMs.loader.toFixed(0)} ms`, `${parse.medianMs.baselineRead.toFixed(0)} ms`, parse.loaderRatio.toFixed(2), '', 'info'],
  [`vite ${vite.vite} build, ${vite.count} skills ?cover/?raw`, `${vite.medianMs.cover.toFixed(0)} ms`, `${vite.medianMs.raw.toFixed(0)} ms`, vite.ratio.toFixed(2), `≤ ${vite.goal}`, vite.ratio <= vite.goal ? 'ok' : 'MISSED'],
  [`activation, ${act.skills} skills: msg, path (median msg)`, `${act.us.message.toFixed(1)}, ${act.us.path.toFixed(1)} (${act.medianMessageUs.toFixed(1)}) µs`, `${act.us.naiveMessage.toFixed(0)}, ${act.us.naivePath.toFixed(0)} µs`, `${(1 / act.ratio.messages).toFixed(3)}, ${(1 / act.ratio.paths).toFixed(3)}`, `≤ ${(1 / act.goal.ratio).toFixed(1)} (< ${act.goal.messageUs} µs)`, actOk ? 'ok' : 'MISSED'],
]
const widths = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)))
console.log('\n== summary ==')
for (const [i, row] of rows.entries()) {
  console.log(row.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  ').trimEnd())
  if (i === 0)
    console.log(widths.map(w => '-'.repeat(w)).join('  '))
}
console.log(`\nbaselines: gray-matter + marked.lexer on the same sources (loader row: plus readFileSync); vite ?raw with the plugin installed; activation: a per-skill loop (a regex per topic, an ignore() per skill)`)
