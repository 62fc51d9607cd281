import { describe, expect, it } from 'vitest'
import { canonicalId, parseSkillId } from '../../../src/plugin/skills/ids'

describe('parseSkillId', () => {
  it.each([
    ['/a/SKILL.md', { kind: 'skill' }],
    ['/a/SKILL.md?cover', { kind: 'cover' }],
    ['/a/SKILL.md?sections', { kind: 'sections' }],
    ['/a/SKILL.md?meta', { kind: 'meta' }],
    ['/a/SKILL.md?section=core-tools', { kind: 'section', id: 'core-tools' }],
    ['/a/SKILL.md?section=core-tools&section', { kind: 'section', id: 'core-tools' }],
    ['/a/SKILL.md?cover&t=1700000000', { kind: 'cover' }],
    ['/a/SKILL.md?import&cover', { kind: 'cover' }],
  ])('%s', (id, query) => {
    expect(parseSkillId(id)).toEqual({ file: '/a/SKILL.md', query })
  })

  it('leaves other plugins\' queries and files alone', () => {
    expect(parseSkillId('/a/SKILL.md?raw')).toBeUndefined()
    expect(parseSkillId('/a/SKILL.md?cover&url')).toBeUndefined()
    expect(parseSkillId('/a/main.js')).toBeUndefined()
  })

  it('explains conflicting or empty queries', () => {
    expect(parseSkillId('/a/SKILL.md?cover&meta')?.query).toEqual({ kind: 'invalid', reason: 'Use one skill query at a time; this import has ?cover&meta.' })
    expect(parseSkillId('/a/SKILL.md?section=')?.query).toMatchObject({ kind: 'invalid' })
  })

  it('round-trips the canonical spelling', () => {
    const id = canonicalId('/a/SKILL.md', { kind: 'section', id: 'a b' })
    expect(id).toBe('/a/SKILL.md?section=a%20b')
    expect(parseSkillId(id)?.query).toEqual({ kind: 'section', id: 'a b' })
  })
})
