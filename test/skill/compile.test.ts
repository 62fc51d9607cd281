import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSkill } from '../../src/runtime'
import { COVER_HINT } from '../../src/skill/cover'
import { SkillLoader } from '../../src/skill/load'
import { skillData } from '../../src/skill/shape'

const valid = join(import.meta.dirname, 'fixtures', 'valid')
const load = (name: string) => new SkillLoader().load(join(valid, name, 'SKILL.md')).compiled

describe('the seed examples', () => {
  it('xlsx: always-on sections on the cover, every section in the index', () => {
    const skill = load('xlsx')
    expect(skill.diagnostics).toEqual([])
    expect(skill.mode).toBe('progressive')
    expect(skill.name).toBe('xlsx')
    expect(skill.sections.map(s => s.id)).toEqual(['mandatory-rules', 'core-tools', 'read-sheet', 'write-sheet', 'recalc', 'financial', 'number-formats'])
  })

  it('xlsx cover (golden)', async () => {
    await expect(load('xlsx').cover).toMatchFileSnapshot('__snapshots__/xlsx.cover.md')
  })

  it('plugin-creator: three rules sections on the cover, in list order', () => {
    const skill = load('plugin-creator')
    expect(skill.diagnostics).toEqual([])
    const cover = skill.cover
    const positions = ['## Current rules', '## Engineering constraints', '## Forbidden boundaries', 'Sections you can read on demand:'].map(s => cover.indexOf(s))
    expect(positions.every((p, i) => p > (positions[i - 1] ?? 0))).toBe(true)
    expect(cover).not.toContain('Run the generator')
    expect(cover.split('\n').slice(-6)).toEqual([
      'Sections you can read on demand:',
      '- current-rules — Current rules',
      '- engineering-constraints — Engineering constraints',
      '- forbidden-boundaries — Forbidden boundaries',
      '- scaffolding — Scaffolding',
      '  - manifest-fields — Manifest fields',
    ])
  })

  it('progressive: {} is valid and puts nothing but the hint and index on the cover', () => {
    const skill = load('empty-progressive')
    expect(skill.diagnostics).toEqual([])
    expect(skill.cover).toBe(`${COVER_HINT}\n\nSections you can read on demand:\n- only — Only section`)
  })
})

describe('sections', () => {
  const skill = load('xlsx')
  const source = readFileSync(join(valid, 'xlsx', 'SKILL.md'), 'utf8').split('\n')
  const byId = Object.fromEntries(skill.sections.map(s => [s.id, s]))

  it('runs from its heading to the next heading of the same or a higher level', () => {
    const core = byId['core-tools']!
    expect(core.content).toBe(source.slice(core.startLine - 1, core.endLine).join('\n'))
    expect(core.content.startsWith('## Core tools {#core-tools}')).toBe(true)
    expect(core.content).toContain('### Writing a spreadsheet {#write-sheet}')
    expect(core.content).not.toContain('Recalculating')
    expect(core.children).toEqual(['read-sheet', 'write-sheet'])
  })

  it('reads a level-3 section alone, fenced "##" lines included verbatim', () => {
    const read = byId['read-sheet']!
    expect(read.parent).toBe('core-tools')
    expect(read.content.split('\n')[0]).toBe('### Reading a spreadsheet {#read-sheet}')
    expect(read.content).toContain('## this line is code, not a heading')
    expect(read.content.endsWith('```')).toBe(true)
  })

  it('takes setext headings, with the section starting at the text line', () => {
    const financial = byId.financial!
    expect(financial.title).toBe('Financial models')
    expect(financial.level).toBe(2)
    expect(financial.content.split('\n').slice(0, 2)).toEqual(['Financial models {#financial}', '-----------------------------'])
    expect(financial.children).toEqual(['number-formats'])
  })

  it('lists the folder\'s files as bundled, without hidden files or the skill itself', () => {
    expect(skill.resources).toEqual(['LICENSE.txt', 'scripts/recalc.py'])
  })
})

describe('createSkill', () => {
  const compiled = load('xlsx')
  const skill = createSkill(skillData(compiled, f => f))

  it('reads by ID, by heading (case-insensitive) and by line range', () => {
    const section = compiled.sections.find(s => s.id === 'recalc')!.content
    expect(skill.readSection('recalc')).toBe(section)
    expect(skill.readSection('RECALCULATING formulas')).toBe(section)
    expect(skill.readSection('recalc', { offset: 2, limit: 1 })).toBe('Run the bundled script after writing formulas:')
    expect(skill.readSection('recalc', { offset: 100 })).toBe('')
  })

  it('explains unknown references and bad ranges', () => {
    expect(() => skill.readSection('nope')).toThrow(/No section has the ID or heading "nope"\. Known section IDs: mandatory-rules, core-tools/)
    expect(() => skill.readSection('recalc', { offset: -1 })).toThrow(/offset must be a non-negative integer/)
  })

  it('asks for an ID when a heading is shared', () => {
    const twice = createSkill({
      ...skillData(compiled, f => f),
      sections: [
        { id: 'a', title: 'Setup', level: 2, parent: null },
        { id: 'b', title: 'setup', level: 3, parent: 'a' },
      ],
    })
    expect(() => twice.readSection('Setup')).toThrow('Several sections are titled "Setup": a, b. Pass one of these section IDs instead.')
  })
})

describe('regular skills', () => {
  it('use the whole body as cover and refuse section reads', () => {
    const compiled = new SkillLoader().load(join(import.meta.dirname, 'fixtures', 'invalid', 'field-unknown', 'SKILL.md')).compiled
    expect(compiled.mode).toBe('regular')
    expect(compiled.cover).toBe('Body.')
    const skill = createSkill(skillData(compiled, f => f))
    expect(() => skill.readSection('anything')).toThrow('Skill "field-unknown" is a regular skill: it has no sections, and loading it returns the whole body.')
  })
})
