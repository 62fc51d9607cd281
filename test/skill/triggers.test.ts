import { describe, expect, it } from 'vitest'
import { compileSkill } from '../../src/skill/compile'
import { globProblem } from '../../src/skill/triggers'

const compile = (frontmatter: string) => compileSkill({
  file: '/skills/db/SKILL.md',
  source: `---\nname: db\ndescription: Databases.\n${frontmatter}\n---\nBody.\n`,
  folder: { files: [], kind: () => 'missing' },
})

describe('triggers', () => {
  it('normalises context_trigger', () => {
    const skill = compile('context_trigger:\n  paths: ["*.sql", "supabase/**"]\n  topics: [database, " schema migration "]\n  projects: ["E##"]\n  always_active: false')
    expect(skill.diagnostics).toEqual([])
    expect(skill.triggers).toEqual({ paths: ['*.sql', 'supabase/**'], topics: ['database', 'schema migration'], projects: ['E##'], alwaysActive: false })
  })

  it('reads Claude Code\'s top-level paths as a list or a comma-separated string', () => {
    expect(compile('paths: "src/db/**, *.sql"').triggers).toEqual({ paths: ['src/db/**', '*.sql'], topics: [], projects: [], alwaysActive: false })
    expect(compile('paths:\n  - migrations/**').triggers?.paths).toEqual(['migrations/**'])
  })

  it('is null without triggers, and always_active alone is valid', () => {
    expect(compile('license: MIT').triggers).toBeNull()
    expect(compile('context_trigger:\n  always_active: true').triggers).toEqual({ paths: [], topics: [], projects: [], alwaysActive: true })
  })

  it.each([
    ['*.sql', undefined],
    ['\\#literal', undefined],
    ['src/[abc].ts', undefined],
    ['!keep.sql', undefined],
    ['/anchored/**', undefined],
    ['#comment', /comment/],
    ['trailing\\', /lone backslash/],
    ['a/../b', /\.\./],
    ['C:\\repo\\x', /Windows/],
    ['[abc', /without a closing/],
    ['!', /matches nothing/],
  ])('globProblem(%s)', (glob, problem) => {
    if (problem === undefined)
      expect(globProblem(glob)).toBeUndefined()
    else expect(globProblem(glob)).toMatch(problem)
  })
})
