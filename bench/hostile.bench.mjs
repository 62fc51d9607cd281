// How the compiler, the activation engine and the skill tool scale on the
// pathological inputs of issue 14: each shape at size n and 10n, in the same
// process, warm, median of rounds. A linear cost gives a ratio near 10; the
// goal is at most 12 (quadratic would be about 100).
//
//   npm run build && node bench/hostile.bench.mjs [--n 10000] [--rounds 5] [--json]

import { emitResult, fmtMs, importDist, isMain, median } from './util.mjs'

export const HOSTILE_GOAL = 12

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

const skill = (yaml, body = '# Body\n') => `---\nname: hostile\ndescription: d\n${yaml}\n---\n${body}`

/** Each shape: a source (or a call) of size n. */
function shapes({ compileSkill, createActivation, createSkillTool, registry }) {
  const folder = { files: [], kind: () => 'missing' }
  const compile = source => () => compileSkill({ file: '/x/hostile/SKILL.md', source, folder }, { onInvalid: 'fallback' })
  return {
    'heading: "## a", n spaces, "b"': n => compile(skill('progressive: true', `## a${' '.repeat(n)}b\n`)),
    'heading: "## " and n "{#"': n => compile(skill('progressive: true', `## ${'{#'.repeat(n)}\n`)),
    'table row with n spaces': n => compile(skill('', `| a |${' '.repeat(n)}| b |\n| --- | --- |\n| x${' '.repeat(n)}y |\n`)),
    'n/10 headings without IDs': n => compile(skill('progressive: true', Array.from({ length: n / 10 }, (_, i) => `## H${i}\n\ntext\n`).join('\n'))),
    'n/10 unknown frontmatter keys': n => compile(skill(Array.from({ length: n / 10 }, (_, i) => `k${i}: v`).join('\n'))),
    'n/100 aliases next to n/10 values': n => compile(skill(`v: [${Array.from({ length: n / 10 }, () => 'x').join(', ')}]\n${Array.from({ length: n / 100 }, (_, i) => `a${i}: &a${i} x\nb${i}: *a${i}`).join('\n')}`)),
    'flow nesting n deep': n => compile(skill(`x: ${'['.repeat(n)}`)),
    // Each level indents once more, so n characters nest about √(2n) levels deep.
    'block mappings nested, n characters': n => compile(skill(Array.from({ length: Math.round(Math.sqrt(2 * n)) }, (_, i) => `${' '.repeat(i)}a:`).join('\n'))),
    'read_section with an n-character heading': (n) => {
      const tool = createSkillTool(registry)
      return () => tool.execute({ action: 'read_section', skill: 'hostile', heading: `a${' '.repeat(n)}b` })
    },
    'n/100 skills of 100 punctuation topics, one message': (n) => {
      const skills = Array.from({ length: Math.max(1, n / 10_000) }, (_, s) => ({ name: `s${s}`, description: 'd', triggers: { paths: [], projects: [], alwaysActive: false, topics: Array.from({ length: 100 }, (_, i) => `+${'-'.repeat(i % 7)}${i}`) } }))
      const message = '+-'.repeat(5_000)
      return () => createActivation(skills, { log: () => {} }).observeMessage(message)
    },
  }
}

async function time(run, rounds) {
  const times = []
  for (let i = 0; i < rounds; i++) {
    globalThis.gc?.()
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  return median(times)
}

export async function runHostileBench({ n = 10_000, rounds = 5, log = console.log } = {}) {
  const { compileSkill } = await importDist('index.mjs')
  const { createActivation, createSkillTool } = await importDist('runtime.mjs')
  // The tool refuses an over-long heading before it loads anything: one listed skill is enough.
  const registry = [{ name: 'hostile', description: 'd', mode: 'progressive', triggers: null, sections: [], load: async () => { throw new Error('not loaded') } }]
  const rows = []
  for (const [shape, make] of Object.entries(shapes({ compileSkill, createActivation, createSkillTool, registry }))) {
    const small = make(n)
    const large = make(10 * n)
    await time(small, 2)
    await time(large, 1)
    const a = await time(small, rounds)
    const b = await time(large, rounds)
    const ratio = b / Math.max(a, 0.01)
    rows.push({ shape, n: fmtMs(a), tenN: fmtMs(b), ratio: Number(ratio.toFixed(1)) })
    log(`${shape.padEnd(52)} n ${fmtMs(a).padStart(9)}   10n ${fmtMs(b).padStart(9)}   ratio ${ratio.toFixed(1)}${ratio > HOSTILE_GOAL && b > 5 ? '  (over the goal)' : ''}`)
  }
  return { n, rows }
}

if (isMain(import.meta)) {
  const result = await runHostileBench({ n: arg('n', 10_000), rounds: arg('rounds', 5) })
  emitResult(result)
}
