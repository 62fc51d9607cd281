import { describe, expect, it } from 'vitest'
import { createActivation } from '../../../src/runtime'
import { registrySkill } from '../../support/registry-skill'

// The strict form of context_trigger (flat string keys under metadata, which
// the Agent Skills reference validator accepts) activates skills exactly as
// the mapping form does.
const POSTGRES = `---
name: postgres-migrations
description: Write and review PostgreSQL schema migrations safely.
metadata:
  context_trigger.paths: "supabase/**, *.sql"
  context_trigger.topics: database, schema migration
---

Never edit an applied migration.
`

const ACADEMIC = `---
name: academic-delivery
description: Deliver academic engagements.
metadata:
  context_trigger.projects: "A##"
---

Cite in APA 7th edition.
`

const ALWAYS = `---
name: context-compactor
description: Summarise a long session into a handover note.
metadata:
  context_trigger.topics: compact
  context_trigger.always_active: "true"
---

Write the handover note.
`

function session() {
  const skills = [registrySkill('postgres-migrations', POSTGRES), registrySkill('academic-delivery', ACADEMIC), registrySkill('context-compactor', ALWAYS)]
  const logs: string[] = []
  const activation = createActivation(skills, { cwd: '/repo', log: line => logs.push(line) })
  return { activation, logs }
}

describe('context_trigger under metadata', () => {
  it('starts dormant, and always_active "true" starts active', () => {
    const { activation, logs } = session()
    expect(activation.active.map(s => s.name)).toEqual(['context-compactor'])
    expect(activation.dormant.map(s => s.name)).toEqual(['postgres-migrations', 'academic-delivery'])
    expect(logs).toEqual([])
  })

  it('activates on a touched path, a topic and a project code', () => {
    const { activation, logs } = session()
    const byPath = activation.observePaths(['/repo/supabase/migrations/001_init.sql'])
    expect(byPath.map(a => [a.skill.name, a.trigger])).toEqual([['postgres-migrations', { kind: 'paths', value: 'supabase/**', matched: 'supabase/migrations/001_init.sql' }]])
    expect(activation.observeContext('Working on A07 this week.').map(a => [a.skill.name, a.trigger])).toEqual([['academic-delivery', { kind: 'projects', value: 'A##', matched: 'A07' }]])
    expect(logs).toEqual([
      `[skills] Activated conditional skill 'postgres-migrations' (matched: paths: supabase/**)`,
      `[skills] Activated conditional skill 'academic-delivery' (matched: projects: A##)`,
    ])
    expect(activation.listing()).toBe([
      '- context-compactor: Summarise a long session into a handover note.',
      '- postgres-migrations: Write and review PostgreSQL schema migrations safely.',
      '- academic-delivery: Deliver academic engagements.',
    ].join('\n'))
  })

  it('activates on a topic in a message', () => {
    const { activation } = session()
    const activated = activation.observeMessage('Can you plan the schema migration for orders?')
    expect(activated.map(a => [a.skill.name, a.trigger])).toEqual([['postgres-migrations', { kind: 'topics', value: 'schema migration', matched: 'schema migration' }]])
  })
})
