// Parse + validate + render of 1,000 generated skills with the built package,
// against a baseline of what any Markdown-with-frontmatter pipeline pays:
// gray-matter (frontmatter) + marked.lexer (the body), on the same sources in
// the same process. Warm rounds, alternating order, median per round.
//
//   node bench/parse.bench.mjs [--count 1000] [--rounds 7] [--json]
//
// Measured:
//   compileSkill  compileSkill({ file, source, folder }) on in-memory sources,
//                 folder stub { files: [], kind: () => 'missing' }
//   baseline      matter(source) + marked.lexer(content), same sources
//   loader        new SkillLoader().load(file) on the files written to a temp dir
//                 (read, folder listing, content hash, compile); a fresh loader per
//                 round so nothing is served from its cache
//   baseline+read readFileSync + the baseline, the I/O-fair comparison for loader

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import matter from 'gray-matter'
import { marked } from 'marked'
import { assertCompiles, corpusStats, DEFAULT_SEED, generateSkills, writeSkills } from './corpus.mjs'
import { emitResult, fmtMs, importDist, isMain, median, numberArg } from './util.mjs'

export const PARSE_GOAL = 0.1

export async function runParseBench({ count = 1000, rounds = 7, warmup = 2, seed = DEFAULT_SEED, log = console.log } = {}) {
  const { compileSkill, SkillLoader } = await importDist('index.mjs')

  const skills = generateSkills(count, seed)
  const stats = corpusStats(skills)
  const { warnings } = assertCompiles(compileSkill, skills)
  log(`corpus: ${stats.count} skills (${stats.progressive} progressive), lines median ${stats.median}, p90 ${stats.p90}, max ${stats.max}, ${stats.over500} over 500; ${(stats.bytes / 1e6).toFixed(1)} MB; all compile with 0 errors (${warnings} warnings)`)

  const dir = mkdtempSync(join(tmpdir(), 'skill-kit-parse-'))
  try {
    const written = writeSkills(dir, count, seed)
    const folder = { files: [], kind: () => 'missing' }
    const inputs = skills.map(s => ({ file: `/bench/skills/${s.name}/SKILL.md`, source: s.source, folder }))
    const files = written.map(s => s.file)

    // Every variant returns a number derived from its output, so nothing is optimised away.
    const variants = {
      compileSkill() {
        let n = 0
        for (const input of inputs) {
          const compiled = compileSkill(input)
          n += compiled.cover.length + compiled.sections.length
        }
        return n
      },
      baseline() {
        matter.clearCache()
        let n = 0
        for (const { source } of inputs) {
          const parsed = matter(source)
          n += marked.lexer(parsed.content).length + Object.keys(parsed.data).length
        }
        return n
      },
      loader() {
        const loader = new SkillLoader()
        let n = 0
        for (const file of files) {
          const { compiled } = loader.load(file)
          n += compiled.cover.length + compiled.sections.length
        }
        return n
      },
      baselineRead() {
        matter.clearCache()
        let n = 0
        for (const file of files) {
          const parsed = matter(readFileSync(file, 'utf8'))
          n += marked.lexer(parsed.content).length + Object.keys(parsed.data).length
        }
        return n
      },
    }
    const names = Object.keys(variants)
    const times = Object.fromEntries(names.map(name => [name, []]))
    let sink = 0
    for (let round = 0; round < warmup + rounds; round++) {
      // Rotate the order so no variant always runs right after the same one.
      const order = names.map((_, i) => names[(i + round) % names.length])
      for (const name of order) {
        globalThis.gc?.()
        const start = performance.now()
        sink += variants[name]()
        const ms = performance.now() - start
        if (round >= warmup)
          times[name].push(ms)
      }
    }
    if (sink === 0)
      throw new Error('unreachable')

    const m = Object.fromEntries(names.map(name => [name, median(times[name])]))
    const result = {
      count,
      rounds,
      corpus: stats,
      medianMs: m,
      perSkillUs: Object.fromEntries(names.map(name => [name, (m[name] * 1000) / count])),
      ratio: m.compileSkill / m.baseline,
      loaderRatio: m.loader / m.baselineRead,
      loaderVsBaseline: m.loader / m.baseline,
      goal: PARSE_GOAL,
    }

    log(`\nparse + validate + render, ${count} skills, median of ${rounds} warm rounds${globalThis.gc ? ' (GC before each)' : ''}:`)
    const row = (label, ms) => log(`  ${label.padEnd(34)} ${fmtMs(ms).padStart(9)}   ${((ms * 1000) / count).toFixed(0).padStart(5)} µs/skill   ${(stats.bytes / 1e6 / (ms / 1000)).toFixed(0).padStart(4)} MB/s`)
    row('compileSkill (in memory)', m.compileSkill)
    row('gray-matter + marked.lexer', m.baseline)
    row('SkillLoader.load (temp dir)', m.loader)
    row('readFile + gray-matter + marked', m.baselineRead)
    log(`  ratio compileSkill / baseline        ${result.ratio.toFixed(2)}  (goal ≤ ${PARSE_GOAL}) ${result.ratio <= PARSE_GOAL ? 'OK' : 'MISSED'}`)
    log(`  ratio loader / (readFile + baseline)  ${result.loaderRatio.toFixed(2)}`)
    return result
  }
  finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (isMain(import.meta)) {
  const result = await runParseBench({ count: numberArg('count', 1000), rounds: numberArg('rounds', 7) })
  emitResult(result)
}
