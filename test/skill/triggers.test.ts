import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileSkill } from '../../src/skill/compile'
import { SkillLoader } from '../../src/skill/load'
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

  it('reads the strict form under metadata as the mapping form', () => {
    const strict = compile('metadata:\n  context_trigger.paths: "*.sql, supabase/**"\n  context_trigger.topics: "database,  schema migration , "\n  context_trigger.projects: "E##"\n  context_trigger.always_active: "false"')
    expect(strict.diagnostics).toEqual([])
    expect(strict.triggers).toEqual({ paths: ['*.sql', 'supabase/**'], topics: ['database', 'schema migration'], projects: ['E##'], alwaysActive: false })
    expect(compile('metadata:\n  context_trigger.always_active: "true"').triggers).toEqual({ paths: [], topics: [], projects: [], alwaysActive: true })
  })

  it('reads progressive and resources under metadata, with the same cover and bundled files', () => {
    const fixtures = join(import.meta.dirname, 'fixtures/targets')
    const { compiled } = new SkillLoader().load(join(fixtures, 'strict-form/SKILL.md'))
    expect(compiled.diagnostics).toEqual([])
    expect(compiled.mode).toBe('progressive')
    expect(compiled.resources).toEqual(['scripts/run.py'])
    expect(compiled.sections.map(s => s.id)).toEqual(['rules', 'writing'])
    const mapping = compileSkill({
      file: compiled.file,
      source: compiled.source.replace(/^metadata:\n(?: {2}.*\n)+/m, 'progressive:\n  always:\n    - rules\nresources:\n  - scripts/run.py\n'),
      folder: { files: ['scripts/run.py'], kind: () => 'file' },
    })
    expect(mapping.diagnostics).toEqual([])
    expect(compiled.cover).toBe(mapping.cover)
    expect(compiled.resources).toEqual(mapping.resources)
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
