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
console.log('\n== hmr.bench.mjs ==')
const hmr = await runChild('./hmr.bench.mjs')
const hmrOk = hmr.medianMs.skill.message <= hmr.goal.messageMs && hmr.medianMs.skill.visible <= hmr.goal.visibleMs
console.log('\n== activation.bench.mjs ==')
const act = await runChild('./activation.bench.mjs')
const actOk = act.ratio.messages >= act.goal.ratio && act.ratio.paths >= act.goal.ratio && act.medianMessageUs < act.goal.messageUs
console.log('\n== search.bench.mjs ==')
const search = await runChild('./search.bench.mjs')
console.log('\n== lexical.bench.mjs ==')
const lexical = await runChild('./lexical.bench.mjs')
const lexicalRecall = ['short', 'question', 'prompt'].map(form => lexical.quality[`questions: ${form}`].default.recall5)
// The knowledge benchmarks below run the real all-MiniLM-L6-v2 (built offline into .cache/models).
console.log('\n== embed.bench.mjs --count 100 ==')
const embed = await runChild('./embed.bench.mjs', ['--count', '100', '--rounds', '3'])
console.log('\n== build.bench.mjs --rounds 2 ==')
const kb = await runChild('./build.bench.mjs', ['--rounds', '2'])
console.log('\n== retrieval.bench.mjs ==')
const retrieval = await runChild('./retrieval.bench.mjs')
console.log('\n== hmr-knowledge.bench.mjs --rounds 5 ==')
const hmrKnowledge = await runChild('./hmr-knowledge.bench.mjs', ['--rounds', '5'])
const at100k = search.latencyMs.at(-1)
const pct = x => `${(x * 100).toFixed(1)} %`
const retrievalRows = ['short', 'prompts', 'hard'].map((name) => {
  const q = retrieval.quality[name].report.defaults
  const m = x => `${pct(x.top1)} / ${pct(x.recall5)} / ${x.mrr5.toFixed(3)}`
  return [`retrieval, ${name} (report half, ${retrieval.quality[name].sizes.report}): top-1 / recall@5 / MRR@5`, `auto ${m(q.auto)}`, `vector ${m(q.vector)}`, '', '', 'info']
})
const agree = retrieval.agreement['threshold 0.3']

const rows = [
  ['benchmark', 'ours', 'baseline', 'ratio', 'goal', ''],
  [`parse+validate+render, ${parse.count} skills`, `${parse.medianMs.compileSkill.toFixed(0)} ms`, `${parse.medianMs.baseline.toFixed(0)} ms`, parse.ratio.toFixed(2), `≤ ${parse.goal}`, parse.ratio <= parse.goal ? 'ok' : 'MISSED'],
  [`  SkillLoader.load (files), ${parse.count}`, `${parse.medianMs.loader.toFixed(0)} ms`, `${parse.medianMs.baselineRead.toFixed(0)} ms`, parse.loaderRatio.toFixed(2), '', 'info'],
  [`vite ${vite.vite} build, ${vite.count} skills ?cover/?raw`, `${vite.medianMs.cover.toFixed(0)} ms`, `${vite.medianMs.raw.toFixed(0)} ms`, vite.ratio.toFixed(2), `≤ ${vite.goal}`, vite.ratio <= vite.goal ? 'ok' : 'MISSED'],
  [`vite dev, ${hmr.count + 1} skills: SKILL.md write → message, → page`, `${hmr.medianMs.skill.message.toFixed(1)}, ${hmr.medianMs.skill.visible.toFixed(0)} ms`, `${hmr.medianMs.plain.message.toFixed(1)}, ${hmr.medianMs.plain.visible.toFixed(0)} ms`, `${(hmr.medianMs.skill.message / hmr.medianMs.plain.message).toFixed(1)}, ${(hmr.medianMs.skill.visible / hmr.medianMs.plain.visible).toFixed(1)}`, `≤ ${hmr.goal.messageMs}, ${hmr.goal.visibleMs} ms`, hmrOk ? 'ok' : 'MISSED'],
  [`activation, ${act.skills} skills: msg, path (median msg)`, `${act.us.message.toFixed(1)}, ${act.us.path.toFixed(1)} (${act.medianMessageUs.toFixed(1)}) µs`, `${act.us.naiveMessage.toFixed(0)}, ${act.us.naivePath.toFixed(0)} µs`, `${(1 / act.ratio.messages).toFixed(3)}, ${(1 / act.ratio.paths).toFixed(3)}`, `≤ ${(1 / act.goal.ratio).toFixed(1)} (< ${act.goal.messageUs} µs)`, actOk ? 'ok' : 'MISSED'],
  [`search, 100k chunks (int8, float32)`, `${at100k.i8.toFixed(2)}, ${at100k.f32.toFixed(2)} ms`, `${at100k.naive.toFixed(1)} ms`, `${(at100k.i8 / at100k.naive).toFixed(3)}, ${(at100k.f32 / at100k.naive).toFixed(3)}`, `≤ ${(1 / search.goal.ratio).toFixed(1)} (< ${search.goal.ms100k} ms)`, search.ratio.min >= search.goal.ratio && at100k.i8 < search.goal.ms100k ? 'ok' : 'MISSED'],
  [`snapshot bytes, ${search.sizes.int8.bytes > 0 ? 'int8' : ''} vs seed gzip JSON`, `${(search.sizes.int8.bytes / 1024).toFixed(0)} KiB`, `${(search.sizes.seedGzipJson / 1024).toFixed(0)} KiB`, search.sizes.int8.ratio.toFixed(3), `≤ ${search.goal.size}`, search.sizes.int8.ratio <= search.goal.size ? 'ok' : 'MISSED'],
  [`embed ${embed.count} chunks: raw ORT / ours`, `${embed.medianMs.ours.toFixed(0)} ms`, `${embed.medianMs.raw.toFixed(0)} ms`, embed.ratio.raw.toFixed(2), `≥ ${embed.goal.raw}`, embed.ratio.raw >= embed.goal.raw ? 'ok' : 'MISSED'],
  [`  ours / one text per call`, '', `${embed.medianMs.perCall.toFixed(0)} ms`, embed.ratio.perCall.toFixed(2), `≤ ${embed.goal.perCall}`, embed.ratio.perCall <= embed.goal.perCall ? 'ok' : 'MISSED'],
  [`knowledge build, ${kb.windows} windows, vs seed`, `${(kb.medianMs.ours / 1000).toFixed(1)} s`, `${(kb.medianMs.seed / 1000).toFixed(1)} s`, kb.ratio.toFixed(2), `≤ ${kb.goal.full}`, kb.ratio <= kb.goal.full ? 'ok' : 'MISSED'],
  [`  incremental (one paragraph) / full`, `${(kb.medianMs.incremental / 1000).toFixed(2)} s`, `${(kb.medianMs.ours / 1000).toFixed(1)} s`, kb.incremental.share.toFixed(3), `≤ ${kb.goal.incremental}`, kb.incremental.share <= kb.goal.incremental ? 'ok' : 'MISSED'],
  ...retrievalRows,
  [`lexical, ${lexical.quality['questions: short'].default.queries} needs, recall@5 at threshold ${lexical.threshold}: keywords / question / prompt`, lexicalRecall.map(r => `${(r * 100).toFixed(0)} %`).join(' / '), '', '', '', 'info'],
  [`Vite dev server: 60 documents at once, builds / update sent`, `${hmrKnowledge.burstBuilds} / ${hmrKnowledge.burstMs.toFixed(0)} ms`, '', '', '1 build', hmrKnowledge.burstBuilds === 1 ? 'ok' : 'MISSED'],
  [`  one-guide edit, update sent / its windows embedded alone`, `${hmrKnowledge.editMs.toFixed(0)} ms`, `${hmrKnowledge.embedMs.toFixed(0)} ms`, hmrKnowledge.ratio.toFixed(2), `≤ ${hmrKnowledge.goal}`, hmrKnowledge.ratio <= hmrKnowledge.goal ? 'ok' : 'MISSED'],
  [`int8 = float32 top 5, ${agree.queries} queries`, pct(agree.same), '', '', `≥ ${retrieval.goal.agreement * 100} %`, agree.same >= retrieval.goal.agreement ? 'ok' : 'MISSED'],
]
const widths = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)))
console.log('\n== summary ==')
for (const [i, row] of rows.entries()) {
  console.log(row.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]) : cell.padStart(widths[j]))).join('  ').trimEnd())
  if (i === 0)
    console.log(widths.map(w => '-'.repeat(w)).join('  '))
}
console.log(`\nbaselines: gray-matter + marked.lexer on the same sources (loader row: plus readFileSync); vite ?raw with the plugin installed; vite dev: Vite's HMR of a plain self-accepting JS module in the same page (the seed's polling watcher needs ≥ 800 ms); activation: a per-skill loop (a regex per topic, an ignore() per skill); search: the seed's ranking in plain JavaScript; embed: a bare onnxruntime-node session and the per-call feature-extraction pipeline; build: the seed's per-call pipeline on the same windows; retrieval: vector search (the seed's ranking)`)
