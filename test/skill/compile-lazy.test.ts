import { beforeEach, describe, expect, it, vi } from 'vitest'
import { compileSkill } from '../../src/skill/compile'

// The full YAML parser costs ten times the plain-frontmatter reader: it must
// run only when a diagnostic needs a position (bench/RESULTS.md, issue 25).
const parsed = vi.hoisted(() => ({ documents: 0 }))
vi.mock('yaml', async (original) => {
  const yaml = await original<typeof import('yaml')>()
  return {
    ...yaml,
    parseDocument: (...args: Parameters<typeof yaml.parseDocument>) => {
      parsed.documents++
      return yaml.parseDocument(...args)
    },
  }
})

const folder = { files: ['scripts/run.py'], kind: (path: string) => path === 'scripts/run.py' ? 'file' as const : 'missing' as const }
const compile = (frontmatter: string, body = '## Rules {#rules}\n\nKeep it short.\n\n## Setup {#setup}\n\nRun it.\n') =>
  compileSkill({ file: '/skills/demo/SKILL.md', source: `---\nname: demo\ndescription: A demo skill.\n${frontmatter}---\n\n# Demo\n\n${body}`, folder })

beforeEach(() => {
  parsed.documents = 0
})

describe('plain frontmatter is read without the full YAML parser', () => {
  it('progressive.always as a block list, a flow list and a mapping of a flow list', () => {
    for (const frontmatter of ['progressive:\n  always:\n    - rules\n    - setup\n', 'progressive:\n  always: [rules, setup]\n', 'progressive: { always: [rules, setup] }\n']) {
      const skill = compile(frontmatter)
      expect(skill.diagnostics).toEqual([])
      expect(skill.mode).toBe('progressive')
      expect(skill.cover).toContain('Keep it short.')
    }
    expect(parsed.documents).toBe(0)
  })

  it('the metadata form: progressive, progressive.always, resources and triggers', () => {
    const skill = compile('metadata:\n  progressive: "true"\n  progressive.always: rules, setup\n  resources: scripts/run.py\n  context_trigger.topics: demo, schema migration\n')
    expect(skill.diagnostics).toEqual([])
    expect(skill.resources).toEqual(['scripts/run.py'])
    expect(skill.triggers?.topics).toEqual(['demo', 'schema migration'])
    expect(parsed.documents).toBe(0)
  })

  it('positions are still found when a diagnostic needs one', () => {
    const listed = compile('progressive:\n  always: [rules, nope]\n')
    expect(listed.diagnostics.map(d => [d.code, d.line, d.column])).toEqual([['always-unknown-id', 5, 19]])
    const flat = compile('metadata:\n  progressive.always: rules, nope\n  resources: scripts/run.py, missing.py\n')
    expect(flat.diagnostics.map(d => [d.code, d.line, d.column])).toEqual([['always-unknown-id', 5, 30], ['resource-missing', 6, 30]])
    expect(parsed.documents).toBe(2)
  })
})
