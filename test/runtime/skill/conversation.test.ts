import type { CompileOptions } from '../../../src/skill/compile'
import type { RegistrySkill, SkillToolArgs } from '../../../src/runtime'
import { describe, expect, it } from 'vitest'
import { createActivation, createSkillTool } from '../../../src/runtime'
import { registrySkill as makeRegistrySkill } from '../../support/registry-skill'
import { ACADEMIC, CODE_REVIEW, RELEASE_NOTES } from '../../support/skill-sources'

/*
 * One agent session, turn by turn: the user's messages, the files the agent
 * touches and the project's active-context document feed the real activation;
 * the skill tool follows it (its description lists the active skills) and
 * activates the dormant skills the agent loads by name.
 */

const ROOT = '/repo'

function registrySkill(name: string, source: string, options: CompileOptions = {}): RegistrySkill {
  return makeRegistrySkill(name, source, { ...options, folder: '.skills' })
}

// Always listed: always_active overrides its topics.
const CONTEXT_COMPACTOR = `---
name: context-compactor
description: Summarise a long session into a handover note when the context fills up.
context_trigger:
  topics:
    - compact
  always_active: true
---

Write the handover note as: goal, decisions, open questions, next step.
`

// Dormant until a .sql file or supabase/ is touched, or the conversation turns to databases.
const POSTGRES = `---
name: postgres-migrations
description: Write and review PostgreSQL schema migrations safely.
context_trigger:
  paths:
    - "supabase/**"
    - "*.sql"
  topics:
    - database
    - schema migration
progressive:
  always:
    - safety-rules
---

# PostgreSQL migrations

Migrations live in \`supabase/migrations/\` and run in file name order.

## Safety rules {#safety-rules}

- Never edit a migration that has been applied; write a new one.
- Back up every table a destructive change touches.

## Writing a migration {#writing}

Name files \`YYYYMMDDHHMMSS_short_description.sql\`.

### Examples {#writing-examples}

\`\`\`sql
alter table invoices add column due_date date;
\`\`\`

## Indexes {#indexes}

Create indexes concurrently on large tables, outside a transaction.

### Examples {#index-examples}

\`\`\`sql
create index concurrently invoices_due_date_idx on invoices (due_date);
\`\`\`
`

// Dormant until SEO comes up; a regular skill.
const SEO = `---
name: seo-auditor
description: Audit a web page for search ranking problems - titles, meta descriptions, headings and sitemaps.
context_trigger:
  topics:
    - seo
    - search ranking
  paths:
    - public/robots.txt
---

Check, in order: the title (under 60 characters), the meta description, one h1, canonical URL, sitemap entry.
`

const ACTIVE_CONTEXT = `# Active context

## Current focus
- E07 trading journal: invoices export (billing dashboard)
- A12 thesis: chapter 3 draft due Friday

## Recently closed
- Z99 onboarding revamp
`

function session() {
  const registry = [
    registrySkill('code-review', CODE_REVIEW),
    registrySkill('context-compactor', CONTEXT_COMPACTOR),
    registrySkill('postgres-migrations', POSTGRES),
    registrySkill('academic-delivery', ACADEMIC),
    registrySkill('seo-auditor', SEO),
    registrySkill('release-notes', RELEASE_NOTES, { onInvalid: 'fallback' }),
  ]
  const logs: string[] = []
  const activation = createActivation(registry, { log: (line: string) => logs.push(line) })
  const tool = createSkillTool(registry, { activation })
  /** Log lines written since the last call. */
  const newLogs = () => logs.splice(0)
  const call = (args: SkillToolArgs) => tool.execute(args)
  const listed = () => tool.description.split('\n').filter(line => line.startsWith('- ') && !line.startsWith('- action')).map(line => line.slice(2, line.indexOf(':')))
  const cover = async (name: string) => (await registry.find(s => s.name === name)!.load()).cover
  return { registry, activation, tool, newLogs, call, listed, cover }
}

const names = (activated: readonly { skill: { name: string } }[]) => activated.map(a => a.skill.name)

describe('a session', () => {
  it('activates skills as the conversation goes, and the tool follows', async () => {
    const { activation, tool, newLogs, call, listed, cover } = session()

    // Boot: unconditional and always-active skills only.
    expect(activation.active.map(s => s.name)).toEqual(['code-review', 'context-compactor'])
    expect(activation.dormant.map(s => s.name)).toEqual(['postgres-migrations', 'academic-delivery', 'seo-auditor', 'release-notes'])
    expect(activation.listing()).toBe([
      '- code-review: Review a pull request for correctness, tests and readability.',
      '- context-compactor: Summarise a long session into a handover note when the context fills up.',
    ].join('\n'))
    expect(tool.description.endsWith(`Available skills:\n${activation.listing()}`)).toBe(true)
    expect(newLogs()).toEqual([])

    // Boot: the active-context document names project A12.
    const fromContext = activation.observeContext(ACTIVE_CONTEXT)
    expect(fromContext.map(a => [a.skill.name, a.trigger])).toEqual([['academic-delivery', { kind: 'projects', value: 'A##', matched: 'A12' }]])
    expect(newLogs()).toEqual(['[skills] Activated conditional skill \'academic-delivery\' (matched: projects: A##)'])
    expect(listed()).toEqual(['code-review', 'context-compactor', 'academic-delivery'])

    // Turn 1: a review request; nothing new.
    expect(names(activation.observeMessage('Can you review my pull request for the invoices page?'))).toEqual([])
    expect(newLogs()).toEqual([])
    expect(await call({ action: 'load', skill: 'code-review' })).toEqual({
      isError: false,
      content: '# Code review\n\n1. Read the description and the linked issue first.\n2. Check that every behaviour change has a test.\n3. Leave one comment per problem, with a suggested fix.',
    })

    // Turn 2: the agent opens files; one outside the working folder never matches.
    expect(names(activation.observePaths(['/tmp/scratch/query.sql'], { cwd: ROOT }))).toEqual([])
    const fromPaths = activation.observePaths([`${ROOT}/src/pages/invoices.tsx`, `${ROOT}/supabase/migrations/20260101000000_due_date.sql`], { cwd: ROOT })
    expect(fromPaths.map(a => [a.skill.name, a.trigger])).toEqual([
      ['postgres-migrations', { kind: 'paths', value: 'supabase/**', matched: 'supabase/migrations/20260101000000_due_date.sql' }],
    ])
    expect(newLogs()).toEqual(['[skills] Activated conditional skill \'postgres-migrations\' (matched: paths: supabase/**)'])
    expect(listed()).toEqual(['code-review', 'context-compactor', 'academic-delivery', 'postgres-migrations'])

    // The agent loads the skill it now sees, then reads what it needs.
    const postgresCover = await call({ action: 'load', skill: 'postgres-migrations' })
    expect(postgresCover).toEqual({ isError: false, content: await cover('postgres-migrations') })
    expect(postgresCover.content).toContain('- Never edit a migration that has been applied; write a new one.')
    expect(postgresCover.content.split('\n').slice(-6)).toEqual([
      'Sections you can read on demand:',
      '- safety-rules — Safety rules',
      '- writing — Writing a migration',
      '  - writing-examples — Examples',
      '- indexes — Indexes',
      '  - index-examples — Examples',
    ])
    expect(await call({ action: 'read_section', skill: 'postgres-migrations', heading: 'examples' })).toEqual({
      isError: true,
      content: 'Several sections of "postgres-migrations" have the heading "examples": writing-examples, index-examples. Pass one of these IDs as section_id instead.',
    })
    expect(await call({ action: 'read_section', skill: 'postgres-migrations', section_id: 'writing-examples' })).toEqual({
      isError: false,
      content: '### Examples {#writing-examples}\n\n```sql\nalter table invoices add column due_date date;\n```',
    })
    expect(await call({ action: 'read_section', skill: 'postgres-migrations', section_id: 'index-examples', offset: 3, limit: 1 })).toEqual({
      isError: false,
      content: 'create index concurrently invoices_due_date_idx on invoices (due_date);',
    })
    // A database message now: the skill is already active, nothing is logged twice.
    expect(names(activation.observeMessage('Is this database schema migration safe to run?'))).toEqual([])
    expect(newLogs()).toEqual([])

    // Turn 3: the agent asks for a skill it does not see, by name: it activates.
    expect(activation.isActive('release-notes')).toBe(false)
    const notes = await call({ action: 'load', skill: 'release-notes' })
    expect(notes).toEqual({
      isError: false,
      content: '## Gather changes {#gather}\n\nList the pull requests merged since the last tag.\n\n## Write the notes\n\nGroup them under Features, Fixes and Breaking changes.',
    })
    expect(activation.isActive('release-notes')).toBe(true)
    expect(newLogs()).toEqual(['[skills] Activated conditional skill \'release-notes\' (matched: load: release-notes)'])
    expect(listed()).toEqual(['code-review', 'context-compactor', 'academic-delivery', 'postgres-migrations', 'release-notes'])
    // It is a fallback skill: sections cannot be read, and the agent is told why.
    expect(await call({ action: 'read_section', skill: 'release-notes', section_id: 'gather' })).toEqual({
      isError: true,
      content: 'Skill "release-notes" failed validation (section-id-missing: Level-2 heading "Write the notes" has no section ID. Add {#write-the-notes} at the end of the heading line.) and loaded in fallback mode: read_section is unavailable, and loading it returns the whole body. Call the skill tool with action "load" and skill "release-notes" instead.',
    })
    // Its topics no longer matter.
    expect(names(activation.observeMessage('Update the changelog too.'))).toEqual([])
    expect(newLogs()).toEqual([])

    // Turn 4: a typo, then a skill that does not exist: the available names are the listed ones.
    expect(await call({ action: 'load', skill: 'seo-audit' })).toEqual({
      isError: true,
      content: 'Unknown skill "seo-audit". Did you mean "seo-auditor"? Available skills: code-review, context-compactor, academic-delivery, postgres-migrations, release-notes.',
    })
    expect(activation.isActive('seo-auditor')).toBe(false)
    expect(newLogs()).toEqual([])

    // Turn 5: SEO comes up, on a word boundary and in any case.
    expect(names(activation.observeMessage('Search engines: is the SEOs fine?'))).toEqual([])
    const fromMessage = activation.observeMessage('Before the release, run an SEO check on the landing page.')
    expect(fromMessage.map(a => [a.skill.name, a.trigger])).toEqual([['seo-auditor', { kind: 'topics', value: 'seo', matched: 'SEO' }]])
    expect(newLogs()).toEqual(['[skills] Activated conditional skill \'seo-auditor\' (matched: topics: seo)'])
    expect(await call({ action: 'read_section', skill: 'seo-auditor', heading: 'Title' })).toEqual({
      isError: true,
      content: 'Skill "seo-auditor" is a regular skill: it has no sections, and loading it returns the whole body. Call the skill tool with action "load" and skill "seo-auditor" instead.',
    })

    // The end: every skill is listed, in activation order.
    expect(activation.dormant).toEqual([])
    expect(activation.listing()).toBe([
      '- code-review: Review a pull request for correctness, tests and readability.',
      '- context-compactor: Summarise a long session into a handover note when the context fills up.',
      '- academic-delivery: Deliver academic engagements - citation style, formatting and the submission checklist.',
      '- postgres-migrations: Write and review PostgreSQL schema migrations safely.',
      '- release-notes: Draft release notes from merged pull requests.',
      '- seo-auditor: Audit a web page for search ranking problems - titles, meta descriptions, headings and sitemaps.',
    ].join('\n'))
    expect(tool.description.endsWith(`Available skills:\n${activation.listing()}`)).toBe(true)
  })

  it('reads a dormant skill\'s section by name, which activates it', async () => {
    const { activation, newLogs, call, listed } = session()
    expect(await call({ action: 'read_section', skill: 'academic-delivery', section_id: 'submission', limit: 2 })).toEqual({
      isError: false,
      content: '## Submission checklist {#submission}\n',
    })
    expect(activation.isActive('academic-delivery')).toBe(true)
    expect(newLogs()).toEqual(['[skills] Activated conditional skill \'academic-delivery\' (matched: load: academic-delivery)'])
    expect(listed()).toEqual(['code-review', 'context-compactor', 'academic-delivery'])
    // Once active, a project code in the context changes nothing.
    expect(activation.observeContext(ACTIVE_CONTEXT)).toEqual([])
    expect(newLogs()).toEqual([])
  })

  it('keeps unknown skills and bad calls from activating anything', async () => {
    const { activation, newLogs, call } = session()
    expect(await call({ action: 'load', skill: 'postgres' })).toEqual({
      isError: true,
      content: 'Unknown skill "postgres". Available skills: code-review, context-compactor.',
    })
    expect(await call({ action: 'open' as 'load', skill: 'postgres-migrations' })).toMatchObject({ isError: true })
    expect(activation.active.map(s => s.name)).toEqual(['code-review', 'context-compactor'])
    expect(newLogs()).toEqual([])
  })

  it('lists within a budget: names always stay, descriptions go from the most recently activated back', async () => {
    const { activation, tool, call } = session()
    activation.observeContext(ACTIVE_CONTEXT)
    activation.observeMessage('Check the SEO and the database schema.')
    const full = activation.listing()
    expect(full).toBe([
      '- code-review: Review a pull request for correctness, tests and readability.',
      '- context-compactor: Summarise a long session into a handover note when the context fills up.',
      '- academic-delivery: Deliver academic engagements - citation style, formatting and the submission checklist.',
      '- postgres-migrations: Write and review PostgreSQL schema migrations safely.',
      '- seo-auditor: Audit a web page for search ranking problems - titles, meta descriptions, headings and sitemaps.',
    ].join('\n'))
    expect(full).toHaveLength(468)
    expect(activation.listing({ budgetChars: 468 })).toBe(full)
    // One message activated two skills: they join in skill order.
    expect(activation.listing({ budgetChars: 400 })).toBe(full.replace(/^- seo-auditor: .*$/m, '- seo-auditor'))
    expect(activation.listing({ budgetChars: 300 })).toBe([
      '- code-review: Review a pull request for correctness, tests and readability.',
      '- context-compactor: Summarise a long session into a handover note when the context fills up.',
      '- academic-delivery',
      '- postgres-migrations',
      '- seo-auditor',
    ].join('\n'))
    // Too small for anything but the names: the names stay anyway.
    expect(activation.listing({ budgetChars: 10 })).toBe('- code-review\n- context-compactor\n- academic-delivery\n- postgres-migrations\n- seo-auditor')
    // The tool's description lists every active skill in full; a listed name is enough to load it.
    expect(tool.description.endsWith(full)).toBe(true)
    expect((await call({ action: 'load', skill: 'seo-auditor' })).content).toMatch(/^Check, in order: the title/)

    const stats = activation.stats()
    expect(stats).toMatchObject({ skills: 6, active: 5, dormant: 1 })
    expect(stats.listingTokens).toBe(Math.ceil(468 / 4))
    expect(stats.savedTokens).toBe(stats.allTokens - stats.listingTokens)
    expect(stats.savedTokens).toBeGreaterThan(0)
  })
})
