import type { SectionMap } from '../../../src/runtime'
import { describe, expect, it } from 'vitest'
import { readSection, SkillReadError } from '../../../src/runtime'

const sections: SectionMap = {
  rules: { id: 'rules', title: 'Rules', level: 2, parent: null, children: [], content: '## Rules {#rules}\n\n- one\n- two', startLine: 5, endLine: 8 },
}

describe('readSection', () => {
  it('reads by ID, by heading, and a range of lines', () => {
    expect(readSection(sections, 'rules')).toBe('## Rules {#rules}\n\n- one\n- two')
    expect(readSection(sections, ' RULES ', { offset: 2, limit: 1 })).toBe('- one')
  })

  it('a reference that is not a string is a SkillReadError naming the IDs, not a TypeError', () => {
    for (const ref of [123, null, undefined, { id: 'rules' }]) {
      expect(() => readSection(sections, ref as unknown as string)).toThrow(SkillReadError)
      expect(() => readSection(sections, ref as unknown as string)).toThrow(`A section is read by its ID or heading, a string; got ${typeof ref}. Known section IDs: rules.`)
    }
  })
})
