// Seeded fuzzing of everything a skill author, a document author or an agent
// controls: the skill compiler, the knowledge document parser, the activation
// engine and the skill tool. Nothing may throw but our own errors, and every
// diagnostic has a place. The inputs that once crashed or stalled are kept as
// regressions and run first. Each input also has a work budget, linear in its
// length: work is counted (lines and characters scanned, regex tests,
// comparisons; src/runtime/work.ts), not timed, so a quadratic path fails here
// on any machine. Time is the scaling benchmark's (bench/hostile.bench.mjs).

import type { RegistrySkill, SkillToolArgs } from '../../src/runtime'
import { describe, expect, it } from 'vitest'
import { DiagnosticBag } from '../../src/core/diagnostics'
import { chunkDocument } from '../../src/knowledge/chunk'
import { parseKnowledgeDocument } from '../../src/knowledge/document'
import { offlineCard } from '../../src/routing/card'
import { createActivation, createSkillTool } from '../../src/runtime'
import { editDistance } from '../../src/runtime/closest'
import { work } from '../../src/runtime/work'
import { compileSkill } from '../../src/skill/compile'
import { registrySkill } from '../support/registry-skill'

/** mulberry32: a small seeded generator, so a failure names its seed and input. */
function random(seed: number) {
  let a = seed
  const next = () => {
    a = (a + 0x6D2B79F5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(items: readonly T[]) => items[int(items.length)]!
  return { next, int, pick }
}

/** Pieces that broke parsers before, and characters YAML and Markdown give meaning to. */
const PIECES = ['[', ']', '{', '}', '{#', '#', ':', ': ', '- ', '? ', '&a ', '*a', '!!str ', '|', '>', '"', '\'', '\\', ',', ' ', '  ', '\t', '\n', '\n  ', '---', '...', '`', '```', '~~~', '<!--', '-->', '|', '\u0000', '\uFEFF', '\u2028', 'é', '\uD83D\uDE00', 'a', 'name', 'description', 'context_trigger', 'topics', 'paths', 'progressive', 'always', 'resources', '../', '__proto__', '##', '###', ' {#id}', '{#a}']

function noise(r: ReturnType<typeof random>, length: number): string {
  let text = ''
  while (text.length < length)
    text += r.pick(PIECES)
  return text
}

const VALID = `---
name: fuzzed
description: A skill to mutate.
context_trigger:
  topics: [database, schema migration]
  paths: ["*.sql", "db/**"]
progressive:
  always: [rules]
---
# Fuzzed

## Rules {#rules}

- One.

## More {#more}

### Deeper {#deeper}

Text.
`

/** A valid skill with pieces inserted, deleted or repeated at random places. */
function mutate(r: ReturnType<typeof random>, source: string): string {
  let text = source
  for (let edits = 1 + r.int(6); edits > 0; edits--) {
    const at = r.int(text.length + 1)
    switch (r.int(4)) {
      case 0: text = text.slice(0, at) + noise(r, 1 + r.int(40)) + text.slice(at); break
      case 1: text = text.slice(0, at) + text.slice(at + r.int(30)); break
      case 2: text = text.slice(0, at) + r.pick(PIECES).repeat(1 + r.int(400)) + text.slice(at); break
      default: text = text.slice(0, at) + text.slice(r.int(text.length), r.int(text.length)) + text.slice(at)
    }
  }
  return text
}

/** Work units allowed per character of input, and for any input: linear with room for constant factors. */
const WORK_PER_CHAR = 40
const WORK_BASE = 20_000

/** The work `run` counts, and whether it is within the budget of an input of `length` characters. */
function counted(length: number, run: () => void): { steps: number, limit: number, within: boolean } {
  work.steps = 0
  run()
  const limit = WORK_PER_CHAR * length + WORK_BASE
  return { steps: work.steps, limit, within: work.steps <= limit }
}

/** Runs `run` and fails when its counted work is over the budget of `length` characters. */
function withinBudget(length: number, run: () => void): void {
  const { steps, limit } = counted(length, run)
  if (steps > limit)
    throw new Error(`${steps} work units for ${length} characters of input; the budget is ${limit}`)
}

const many = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('')

/** Inputs that crashed or stalled before (issue 14), kept as regressions. */
const REGRESSIONS: string[] = [
  'x: &a [*a]',
  `x: ${'['.repeat(8000)}`,
  `x: ${'{a:'.repeat(12000)}`,
  Array.from({ length: 5000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n'),
  `x:\n${'  - '.repeat(3000)}y`,
  `list:\n${'  - x # c\n'.repeat(12000)}`,
  Array.from({ length: 3000 }, (_, i) => `k${i}: v`).join('\n'),
].map(yaml => `---\nname: regression\ndescription: d\n${yaml}\n---\n# Body\n`).concat([
  `---\nname: regression\ndescription: d\nprogressive: true\n---\n## a${' '.repeat(100_000)}b\n`,
  `---\nname: regression\ndescription: d\nprogressive: true\n---\n## ${'{#'.repeat(50_000)}\n`,
  `---\nname: regression\ndescription: d\ncontext_trigger:\n  topics: ["${Array.from({ length: 2670 }, (_, i) => `w${i}`).join(' ')}"]\n  paths: ["${'a*'.repeat(7663)}"]\n---\nBody.\n`,
  // Quadratic in the compiler until they were found by counting: unknown \`always\` IDs each compared with every section, lines outside sections each looking back over every heading.
  `---\nname: regression\ndescription: d\nprogressive:\n  always: [${many(3000, i => `x${i}, `)}x]\n---\n${many(3000, i => `## H${i} {#h${i}}\n`)}`,
  `---\nname: regression\ndescription: d\nprogressive: {}\n---\n## A {#a}\n\n${many(5000, i => `## x${i}\ntext\n`)}`,
  `---\nname: regression\ndescription: d\nprogressive: {}\n---\n${many(5000, i => `## H${i} {#h${i}}\n\n${i % 2 ? '' : '#'}### d\n`)}`,
  `---\nname: regression\ndescription: d\nresources: [${many(3000, i => `r${i % 1500}.txt, `)}r]\n---\nb\n`,
  // Nesting that overflowed marked's stack or took it seconds (documents are chunked and carded with it).
  `---\nname: regression\ndescription: d\n---\n# Deep\n\n${'> '.repeat(5000)}a\n`,
  `---\nname: regression\ndescription: d\n---\n# Deep\n\n${many(300, i => `${' '.repeat(2 * i)}- a\n`)}`,
  `---\nname: regression\ndescription: d\n---\n# Emphasis\n\n${'_a'.repeat(20_000)}\n\n${'[a]('.repeat(10_000)}\n`,
])

/** Compiles a source and checks the result's shape. */
function compileChecked(source: string): void {
  let compiled!: ReturnType<typeof compileSkill>
  withinBudget(source.length, () => {
    compiled = compileSkill({ file: '/repo/skills/fuzzed/SKILL.md', source, folder: { files: [], kind: () => 'missing' } }, { onInvalid: 'fallback' })
  })
  for (const d of compiled.diagnostics) {
    expect(typeof d.code).toBe('string')
    expect(d.message.length).toBeGreaterThan(0)
    expect(Number.isInteger(d.line) && d.line >= 1).toBe(true)
    expect(Number.isInteger(d.column) && d.column >= 1).toBe(true)
  }
  expect(['regular', 'progressive', 'fallback']).toContain(compiled.mode)
}

function documentChecked(source: string): void {
  const bag = new DiagnosticBag('/kb/doc.md')
  let document: ReturnType<typeof parseKnowledgeDocument>
  withinBudget(source.length, () => {
    document = parseKnowledgeDocument('doc.md', source, bag)
  })
  for (const d of bag.items)
    expect(d.line >= 1 && d.column >= 1).toBe(true)
  // A document that parses is chunked and carded by marked, whose work is not counted (the benchmark times it).
  if (document!) {
    expect(chunkDocument(document, 0).length).toBeGreaterThan(0)
    expect(typeof offlineCard(document).title).toBe('string')
  }
}

describe('the work budget', () => {
  it('fails on quadratic work and passes linear work of the same input', () => {
    // Edit distance fills a table of one cell per pair of characters: quadratic in its input.
    const a = 'a'.repeat(2000)
    const b = 'b'.repeat(2000)
    const quadratic = counted(a.length + b.length, () => editDistance(a, b))
    expect(quadratic.within).toBe(false)
    expect(() => withinBudget(a.length + b.length, () => editDistance(a, b))).toThrow(`4004001 work units for 4000 characters of input; the budget is ${WORK_PER_CHAR * 4000 + WORK_BASE}`)
    // The compiler on a skill of the same size stays within it.
    const skill = `---\nname: ok\ndescription: d\n---\n${'word '.repeat(780)}`
    expect(counted(skill.length, () => compileSkill({ file: '/repo/skills/ok/SKILL.md', source: skill, folder: { files: [], kind: () => 'missing' } })).within).toBe(true)
  })
})

describe('hostile input never crashes', () => {
  it('regressions: the inputs that once crashed or stalled compile to diagnostics', () => {
    for (const source of REGRESSIONS) {
      compileChecked(source)
      documentChecked(source.replace('name: regression\n', ''))
    }
  })

  it('the skill compiler and the document parser on 1,000 mutated and random sources (seeded)', () => {
    for (let seed = 1; seed <= 1000; seed++) {
      const r = random(seed)
      const source = r.next() < 0.7 ? mutate(r, VALID) : `---\n${noise(r, 1 + r.int(2000))}\n---\n${noise(r, r.int(2000))}`
      try {
        compileChecked(source)
        documentChecked(source)
      }
      catch (error) {
        throw new Error(`seed ${seed}: ${(error as Error).message}\n${JSON.stringify(source.slice(0, 500))}`)
      }
    }
  })

  it('the activation engine on random triggers and observations (seeded)', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = random(seed)
      const phrase = () => noise(r, 1 + r.int(r.next() < 0.1 ? 3000 : 30))
      const skills = Array.from({ length: 1 + r.int(8) }, (_, i) => ({
        name: `s${i}`,
        description: 'd',
        triggers: { topics: Array.from({ length: r.int(5) }, phrase), paths: Array.from({ length: r.int(4) }, phrase), projects: Array.from({ length: r.int(3) }, phrase), alwaysActive: false },
      }))
      const message = noise(r, r.int(5000))
      const paths = [`/repo/${noise(r, 1 + r.int(200)).replace(/\0/g, '')}`, noise(r, r.int(100))]
      const context = noise(r, r.int(2000))
      const length = JSON.stringify(skills).length + message.length + paths.join('').length + context.length
      try {
        withinBudget(length, () => {
          const activation = createActivation(skills, { log: () => {}, cwd: '/repo' })
          activation.observeMessage(message)
          activation.observePaths(paths)
          activation.observeContext(context)
          activation.listing({ budgetChars: r.int(500) })
        })
      }
      catch (error) {
        throw new Error(`seed ${seed}: ${(error as Error).message}`)
      }
    }
  })

  it('the activation engine on many skills of hostile triggers and a long message', () => {
    // Punctuation-only topics are searched for over the whole text: the engine keeps only a few.
    const skills = Array.from({ length: 100 }, (_, s) => ({ name: `s${s}`, description: 'd', triggers: { paths: ['a*b*c', '**/x*'], projects: ['E##'], alwaysActive: false, topics: Array.from({ length: 100 }, (_, i) => `${'+-'.repeat(1 + i % 7)}${s % 2 ? '' : 'database'}`) } }))
    const message = `${'+- database '.repeat(2_000)}E12`
    const paths = Array.from({ length: 200 }, (_, i) => `/repo/${'a/'.repeat(i % 20)}x${i}`)
    withinBudget(JSON.stringify(skills).length + message.length + paths.join('').length, () => {
      const activation = createActivation(skills, { log: () => {}, cwd: '/repo' })
      activation.observeMessage(message)
      activation.observePaths(paths)
    })
  })

  it('the skill tool on random arguments (seeded): always a result, never a throw', async () => {
    const skills: RegistrySkill[] = [registrySkill('fuzzed', VALID)]
    const tool = createSkillTool(skills)
    const values = (r: ReturnType<typeof random>): unknown => r.pick([
      () => noise(r, r.int(r.next() < 0.1 ? 200_000 : 50)),
      () => r.int(1e6) - 5e5,
      () => null,
      () => undefined,
      () => [noise(r, 5)],
      () => ({ toString: noise(r, 5) }),
      () => 'fuzzed',
      () => 'rules',
      () => Number.NaN,
      () => -1,
    ])()
    for (let seed = 1; seed <= 500; seed++) {
      const r = random(seed)
      const args = { action: r.pick(['load', 'read_section', values(r)]), skill: r.next() < 0.6 ? 'fuzzed' : values(r), section_id: values(r), heading: values(r), offset: values(r), limit: values(r) }
      work.steps = 0
      const result = await tool.execute(args as SkillToolArgs)
      const length = VALID.length + (JSON.stringify(args) ?? '').length
      expect(work.steps, `seed ${seed}`).toBeLessThanOrEqual(WORK_PER_CHAR * length + WORK_BASE)
      expect(typeof result.content).toBe('string')
      expect(typeof result.isError).toBe('boolean')
      expect(result.content.length).toBeLessThan(10_000)
    }
  })
})
