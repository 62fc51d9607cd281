import type { Activated, Activation, RegistrySkill, SkillToolArgs } from '../../../src/runtime'
import { describe, expect, it } from 'vitest'
import { createSkillTool, listingLine } from '../../../src/runtime'
import { compileSkill } from '../../../src/skill/compile'
import { registrySkill } from '../../support/registry-skill'
import { ACADEMIC, CODE_REVIEW, RELEASE_NOTES } from '../../support/skill-sources'

const ROOT = '/project'

const POSTGRES = `---
name: postgres-migrations
description: Write and review PostgreSQL schema migrations safely. Use for database schema changes, SQL migrations and Supabase projects.
context_trigger:
  paths:
    - "*.sql"
    - "supabase/**"
  topics:
    - database
    - migration
    - schema
progressive:
  always:
    - safety-rules
---

# PostgreSQL migrations

Migrations live in \`supabase/migrations/\` and run in file name order.

## Safety rules {#safety-rules}

- Never edit a migration that has been applied; write a new one.
- Wrap each migration in a transaction unless it uses CREATE INDEX CONCURRENTLY.
- Back up every table a destructive change touches.

## Writing a migration {#writing}

Name files \`YYYYMMDDHHMMSS_short_description.sql\`.
One concern per file: a table, its constraints and its grants.

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

## Rolling back {#rollback}

Write the down migration in the same pull request as the up one.
Test it against a copy of production before merging.
`

const compiled = {
  postgres: compileSkill({ file: `${ROOT}/skills/postgres-migrations/SKILL.md`, source: POSTGRES, folder: { files: [], kind: () => 'missing' } }),
}

function makeRegistry() {
  return [
    registrySkill('code-review', CODE_REVIEW),
    registrySkill('postgres-migrations', POSTGRES),
    registrySkill('release-notes', RELEASE_NOTES, { onInvalid: 'fallback' }),
    registrySkill('academic-delivery', ACADEMIC),
  ]
}

const section = (id: string) => compiled.postgres.sections.find(s => s.id === id)!.content

/** Calls the tool with arguments as an agent's JSON may carry them, typed or not. */
const call = (tool: ReturnType<typeof createSkillTool>, args: unknown) => tool.execute(args as SkillToolArgs)

const INTRO = [
  'Load an agent skill, or read one section of a progressive skill.',
  '- action "load": returns the skill\'s cover. A progressive skill\'s cover holds its always-on rules and an index of section IDs; other skills return their whole body.',
  '- action "read_section": returns one section of a progressive skill, by section_id (from the cover\'s index) or, without one, by heading text (case-insensitive); offset and limit read a range of the section\'s lines.',
].join('\n')

describe('the registry built from real skills', () => {
  it('compiles each skill in the intended mode, with its triggers', () => {
    const [review, postgres, notes, academic] = makeRegistry()
    expect([review!.mode, postgres!.mode, notes!.mode, academic!.mode]).toEqual(['regular', 'progressive', 'fallback', 'progressive'])
    expect(review!.triggers).toBeNull()
    expect(postgres!.triggers).toEqual({ paths: ['*.sql', 'supabase/**'], topics: ['database', 'migration', 'schema'], projects: [], alwaysActive: false })
    expect(academic!.triggers?.projects).toEqual(['A##'])
    expect(postgres!.sections.map(s => s.id)).toEqual(['safety-rules', 'writing', 'writing-examples', 'indexes', 'index-examples', 'rollback'])
    expect(postgres!.file).toBe('skills/postgres-migrations/SKILL.md')
  })
})

describe('the tool definition', () => {
  const tool = createSkillTool(makeRegistry())

  it('is named skill and takes a JSON Schema usable as is', () => {
    expect(tool.name).toBe('skill')
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['load', 'read_section'], description: '"load" returns the skill\'s cover; "read_section" returns one section of a progressive skill.' },
        skill: { type: 'string', description: 'The skill\'s name, as listed in the tool description.' },
        section_id: { type: 'string', description: 'read_section: the section ID from the cover\'s index, e.g. "core-tools".' },
        heading: { type: 'string', description: 'read_section: the section\'s heading text, case-insensitive, when no section_id is given. IDs are more reliable.' },
        offset: { type: 'integer', minimum: 0, description: 'read_section: lines of the section to skip (default 0).' },
        limit: { type: 'integer', minimum: 0, description: 'read_section: most lines to return (default: the whole section).' },
      },
      required: ['action', 'skill'],
      additionalProperties: false,
    })
    expect(JSON.parse(JSON.stringify(tool.parameters))).toEqual(tool.parameters)
    // Every property is described, for the model's sake.
    expect(Object.values(tool.parameters.properties).every(p => p.description.length > 20)).toBe(true)
  })

  it('describes both actions and lists every skill without an activation', () => {
    expect(tool.description).toBe(`${INTRO}

Available skills:
- code-review: Review a pull request for correctness, tests and readability.
- postgres-migrations: Write and review PostgreSQL schema migrations safely. Use for database schema changes, SQL migrations and Supabase projects.
- release-notes: Draft release notes from merged pull requests.
- academic-delivery: Deliver academic engagements - citation style, formatting and the submission checklist.`)
  })

  it('says so when there are no skills', async () => {
    const empty = createSkillTool([])
    expect(empty.description).toBe(`${INTRO}\n\nNo skills are available yet.`)
    expect(await call(empty, { action: 'load', skill: 'code-review' })).toEqual({ isError: true, content: 'Unknown skill "code-review": no skills are available.' })
  })

  it('gives each tool its own parameters object', () => {
    expect(createSkillTool([]).parameters).not.toBe(tool.parameters)
  })
})

describe('load', () => {
  it('returns a progressive skill\'s cover: hint, preamble, always-on sections and the index', async () => {
    const tool = createSkillTool(makeRegistry())
    const result = await call(tool, { action: 'load', skill: 'postgres-migrations' })
    expect(result).toEqual({ isError: false, content: compiled.postgres.cover })
    expect(result.content).toContain('# PostgreSQL migrations')
    expect(result.content).toContain(section('safety-rules'))
    expect(result.content).not.toContain('Write the down migration')
    expect(result.content.split('\n').slice(-7)).toEqual([
      'Sections you can read on demand:',
      '- safety-rules — Safety rules',
      '- writing — Writing a migration',
      '  - writing-examples — Examples',
      '- indexes — Indexes',
      '  - index-examples — Examples',
      '- rollback — Rolling back',
    ])
  })

  it('returns a regular skill\'s whole body', async () => {
    const tool = createSkillTool(makeRegistry())
    expect(await call(tool, { action: 'load', skill: 'code-review' })).toEqual({
      isError: false,
      content: [
        '# Code review',
        '',
        '1. Read the description and the linked issue first.',
        '2. Check that every behaviour change has a test.',
        '3. Leave one comment per problem, with a suggested fix.',
      ].join('\n'),
    })
  })

  it('returns a fallback skill\'s whole body', async () => {
    const tool = createSkillTool(makeRegistry())
    const result = await call(tool, { action: 'load', skill: 'release-notes' })
    expect(result.isError).toBe(false)
    expect(result.content).toBe([
      '## Gather changes {#gather}',
      '',
      'List the pull requests merged since the last tag.',
      '',
      '## Write the notes',
      '',
      'Group them under Features, Fixes and Breaking changes.',
    ].join('\n'))
  })

  it('ignores the read_section arguments', async () => {
    const tool = createSkillTool(makeRegistry())
    expect(await call(tool, { action: 'load', skill: 'postgres-migrations', section_id: 'rollback', offset: 3 })).toEqual({ isError: false, content: compiled.postgres.cover })
  })

  it('finds a skill whose name differs only in case', async () => {
    const tool = createSkillTool(makeRegistry())
    expect(await call(tool, { action: 'load', skill: 'Code-Review' })).toMatchObject({ isError: false, content: expect.stringMatching(/^# Code review/) })
    expect(await call(tool, { action: 'load', skill: '  code-review ' })).toMatchObject({ isError: false })
  })

  it('reports a load that rejects, with its message', async () => {
    const [review] = makeRegistry()
    const broken: RegistrySkill = { ...review!, load: () => Promise.reject(new Error('Failed to fetch dynamically imported module: /assets/code-review-3f2a.js')) }
    const tool = createSkillTool([broken])
    expect(await call(tool, { action: 'load', skill: 'code-review' })).toEqual({
      isError: true,
      content: 'Skill "code-review" could not be loaded: Failed to fetch dynamically imported module: /assets/code-review-3f2a.js',
    })
    // The reason for a regular skill does not need the loaded skill.
    expect(await call(tool, { action: 'read_section', skill: 'code-review', section_id: 'x' })).toEqual({
      isError: true,
      content: 'Skill "code-review" is a regular skill: it has no sections to read, and loading it returns the whole body. Call the skill tool with action "load" and skill "code-review" instead.',
    })
  })

  it('reports loads that throw synchronously or reject with a non-error', async () => {
    const [, postgres] = makeRegistry()
    const throwing: RegistrySkill = { ...postgres!, load: () => { throw new TypeError('loader is not a function') } }
    const rejecting: RegistrySkill = { ...postgres!, name: 'other', load: () => Promise.reject('chunk timeout') }
    const tool = createSkillTool([throwing, rejecting])
    expect(await call(tool, { action: 'load', skill: 'postgres-migrations' })).toEqual({ isError: true, content: 'Skill "postgres-migrations" could not be loaded: loader is not a function' })
    expect(await call(tool, { action: 'read_section', skill: 'other', section_id: 'rollback' })).toEqual({ isError: true, content: 'Skill "other" could not be loaded: chunk timeout' })
  })
})

describe('read_section', () => {
  const tool = createSkillTool(makeRegistry())

  it('reads a section by ID, a level-2 section with its level-3 sections', async () => {
    const result = await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'writing' })
    expect(result).toEqual({ isError: false, content: section('writing') })
    expect(result.content).toBe([
      '## Writing a migration {#writing}',
      '',
      'Name files `YYYYMMDDHHMMSS_short_description.sql`.',
      'One concern per file: a table, its constraints and its grants.',
      '',
      '### Examples {#writing-examples}',
      '',
      '```sql',
      'alter table invoices add column due_date date;',
      '```',
    ].join('\n'))
  })

  it('reads a level-3 section alone', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'index-examples' })).toEqual({
      isError: false,
      content: '### Examples {#index-examples}\n\n```sql\ncreate index concurrently invoices_due_date_idx on invoices (due_date);\n```',
    })
  })

  it('reads an always-on section too', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'academic-delivery', section_id: 'house-style' })).toEqual({
      isError: false,
      content: '## House style {#house-style}\n\n- Cite in APA 7th edition.\n- British spelling throughout.',
    })
  })

  it('reads by heading, case-insensitively, even quoted with its # and {#id}', async () => {
    for (const heading of ['Rolling back', 'ROLLING BACK', '  rolling   back ', '## Rolling back {#rollback}'])
      expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', heading })).toEqual({ isError: false, content: section('rollback') })
  })

  it('takes an ID given as heading, and a unique heading given as section_id', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', heading: 'rollback' })).toEqual({ isError: false, content: section('rollback') })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'Writing a migration' })).toEqual({ isError: false, content: section('writing') })
  })

  it('prefers section_id over heading', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'indexes', heading: 'Rolling back' })).toEqual({ isError: false, content: section('indexes') })
  })

  it('reads a range of lines with offset and limit', async () => {
    const lines = section('writing').split('\n')
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'writing', offset: 2, limit: 2 })).toEqual({ isError: false, content: lines.slice(2, 4).join('\n') })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'writing', offset: 8 })).toEqual({ isError: false, content: 'alter table invoices add column due_date date;\n```' })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', heading: 'writing a migration', limit: 1 })).toEqual({ isError: false, content: '## Writing a migration {#writing}' })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'writing', offset: 0, limit: 100 })).toEqual({ isError: false, content: section('writing') })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'writing', limit: 0 })).toEqual({ isError: false, content: '' })
  })

  it('reads as Skill.readSection does with the same range', async () => {
    const [, postgres] = makeRegistry()
    for (const [offset, limit] of [[0, 3], [4, undefined], [1, 1]] as const) {
      const expected = await postgres!.readSection('writing', { offset, limit })
      expect((await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'writing', offset, limit })).content).toBe(expected)
    }
  })

  it('reads null arguments as absent, as strict tool schemas send them', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'rollback', heading: null, offset: null, limit: null })).toEqual({ isError: false, content: section('rollback') })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: '', heading: 'Indexes' })).toEqual({ isError: false, content: section('indexes') })
  })
})

describe('errors the agent can act on', () => {
  const tool = createSkillTool(makeRegistry())
  const IDS = 'Section IDs of "postgres-migrations": safety-rules, writing, writing-examples, indexes, index-examples, rollback.'

  it('unknown skill: the closest names, and the available ones', async () => {
    expect(await call(tool, { action: 'load', skill: 'postgres-migration' })).toEqual({
      isError: true,
      content: 'Unknown skill "postgres-migration". Did you mean "postgres-migrations"? Available skills: code-review, postgres-migrations, release-notes, academic-delivery.',
    })
    expect(await call(tool, { action: 'read_section', skill: 'code-reveiw', section_id: 'x' })).toEqual({
      isError: true,
      content: 'Unknown skill "code-reveiw". Did you mean "code-review"? Available skills: code-review, postgres-migrations, release-notes, academic-delivery.',
    })
    expect(await call(tool, { action: 'load', skill: 'kubernetes' })).toEqual({
      isError: true,
      content: 'Unknown skill "kubernetes". Available skills: code-review, postgres-migrations, release-notes, academic-delivery.',
    })
  })

  it('unknown skill: several close names, closest first', async () => {
    const registry = [registrySkill('code-review', CODE_REVIEW), { ...registrySkill('code-review', CODE_REVIEW), name: 'code-reviews' }, { ...registrySkill('code-review', CODE_REVIEW), name: 'node-review' }]
    expect((await call(createSkillTool(registry), { action: 'load', skill: 'code-revie' })).content).toBe(
      'Unknown skill "code-revie". Did you mean "code-review" or "code-reviews" or "node-review"? Available skills: code-review, code-reviews, node-review.',
    )
  })

  it('a missing or empty skill name', async () => {
    expect(await call(tool, { action: 'load' })).toEqual({ isError: true, content: '"skill" must be the name of a skill, e.g. "code-review", "postgres-migrations", "release-notes".' })
    expect(await call(tool, { action: 'load', skill: ' ' })).toMatchObject({ isError: true, content: expect.stringMatching(/^"skill" must be the name of a skill/) })
    expect(await call(tool, { action: 'load', skill: 42 })).toMatchObject({ isError: true, content: expect.stringMatching(/^"skill" must be the name of a skill/) })
  })

  it('a bad action', async () => {
    const expected = (got: string) => ({ isError: true, content: `"action" must be "load" (the skill's cover) or "read_section" (one section by section_id or heading); ${got}.` })
    expect(await call(tool, { action: 'read', skill: 'code-review' })).toEqual(expected('got "read"'))
    expect(await call(tool, { action: 'LOAD', skill: 'code-review' })).toEqual(expected('got "LOAD"'))
    expect(await call(tool, { skill: 'code-review' })).toEqual(expected('no action was given'))
    expect(await call(tool, { action: 1, skill: 'code-review' })).toEqual(expected('got 1'))
  })

  it('arguments that are not an object', async () => {
    for (const args of [undefined, null, 'load code-review', ['load', 'code-review']])
      expect(await call(tool, args)).toEqual({ isError: true, content: 'The skill tool takes an object of arguments, e.g. {"action": "load", "skill": "code-review"}.' })
  })

  it('unknown section ID: the closest IDs, and all of them', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'rolback' })).toEqual({
      isError: true,
      content: `Skill "postgres-migrations" has no section with the ID "rolback". Did you mean "rollback"? ${IDS}`,
    })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'triggers' })).toEqual({
      isError: true,
      content: `Skill "postgres-migrations" has no section with the ID "triggers". ${IDS}`,
    })
  })

  it('unknown heading: the closest headings, and the IDs', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', heading: 'Rolling backs' })).toEqual({
      isError: true,
      content: `Skill "postgres-migrations" has no section with the heading "Rolling backs". Did you mean "Rolling back"? ${IDS} Pass one of them as section_id.`,
    })
  })

  it('ambiguous heading: the IDs of the sections that share it', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', heading: 'examples' })).toEqual({
      isError: true,
      content: 'Several sections of "postgres-migrations" have the heading "examples": writing-examples, index-examples. Pass one of these IDs as section_id instead.',
    })
    // A title shared by several headings given as section_id is no ID either.
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'Examples' })).toEqual({
      isError: true,
      content: `Skill "postgres-migrations" has no section with the ID "Examples". ${IDS}`,
    })
  })

  it('neither section_id nor heading', async () => {
    const expected = { isError: true, content: `read_section needs a section_id (or a heading). ${IDS}` }
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations' })).toEqual(expected)
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: '  ', heading: null })).toEqual(expected)
  })

  it('section_id or heading that is not a string', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 3 })).toEqual({ isError: true, content: '"section_id" must be a string, got 3.' })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', heading: ['Indexes'] })).toEqual({ isError: true, content: '"heading" must be a string, got ["Indexes"].' })
  })

  it('hostile arguments: over-long strings refused before any matching, long values quoted short', async () => {
    const read = (args: Record<string, unknown>) => call(tool, { action: 'read_section', skill: 'postgres-migrations', ...args })
    const refused = (key: string, length: number) => ({ isError: true, content: `"${key}" has ${length} characters; at most 1000 are accepted. Pass a section ID or heading from the skill's cover.` })
    expect(await read({ section_id: `a${' '.repeat(1e5)}b` })).toEqual(refused('section_id', 100_002))
    expect(await read({ heading: '{#'.repeat(3e4) })).toEqual(refused('heading', 60_000))
    expect(await read({ section_id: '{#'.repeat(499) })).toMatchObject({ isError: true, content: expect.stringMatching(/^Skill "postgres-migrations" has no section with the ID "\{#\{#/) })
    expect(await call(tool, { action: 'load', skill: 'x'.repeat(1001) })).toEqual({ isError: true, content: '"skill" has 1001 characters; at most 1000 are accepted. Pass the name of a skill, e.g. "code-review", "postgres-migrations", "release-notes".' })
    expect(await call(tool, { action: 'y'.repeat(500), skill: 'code-review' })).toEqual({
      isError: true,
      content: `"action" must be "load" (the skill's cover) or "read_section" (one section by section_id or heading); got "${'y'.repeat(79)}….`,
    })
  })

  it('read_section on a regular skill: why, and that load returns the whole body', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'code-review', section_id: 'tests' })).toEqual({
      isError: true,
      content: 'Skill "code-review" is a regular skill: it has no sections, and loading it returns the whole body. Call the skill tool with action "load" and skill "code-review" instead.',
    })
    // Even without a section reference, the mode is the problem to report.
    expect((await call(tool, { action: 'read_section', skill: 'code-review' })).content).toMatch(/^Skill "code-review" is a regular skill/)
  })

  it('read_section on a fallback skill: the validation error, and that load returns the whole body', async () => {
    expect(await call(tool, { action: 'read_section', skill: 'release-notes', section_id: 'gather' })).toEqual({
      isError: true,
      content: 'Skill "release-notes" failed validation (section-id-missing: Level-2 heading "Write the notes" has no section ID. Add {#write-the-notes} at the end of the heading line.) and loaded in fallback mode: read_section is unavailable, and loading it returns the whole body. Call the skill tool with action "load" and skill "release-notes" instead.',
    })
  })

  it('read_section on a non-progressive Skill that does not say why', async () => {
    const [review] = makeRegistry()
    const plain: RegistrySkill = { ...review!, mode: 'fallback', load: async () => ({ ...(await review!.load()), mode: 'fallback', readSection: () => '' }) }
    expect(await call(createSkillTool([plain]), { action: 'read_section', skill: 'code-review', section_id: 'x' })).toEqual({
      isError: true,
      content: 'Skill "code-review" failed validation and loaded in fallback mode: it has no sections to read, and loading it returns the whole body. Call the skill tool with action "load" and skill "code-review" instead.',
    })
  })

  it('bad offset or limit: non-negative integers only', async () => {
    const read = (range: object) => call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'writing', ...range })
    expect(await read({ offset: -1 })).toEqual({ isError: true, content: '"offset" must be a non-negative integer, the number of lines to skip (default 0); got -1.' })
    expect(await read({ offset: 1.5 })).toEqual({ isError: true, content: '"offset" must be a non-negative integer, the number of lines to skip (default 0); got 1.5.' })
    expect(await read({ offset: '3' })).toEqual({ isError: true, content: '"offset" must be a non-negative integer, the number of lines to skip (default 0); got "3".' })
    expect(await read({ limit: -5 })).toEqual({ isError: true, content: '"limit" must be a non-negative integer, the most lines to return (omit it for the rest of the section); got -5.' })
    expect(await read({ limit: Number.NaN })).toEqual({ isError: true, content: '"limit" must be a non-negative integer, the most lines to return (omit it for the rest of the section); got NaN.' })
    expect(await read({ limit: Infinity })).toEqual({ isError: true, content: '"limit" must be a non-negative integer, the most lines to return (omit it for the rest of the section); got Infinity.' })
    expect(await read({ limit: true })).toEqual({ isError: true, content: '"limit" must be a non-negative integer, the most lines to return (omit it for the rest of the section); got true.' })
  })

  it('an offset past the end of the section', async () => {
    const length = section('rollback').split('\n').length
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'rollback', offset: length })).toEqual({
      isError: true,
      content: `Section "rollback" of skill "postgres-migrations" has ${length} lines, so offset ${length} is past its end. Use an offset below ${length}.`,
    })
    expect(await call(tool, { action: 'read_section', skill: 'postgres-migrations', section_id: 'rollback', offset: length - 1 })).toEqual({
      isError: false,
      content: 'Test it against a copy of production before merging.',
    })
  })

  it('a section read that throws comes back as an error too', async () => {
    const [, postgres] = makeRegistry()
    const failing: RegistrySkill = { ...postgres!, load: async () => ({ ...(await postgres!.load()), readSection: () => { throw new RangeError('range out of bounds') } }) }
    expect(await call(createSkillTool([failing]), { action: 'read_section', skill: 'postgres-migrations', section_id: 'rollback' })).toEqual({
      isError: true,
      content: 'Reading section "rollback" of skill "postgres-migrations" failed: range out of bounds',
    })
  })

  it('never throws, whatever breaks', async () => {
    const [, postgres] = makeRegistry()
    const activation = { get active(): never { throw new Error('activation state lost') } } as unknown as Activation<RegistrySkill>
    const tool = createSkillTool([postgres!], { activation })
    expect(await call(tool, { action: 'load', skill: 'nope' })).toEqual({ isError: true, content: 'The skill tool failed: activation state lost' })
  })
})

/** A stand-in activation: the tool's contract with it, apart from how triggers match. */
function fakeActivation(skills: readonly RegistrySkill[], activeNames: string[]) {
  const active = skills.filter(s => activeNames.includes(s.name))
  const calls: string[] = []
  const activation: Activation<RegistrySkill> = {
    get active() { return [...active] },
    get dormant() { return skills.filter(s => !active.includes(s)) },
    isActive: name => active.some(s => s.name === name),
    observeMessage: () => [],
    observePaths: () => [],
    observeContext: () => [],
    activate(name) {
      calls.push(name)
      const skill = skills.find(s => s.name === name)
      if (!skill || active.includes(skill))
        return undefined
      active.push(skill)
      return { skill, trigger: { kind: 'load', value: name, matched: name } } satisfies Activated<RegistrySkill>
    },
    listing: () => active.map(listingLine).join('\n'),
    stats: () => ({ skills: skills.length, active: active.length, dormant: skills.length - active.length, allTokens: 0, listingTokens: 0, savedTokens: 0 }),
  }
  return { activation, calls }
}

describe('with an activation', () => {
  it('offers only active skills, in activation order, and follows activation', async () => {
    const registry = makeRegistry()
    const { activation } = fakeActivation(registry, ['code-review'])
    const tool = createSkillTool(registry, { activation })
    expect(tool.description).toBe(`${INTRO}\n\nAvailable skills:\n- code-review: Review a pull request for correctness, tests and readability.`)
    activation.activate('academic-delivery')
    expect(tool.description.split('\n').slice(-3)).toEqual([
      'Available skills:',
      '- code-review: Review a pull request for correctness, tests and readability.',
      '- academic-delivery: Deliver academic engagements - citation style, formatting and the submission checklist.',
    ])
  })

  it('activates a dormant skill the agent loads by name, before loading it', async () => {
    const registry = makeRegistry()
    const { activation, calls } = fakeActivation(registry, ['code-review'])
    const tool = createSkillTool(registry, { activation })
    expect(activation.isActive('postgres-migrations')).toBe(false)
    expect(await call(tool, { action: 'load', skill: 'postgres-migrations' })).toEqual({ isError: false, content: compiled.postgres.cover })
    expect(calls).toEqual(['postgres-migrations'])
    expect(activation.isActive('postgres-migrations')).toBe(true)
    expect(tool.description).toContain('\n- postgres-migrations: Write and review PostgreSQL')
  })

  it('activates a dormant skill read by section, with its canonical name', async () => {
    const registry = makeRegistry()
    const { activation, calls } = fakeActivation(registry, [])
    const tool = createSkillTool(registry, { activation })
    expect(tool.description.endsWith('No skills are available yet.')).toBe(true)
    expect(await call(tool, { action: 'read_section', skill: 'Academic-Delivery', section_id: 'submission' })).toMatchObject({ isError: false, content: expect.stringMatching(/^## Submission checklist/) })
    expect(calls).toEqual(['academic-delivery'])
    expect(tool.description.endsWith('- academic-delivery: Deliver academic engagements - citation style, formatting and the submission checklist.')).toBe(true)
  })

  it('activates a named skill even when the call then fails, and not on unknown skills or bad actions', async () => {
    const registry = makeRegistry()
    const { activation, calls } = fakeActivation(registry, [])
    const tool = createSkillTool(registry, { activation })
    await call(tool, { action: 'read_section', skill: 'release-notes', section_id: 'gather' })
    await call(tool, { action: 'peek', skill: 'code-review' })
    await call(tool, { action: 'load', skill: 'postgres' })
    expect(calls).toEqual(['release-notes'])
  })

  it('suggests dormant skills for a typo but lists only active ones as available', async () => {
    const registry = makeRegistry()
    const { activation } = fakeActivation(registry, ['code-review'])
    const tool = createSkillTool(registry, { activation })
    expect((await call(tool, { action: 'load', skill: 'academic-delivry' })).content).toBe('Unknown skill "academic-delivry". Did you mean "academic-delivery"? Available skills: code-review.')
    const none = createSkillTool(registry, { activation: fakeActivation(registry, []).activation })
    expect((await call(none, { action: 'load', skill: 'kubernetes' })).content).toBe('Unknown skill "kubernetes". Available skills: (none active).')
  })

  it('lists no active skill the registry does not hold', () => {
    const registry = makeRegistry()
    const stranger = { ...registry[0]!, name: 'stranger' }
    const { activation } = fakeActivation([...registry, stranger], ['stranger', 'code-review'])
    expect(createSkillTool(registry, { activation }).description.split('\n').slice(-2)).toEqual(['Available skills:', '- code-review: Review a pull request for correctness, tests and readability.'])
  })
})
