import type { Activated, ActivationSkill, MatchedTrigger, SkillTriggers } from '../../../src/runtime'
import { posix } from 'node:path'
import ignore from 'ignore'
import { describe, expect, it } from 'vitest'
import { createActivation, estimateTokens, listingLine } from '../../../src/runtime'

interface TestSkill extends ActivationSkill {
  triggers?: SkillTriggers | null
}

function triggers(t: Partial<SkillTriggers>): SkillTriggers {
  return { paths: [], topics: [], projects: [], alwaysActive: false, ...t }
}

function skill(name: string, t?: Partial<SkillTriggers> | null, description = `What ${name} does.`): TestSkill {
  return { name, description, triggers: t === undefined ? undefined : t === null ? null : triggers(t) }
}

/** An activation that records its log lines. */
function session(skills: TestSkill[], cwd?: string) {
  const logs: string[] = []
  const activation = createActivation(skills, { log: line => logs.push(line), ...(cwd === undefined ? {} : { cwd }) })
  return { activation, logs }
}

const names = (activated: readonly Activated[]) => activated.map(a => a.skill.name)
const triggerOf = (activated: readonly Activated[]) => activated.map(a => a.trigger)

/** The skill names a topic list activates on a message, in a fresh session. */
function topicMatch(topics: string[], message: string): MatchedTrigger | undefined {
  const { activation } = session([skill('s', { topics })])
  return activation.observeMessage(message)[0]?.trigger
}
const topicMatches = (topics: string[], message: string) => topicMatch(topics, message) !== undefined

function pathMatch(paths: string[], touched: string[], cwd?: string, callCwd?: string): MatchedTrigger | undefined {
  const { activation } = session([skill('s', { paths })], cwd)
  return activation.observePaths(touched, callCwd === undefined ? undefined : { cwd: callCwd })[0]?.trigger
}
const pathMatches = (paths: string[], touched: string, cwd = '/repo') => pathMatch(paths, [touched], cwd) !== undefined

function projectMatch(projects: string[], text: string): MatchedTrigger | undefined {
  const { activation } = session([skill('s', { projects })])
  return activation.observeContext(text)[0]?.trigger
}
const projectMatches = (projects: string[], text: string) => projectMatch(projects, text) !== undefined

describe('createActivation: partition', () => {
  it('starts skills without triggers, with null triggers or always_active as active, the rest dormant, silently', () => {
    const skills = [
      skill('plain'),
      skill('db', { topics: ['database'] }),
      skill('nulled', null),
      skill('always', { topics: ['compact'], alwaysActive: true }),
      skill('seo', { topics: ['seo'] }),
      skill('empty', {}),
    ]
    const { activation, logs } = session(skills)
    expect(activation.active.map(s => s.name)).toEqual(['plain', 'nulled', 'always'])
    expect(activation.dormant.map(s => s.name)).toEqual(['db', 'seo', 'empty'])
    expect(activation.active[0]).toBe(skills[0])
    expect(activation.isActive('plain')).toBe(true)
    expect(activation.isActive('db')).toBe(false)
    expect(activation.isActive('nope')).toBe(false)
    expect(logs).toEqual([])
    // An always-active skill's topics do nothing; a skill with empty triggers only activates by name.
    expect(activation.observeMessage('compact the database')).toMatchObject([{ skill: { name: 'db' } }])
    expect(activation.observeMessage('anything at all')).toEqual([])
    expect(activation.isActive('empty')).toBe(false)
  })

  it('works with no skills at all', () => {
    const { activation } = session([])
    expect(activation.observeMessage('database')).toEqual([])
    expect(activation.observePaths(['a.sql'])).toEqual([])
    expect(activation.observeContext('E07')).toEqual([])
    expect(activation.listing()).toBe('')
    expect(activation.stats()).toEqual({ skills: 0, active: 0, dormant: 0, allTokens: 0, listingTokens: 0, savedTokens: 0 })
  })
})

describe('observeMessage: topics', () => {
  it('matches case-insensitively on word boundaries', () => {
    expect(topicMatch(['database'], 'Is the Database! ok?')).toEqual({ kind: 'topics', value: 'database', matched: 'Database' })
    expect(topicMatches(['database'], 'DATABASE')).toBe(true)
    expect(topicMatches(['database'], '(database)')).toBe(true)
    expect(topicMatches(['database'], 'databases')).toBe(false)
    expect(topicMatches(['database'], 'mydatabase')).toBe(false)
    expect(topicMatches(['database'], 'my_database')).toBe(false)
    expect(topicMatches(['database'], 'database2')).toBe(false)
    expect(topicMatches(['Database'], 'the database')).toBe(true)
    expect(topicMatches(['seo'], 'Search engines: is the SEOs fine?')).toBe(false)
  })

  it('is Unicode-aware: letters, numbers and marks of every script are word characters', () => {
    expect(topicMatch(['café'], 'Le Café, svp')?.matched).toBe('Café')
    expect(topicMatches(['café'], 'la caféteria')).toBe(false)
    expect(topicMatches(['caf'], 'café')).toBe(false)
    // Greek, with accents and final sigma.
    expect(topicMatch(['βάση'], 'Η ΒΆΣΗ δεδομένων')?.matched).toBe('ΒΆΣΗ')
    expect(topicMatches(['βάση'], 'βάσης')).toBe(false)
    expect(topicMatches(['οδος'], 'ΟΔΟΣ')).toBe(true)
    expect(topicMatches(['ΟΔΟΣ'], 'στην οδος.')).toBe(true)
    // Cyrillic.
    expect(topicMatch(['база данных'], 'Нужна БАЗА   ДАННЫХ!')?.matched).toBe('БАЗА   ДАННЫХ')
    expect(topicMatches(['база'], 'базами')).toBe(false)
    // German: a hyphen is a boundary, a compound is one word.
    expect(topicMatches(['datenbank'], 'die Datenbank-Migration')).toBe(true)
    expect(topicMatches(['datenbank'], 'die Datenbankmigration')).toBe(false)
    expect(topicMatches(['migration'], 'die Datenbank-Migration')).toBe(true)
    // Digits of other scripts are word characters too.
    expect(topicMatches(['db'], 'db٣')).toBe(false)
    // Scripts written without spaces are one word: no match inside.
    expect(topicMatches(['数据库'], '数据库迁移')).toBe(false)
    expect(topicMatches(['数据库'], '数据库 迁移')).toBe(true)
  })

  it('treats combining marks as word characters and does not normalise', () => {
    const decomposed = 'cafe\u0301'
    expect(topicMatches(['cafe'], `un ${decomposed}`)).toBe(false)
    expect(topicMatches([decomposed], `UN ${decomposed.toUpperCase()} noir`)).toBe(true)
    expect(topicMatches(['café'], `un ${decomposed}`)).toBe(false)
    expect(topicMatches(['e'], 'e\u0301')).toBe(false)
  })

  it('folds case as Unicode simple case folding does', () => {
    expect(topicMatches(['kelvin'], '\u212Aelvin')).toBe(true) // KELVIN SIGN
    expect(topicMatches(['straße'], 'STRAẞE')).toBe(true) // capital sharp s
    expect(topicMatches(['straße'], 'strasse')).toBe(false) // full folding is not used
    expect(topicMatches(['ǆ'], 'ǅ')).toBe(true) // titlecase digraph
    expect(topicMatches(['𐐨'], '𐐀')).toBe(true) // Deseret, outside the BMP
    expect(topicMatches(['the database'], '𐐨the database')).toBe(false) // a letter outside the BMP is no boundary
    expect(topicMatches(['database𐐨'], 'database𐐨𐐨')).toBe(false)
    expect(topicMatches(['database𐐨'], 'the database𐐀!')).toBe(true)
  })

  it('matches any run of whitespace in the text for the whitespace of a phrase', () => {
    expect(topicMatch(['schema migration'], 'a Schema   migration')?.matched).toBe('Schema   migration')
    expect(topicMatches(['schema migration'], 'schema\n\tmigration')).toBe(true)
    expect(topicMatches(['schema  migration'], 'schema migration')).toBe(true)
    expect(topicMatches(['schema migration'], 'schema\u00A0migration')).toBe(true)
    expect(topicMatches(['schema migration'], 'schemamigration')).toBe(false)
    expect(topicMatches(['schema migration'], 'schema-migration')).toBe(false)
    expect(topicMatches(['schema migration'], 'schema migrations')).toBe(false)
    expect(topicMatches(['schema migration'], 'db schema, migration')).toBe(false)
    expect(topicMatches(['schema migration'], 'dbschema migration')).toBe(false)
    expect(topicMatches(['the database'], 'bathe database')).toBe(false)
    expect(topicMatch(['the database'], 'in THE  database')?.matched).toBe('THE  database')
    expect(topicMatch(['a b c'], 'xa b c, a b c')?.matched).toBe('a b c')
    expect(topicMatches(['  schema migration '], 'schema migration')).toBe(true)
    expect(topicMatches(['', '   '], 'anything')).toBe(false)
  })

  it('requires a boundary only where the topic has a word character', () => {
    expect(topicMatch(['c++'], 'I write C++.')?.matched).toBe('C++')
    expect(topicMatches(['c++'], 'c++17')).toBe(true)
    expect(topicMatches(['c++'], 'abc++')).toBe(false)
    expect(topicMatch(['node.js'], 'a Node.JS app')?.matched).toBe('Node.JS')
    expect(topicMatches(['node.js'], 'node.jsx')).toBe(false)
    expect(topicMatches(['node.js'], 'nodejs')).toBe(false)
    expect(topicMatch(['.net'], 'ASP.NET Core')?.matched).toBe('.NET')
    expect(topicMatches(['.net'], 'the .network')).toBe(false)
    expect(topicMatches(['.net'], 'dotnet')).toBe(false)
    expect(topicMatch(['#release'], 'see #Release notes')?.matched).toBe('#Release')
    expect(topicMatches(['#release'], 'release')).toBe(false)
    expect(topicMatch(['++'], 'i++;')?.matched).toBe('++')
    expect(topicMatch(['- todo'], 'list:\n-   TODO')?.matched).toBe('-   TODO')
  })

  it('reports the match that comes first in the message, then the topic listed first', () => {
    expect(topicMatch(['migration', 'schema'], 'schema then migration')).toEqual({ kind: 'topics', value: 'schema', matched: 'schema' })
    expect(topicMatch(['schema migration', 'schema'], 'the schema migration')?.value).toBe('schema migration')
    expect(topicMatch(['schema', 'schema migration'], 'the schema migration')?.value).toBe('schema')
    expect(topicMatch(['net', '.net'], 'asp.net')?.value).toBe('.net')
    expect(topicMatch(['yy', 'x yy zzz'], 'x yy zzz')?.value).toBe('x yy zzz')
    expect(topicMatch(['x yy zzz', 'yy'], 'yy; x yy zzz')?.value).toBe('yy')
    expect(topicMatch([' database '], 'DATABASE')?.value).toBe(' database ')
  })
})

describe('observePaths: globs with .gitignore semantics', () => {
  it('matches absolute paths under cwd and relative paths', () => {
    expect(pathMatch(['*.sql'], ['/repo/db/schema.sql'], '/repo')).toEqual({ kind: 'paths', value: '*.sql', matched: 'db/schema.sql' })
    expect(pathMatch(['*.sql'], ['db/schema.sql'])).toEqual({ kind: 'paths', value: '*.sql', matched: 'db/schema.sql' })
    expect(pathMatch(['*.sql'], ['./db/./x/../schema.sql'])?.matched).toBe('db/schema.sql')
    expect(pathMatch(['supabase/**'], ['/repo/./supabase//migrations/1.sql'], '/repo/')?.matched).toBe('supabase/migrations/1.sql')
  })

  it('never matches a path outside cwd', () => {
    expect(pathMatches(['*.sql'], '/tmp/query.sql')).toBe(false)
    expect(pathMatches(['*.sql'], '/repository/query.sql')).toBe(false)
    expect(pathMatches(['*.sql'], '/repo/../query.sql')).toBe(false)
    expect(pathMatches(['*.sql'], '../query.sql')).toBe(false)
    expect(pathMatches(['*.sql'], 'db/../../query.sql')).toBe(false)
    expect(pathMatches(['**'], '/repo')).toBe(false)
    expect(pathMatches(['*.sql'], 'C:/repo/query.sql')).toBe(false)
    // Without a cwd, absolute paths cannot be placed; relative ones still match.
    expect(pathMatch(['*.sql'], ['/repo/query.sql'])).toBeUndefined()
    expect(pathMatch(['*.sql'], ['query.sql'])).toBeDefined()
  })

  it('takes the cwd of the call over the one given at creation', () => {
    expect(pathMatch(['*.sql'], ['/other/q.sql'], '/repo', '/other')?.matched).toBe('q.sql')
    expect(pathMatch(['*.sql'], ['/repo/q.sql'], '/repo', '/other')).toBeUndefined()
    expect(pathMatch(['*.sql'], ['/repo/q.sql'], undefined, '/repo')?.matched).toBe('q.sql')
  })

  it('reads backslashes as separators (Windows paths)', () => {
    expect(pathMatch(['src/db/**'], ['C:\\repo\\src\\db\\x.ts'], 'C:\\repo')?.matched).toBe('src/db/x.ts')
    expect(pathMatch(['src/db/**'], ['c:\\Repo\\src\\db\\x.ts'], 'C:\\repo')?.matched).toBe('src/db/x.ts')
    expect(pathMatch(['src/db/**'], ['src\\db\\x.ts'], 'C:\\repo')?.matched).toBe('src/db/x.ts')
    expect(pathMatch(['*.sql'], ['D:\\repo\\q.sql'], 'C:\\repo')).toBeUndefined()
    expect(pathMatch(['*.sql'], ['C:\\repo\\..\\q.sql'], 'C:\\repo')).toBeUndefined()
  })

  it('applies a skill\'s globs as one .gitignore file: negation, order, anchoring', () => {
    const globs = ['*.sql', '!seed.sql']
    expect(pathMatches(globs, 'db/a.sql', '')).toBe(true)
    expect(pathMatches(globs, 'db/seed.sql', '')).toBe(false)
    expect(pathMatches(['!seed.sql', '*.sql'], 'db/seed.sql', '')).toBe(true)
    expect(pathMatches(['!*.sql'], 'a.sql', '')).toBe(false)
    // A file under an excluded directory cannot be re-included.
    expect(pathMatches(['db/', '!db/seed.sql'], 'db/seed.sql', '')).toBe(true)
    expect(pathMatch(['db/**', '!db/*.md'], ['db/README.md', 'db/x.sql'], '')).toEqual({ kind: 'paths', value: 'db/**', matched: 'db/x.sql' })
    // A slash at the start or in the middle anchors the glob to cwd; none lets it match at any depth.
    expect(pathMatches(['Dockerfile'], 'deploy/api/Dockerfile', '')).toBe(true)
    expect(pathMatches(['/Dockerfile'], 'deploy/Dockerfile', '')).toBe(false)
    expect(pathMatches(['/Dockerfile'], 'Dockerfile', '')).toBe(true)
    expect(pathMatches(['src/db/**/*.ts'], 'src/db/x/y/z.ts', '')).toBe(true)
    expect(pathMatches(['src/db/**/*.ts'], 'src/db/z.ts', '')).toBe(true)
    expect(pathMatches(['src/db/**/*.ts'], 'src/dbx/z.ts', '')).toBe(false)
    expect(pathMatches(['src/db/**/*.ts'], 'lib/src/db/z.ts', '')).toBe(false)
    expect(pathMatches(['**/migrations/*.sql'], 'a/b/migrations/1.sql', '')).toBe(true)
    expect(pathMatches(['**/migrations/*.sql'], 'a/b/migrations/x/1.sql', '')).toBe(false)
  })

  it('matches a path when a parent directory matches', () => {
    expect(pathMatch(['*.sql'], ['a.sql/b.txt'], '')?.matched).toBe('a.sql/b.txt')
    expect(pathMatches(['supabase'], 'supabase/config.toml', '')).toBe(true)
    expect(pathMatches(['supabase/'], 'x/supabase/config.toml', '')).toBe(true)
    expect(pathMatches(['supabase/**'], 'supabase/migrations/1.sql', '')).toBe(true)
    expect(pathMatches(['supabase/**'], 'supabase', '')).toBe(false)
    expect(pathMatches(['supabase/**'], 'supabase/', '')).toBe(false)
    // A trailing slash marks a directory; a glob ending in / only matches directories.
    expect(pathMatches(['migrations/'], 'db/migrations/', '')).toBe(true)
    expect(pathMatches(['migrations/'], 'db/migrations', '')).toBe(false)
  })

  it('matches wildcards, ranges and case as `ignore` does', () => {
    expect(pathMatches(['*.SQL'], 'q.sql', '')).toBe(true)
    expect(pathMatches(['*.sql'], 'Q.SQL', '')).toBe(true)
    expect(pathMatches(['docker*'], 'deploy/Dockerfile.prod', '')).toBe(true)
    expect(pathMatches(['*config'], 'vite.config', '')).toBe(true)
    expect(pathMatches(['*config'], 'vite.config.ts', '')).toBe(false)
    expect(pathMatches(['?.ts'], 'src/a.ts', '')).toBe(true)
    expect(pathMatches(['?.ts'], 'src/ab.ts', '')).toBe(false)
    expect(pathMatches(['[ab].sql'], 'b.sql', '')).toBe(true)
    expect(pathMatches(['[ab].sql'], 'c.sql', '')).toBe(false)
    expect(pathMatches(['*'], 'anything', '')).toBe(true)
    expect(pathMatches(['\\#notes.md'], 'docs/#notes.md', '')).toBe(true)
    expect(pathMatches(['*.test.ts'], 'a.spec.ts', '')).toBe(false)
    expect(pathMatches(['*.test.ts'], 'a.test.ts', '')).toBe(true)
    expect(pathMatches(['*.env'], '.env', '')).toBe(true)
  })

  it('reports the first path that matches, with the glob that decided', () => {
    const { activation } = session([skill('db', { paths: ['*.sql', 'supabase/**'] }), skill('web', { paths: ['*.tsx'] })], '/repo')
    const found = activation.observePaths(['/repo/src/App.tsx', '/repo/supabase/seed.sql', '/repo/x.sql'])
    expect(found.map(a => [a.skill.name, a.trigger])).toEqual([
      ['db', { kind: 'paths', value: 'supabase/**', matched: 'supabase/seed.sql' }],
      ['web', { kind: 'paths', value: '*.tsx', matched: 'src/App.tsx' }],
    ])
  })
})

describe('observeContext: project codes', () => {
  it('reads # as exactly one digit', () => {
    expect(projectMatch(['E##'], '- E07 trading journal')).toEqual({ kind: 'projects', value: 'E##', matched: 'E07' })
    expect(projectMatches(['E##'], 'E7')).toBe(false)
    expect(projectMatches(['E##'], 'E123')).toBe(false)
    expect(projectMatches(['E##'], 'E0A')).toBe(false)
    expect(projectMatches(['E##'], 'E٠٧')).toBe(false) // Arabic-Indic digits are not #
    expect(projectMatches(['E#7'], 'E07 E17')).toBe(true)
    expect(projectMatches(['E#7'], 'E08')).toBe(false)
  })

  it('matches codes as whole tokens, case-sensitively', () => {
    expect(projectMatch(['E##'], 'see E07-notes')?.matched).toBe('E07')
    expect(projectMatch(['E##'], '(E07)')?.matched).toBe('E07')
    expect(projectMatch(['E##'], 'PRJ-E07')?.matched).toBe('E07')
    expect(projectMatches(['E##'], 'E07_notes')).toBe(false)
    expect(projectMatches(['E##'], 'XE07')).toBe(false)
    expect(projectMatches(['E##'], 'E07é')).toBe(false)
    expect(projectMatches(['E##'], 'e07')).toBe(false)
    expect(projectMatch(['PRJ-##'], 'on PRJ-42.')?.matched).toBe('PRJ-42')
    expect(projectMatches(['PRJ-##'], 'PRJ-4')).toBe(false)
    expect(projectMatches(['PRJ-##'], 'XPRJ-42')).toBe(false)
    expect(projectMatches(['PRJ-##'], 'prj-42')).toBe(false)
    expect(projectMatch(['ACME_2024'], 'ACME_2024: kickoff')?.matched).toBe('ACME_2024')
    expect(projectMatches(['ACME_2024'], 'ACME_2024b')).toBe(false)
    expect(projectMatches(['A##'], 'Z99 A12')).toBe(true)
  })

  it('reports the first code in the text', () => {
    expect(projectMatch(['A##', 'E##'], 'E07 then A12')).toEqual({ kind: 'projects', value: 'E##', matched: 'E07' })
  })
})

describe('activation state', () => {
  it('keeps a skill active and logs each activation once, exactly', () => {
    const { activation, logs } = session([skill('db', { topics: ['database'], paths: ['*.sql'], projects: ['E##'] })])
    expect(triggerOf(activation.observeMessage('the database'))).toEqual([{ kind: 'topics', value: 'database', matched: 'database' }])
    expect(logs).toEqual(['[skills] Activated conditional skill \'db\' (matched: topics: database)'])
    expect(activation.observeMessage('the database again')).toEqual([])
    expect(activation.observePaths(['x.sql'])).toEqual([])
    expect(activation.observeContext('E07')).toEqual([])
    expect(activation.activate('db')).toBeUndefined()
    expect(activation.isActive('db')).toBe(true)
    expect(logs).toHaveLength(1)
  })

  it('logs the kind and the trigger as written', () => {
    const { activation, logs } = session([
      skill('a', { paths: ['supabase/**'] }),
      skill('b', { projects: ['A##'] }),
      skill('c', { topics: ['x'] }),
      skill('d', { topics: ['y'] }),
    ], '/repo')
    activation.observePaths(['/repo/supabase/x.sql'])
    activation.observeContext('A12')
    activation.activate('c')
    activation.activate('d', { kind: 'topics', value: 'why', matched: 'Y' })
    expect(logs).toEqual([
      '[skills] Activated conditional skill \'a\' (matched: paths: supabase/**)',
      '[skills] Activated conditional skill \'b\' (matched: projects: A##)',
      '[skills] Activated conditional skill \'c\' (matched: load: c)',
      '[skills] Activated conditional skill \'d\' (matched: topics: why)',
    ])
  })

  it('logs to console.log by default', () => {
    const lines: unknown[] = []
    const original = console.log
    console.log = (...args: unknown[]) => lines.push(args)
    try {
      createActivation([skill('a', { topics: ['x'] })]).observeMessage('x')
    }
    finally {
      console.log = original
    }
    expect(lines).toEqual([['[skills] Activated conditional skill \'a\' (matched: topics: x)']])
  })

  it('activates by name, and returns undefined for unknown or active names', () => {
    const { activation } = session([skill('plain'), skill('db', { topics: ['database'] })])
    expect(activation.activate('nope')).toBeUndefined()
    expect(activation.activate('plain')).toBeUndefined()
    const got = activation.activate('db')
    expect(got).toEqual({ skill: activation.active[1], trigger: { kind: 'load', value: 'db', matched: 'db' } })
    expect(activation.activate('db')).toBeUndefined()
    expect(activation.dormant).toEqual([])
  })

  it('returns the skills an observation activates in skill order, and logs them in that order', () => {
    const { activation, logs } = session([
      skill('a', { topics: ['zeta'] }),
      skill('b', { topics: ['alpha'] }),
      skill('c', { topics: ['mid'] }),
    ])
    expect(names(activation.observeMessage('alpha mid zeta'))).toEqual(['a', 'b', 'c'])
    expect(logs.map(l => l.split('\'')[1])).toEqual(['a', 'b', 'c'])
    expect(activation.active.map(s => s.name)).toEqual(['a', 'b', 'c'])
  })

  it('matches each skill on its own: one topic, many skills', () => {
    const skills = Array.from({ length: 50 }, (_, i) => skill(`s${i}`, { topics: i % 2 ? ['database'] : ['other'] }))
    const { activation } = session(skills)
    expect(activation.observeMessage('database')).toHaveLength(25)
    expect(activation.dormant).toHaveLength(25)
  })
})

describe('listing and stats', () => {
  const skills = [
    skill('review', undefined, 'Review pull requests.'),
    skill('db', { topics: ['database'] }, 'Write safe migrations.'),
    skill('compact', { alwaysActive: true }, 'Summarise long sessions.'),
    skill('seo', { topics: ['seo'] }, 'Audit pages for search.'),
    skill('notes', { topics: ['changelog'] }, 'Draft release notes.'),
  ]

  it('lists unconditional skills first, in input order, then activated ones in activation order, without a header', () => {
    const { activation } = session(skills)
    expect(activation.listing()).toBe('- review: Review pull requests.\n- compact: Summarise long sessions.')
    activation.observeMessage('changelog')
    activation.observeMessage('seo and database')
    expect(activation.listing()).toBe([
      '- review: Review pull requests.',
      '- compact: Summarise long sessions.',
      '- notes: Draft release notes.',
      '- db: Write safe migrations.',
      '- seo: Audit pages for search.',
    ].join('\n'))
    expect(activation.active.map(s => s.name)).toEqual(['review', 'compact', 'notes', 'db', 'seo'])
  })

  it('drops descriptions of the most recently activated skills first to fit a budget, never names', () => {
    const { activation } = session(skills)
    activation.observeMessage('changelog')
    activation.observeMessage('seo and database')
    const full = activation.listing()
    expect(activation.listing({ budgetChars: full.length })).toBe(full)
    expect(activation.listing({})).toBe(full)
    // Dropping `seo`'s description (saves 25) is enough for full - 20.
    expect(activation.listing({ budgetChars: full.length - 20 })).toBe([
      '- review: Review pull requests.',
      '- compact: Summarise long sessions.',
      '- notes: Draft release notes.',
      '- db: Write safe migrations.',
      '- seo',
    ].join('\n'))
    expect(activation.listing({ budgetChars: full.length - 26 })).toBe([
      '- review: Review pull requests.',
      '- compact: Summarise long sessions.',
      '- notes: Draft release notes.',
      '- db',
      '- seo',
    ].join('\n'))
    const tight = activation.listing({ budgetChars: 80 })
    expect(tight).toBe('- review: Review pull requests.\n- compact\n- notes\n- db\n- seo')
    expect(tight.length).toBeLessThanOrEqual(80)
    // Over budget even with every description dropped: the names stay.
    expect(activation.listing({ budgetChars: 0 })).toBe('- review\n- compact\n- notes\n- db\n- seo')
  })

  it('counts tokens of listing every skill against the current listing', () => {
    const { activation } = session(skills)
    const all = estimateTokens(skills.map(listingLine).join('\n'))
    const now = estimateTokens('- review: Review pull requests.\n- compact: Summarise long sessions.')
    expect(activation.stats()).toEqual({ skills: 5, active: 2, dormant: 3, allTokens: all, listingTokens: now, savedTokens: all - now })
    activation.observeMessage('database')
    expect(activation.stats()).toMatchObject({ active: 3, dormant: 2, listingTokens: estimateTokens(activation.listing()) })
  })
})

// ---------------------------------------------------------------------------
// Differential test: the indexed engine against the obvious per-skill loop.

const WORD_CHAR = /^[\p{L}\p{N}\p{M}_]$/u

/** Reference regexes by flags and phrase: one with `\p{…}` classes takes 0.7 ms to compile. */
const regexes = new Map<string, RegExp>()

/** The naive reference: per skill, one regex per topic and code, one `ignore()` per skill. */
function naiveActivation(skills: readonly TestSkill[], cwd: string) {
  const WORD = '[\\p{L}\\p{N}\\p{M}_]'
  const isWord = (ch: string) => WORD_CHAR.test(ch)
  const phraseRegex = (phrase: string, digitHash: boolean, flags: string) => {
    const memo = `${flags} ${phrase}`
    const known = regexes.get(memo)
    if (known)
      return known
    const chars = [...phrase]
    const body = chars.map(ch => /\s/u.test(ch) ? '\\s+' : digitHash && ch === '#' ? '[0-9]' : /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch).join('').replace(/(?:\\s\+)+/g, '\\s+')
    const wordAt = (ch: string) => isWord(ch) || (digitHash && ch === '#')
    const regex = new RegExp(`${wordAt(chars[0]!) ? `(?<!${WORD})` : ''}${body}${wordAt(chars.at(-1)!) ? `(?!${WORD})` : ''}`, flags)
    regexes.set(memo, regex)
    return regex
  }
  const on = skills.map(s => !s.triggers || s.triggers.alwaysActive)
  const matchers = skills.map(s => ignore().add(s.triggers?.paths ?? []))
  const firstPhrase = (phrases: string[], text: string, digitHash: boolean, flags: string) => {
    let best: { value: string, matched: string, index: number } | undefined
    for (const value of phrases) {
      if (value.trim() === '')
        continue
      const m = phraseRegex(value.trim(), digitHash, flags).exec(text)
      if (m && (!best || m.index < best.index))
        best = { value, matched: m[0], index: m.index }
    }
    return best
  }
  const phrases = (kind: 'topics' | 'projects', text: string) => {
    const out: [string, MatchedTrigger][] = []
    skills.forEach((s, i) => {
      if (on[i])
        return
      const best = firstPhrase(s.triggers![kind], text, kind === 'projects', kind === 'projects' ? 'u' : 'iu')
      if (best) {
        on[i] = true
        out.push([s.name, { kind, value: best.value, matched: best.matched }])
      }
    })
    return out
  }
  const relative = (path: string) => {
    const p = path.replace(/\\/g, '/')
    const rel = posix.relative(cwd, posix.resolve(cwd, p))
    if (rel === '' || rel === '..' || rel.startsWith('../'))
      return undefined
    return p.endsWith('/') ? `${rel}/` : rel
  }
  return {
    observeMessage: (text: string) => phrases('topics', text),
    observeContext: (text: string) => phrases('projects', text),
    observePaths(paths: string[]) {
      const out: [string, MatchedTrigger][] = []
      skills.forEach((s, i) => {
        if (on[i])
          return
        for (const path of paths) {
          const rel = relative(path)
          const result = rel === undefined ? undefined : matchers[i]!.test(rel)
          if (result?.ignored) {
            on[i] = true
            out.push([s.name, { kind: 'paths', value: result.rule!.pattern, matched: rel! }])
            break
          }
        }
      })
      return out
    },
  }
}

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!
  return { next, int, pick }
}

const WORDS = [
  'database', 'Database', 'schema', 'migration', 'migrations', 'seo', 'c', 'net', 'node', 'js', 'release', 'notes',
  'café', 'caféteria', 'cafe\u0301', 'CAFÉ', 'βάση', 'ΒΆΣΗ', 'οδος', 'ΟΔΟΣ', 'база', 'БАЗА', 'базами', 'данных',
  'straße', 'STRAẞE', 'strasse', 'Datenbank', 'datenbank', 'kelvin', '\u212Aelvin', 'ſtar', 'star', 'ǅ', 'ǆ', 'ᾳ', 'ᾼ',
  'İstanbul', 'istanbul', 'ı', 'I', 'ﬅ', 'ﬆ', 'ΐ', 'ΐ', '𐐀', '𐐨', '数据库', 'x_1', '٣', 'e07', 'E07', 'E7', 'E123', 'A12',
  'PRJ', '42', '4', 'ACME', '2024',
]
const GLUE = [' ', ' ', ' ', '  ', '\n', '\t', '-', '_', '.', ', ', '', '++', '#', '(', ')', '\u00A0', '\u0301', '-']

function randomCase(r: ReturnType<typeof prng>, word: string): string {
  const n = r.int(4)
  return n === 0 ? word.toUpperCase() : n === 1 ? word.toLowerCase() : word
}

function randomText(r: ReturnType<typeof prng>, words: number): string {
  let text = r.pick(GLUE)
  for (let i = 0; i < words; i++)
    text += randomCase(r, r.pick(WORDS)) + r.pick(GLUE)
  return text
}

function randomTopic(r: ReturnType<typeof prng>): string {
  const shape = r.int(10)
  const word = () => randomCase(r, r.pick(WORDS))
  if (shape < 5)
    return word()
  if (shape < 7)
    return `${word()}${r.pick([' ', '  ', ' '])}${word()}`
  if (shape === 7)
    return r.pick(['c++', '.net', 'node.js', '#release', '++', '- notes', 'x_1', ' seo ', '(E07)'])
  if (shape === 8)
    return `${r.pick(['.', '#', '-', '(', ''])}${word()}${r.pick(['.', '+', ')', '', '-'])}`
  return `${word()}${r.pick(['-', '_', '.', ''])}${word()}`
}

const CODE_SHAPES = ['E##', 'A##', 'E#7', 'PRJ-##', 'ACME_####', 'ACME', 'X#', '##', 'e##', 'E07', 'PRJ-4#-x', 'E##_']
const CODE_WORDS = ['E07', 'E7', 'E123', 'e07', 'E17', 'A12', 'A1', 'PRJ-42', 'PRJ-4', 'prj-42', 'ACME_2024', 'ACME', 'X9', '07', 'E07_', 'PRJ-42-x', 'E٠٧', 'Z99']

const SEGMENTS = ['src', 'SRC', 'db', 'supabase', 'migrations', 'lib', 'docs', 'a.sql', 'schema.SQL', 'x.ts', 'App.tsx', 'Dockerfile', 'dockerfile.dev', 'vite.config', 'vite.config.ts', 'README.md', '.env', 'seed.sql', 'a.test.ts', 'b', 'straße', 'STRASSE', 'Ǆ', 'ǆ', '#notes.md', 'x.']
const GLOB_PARTS = ['src', 'db', 'supabase', 'migrations', 'lib', 'docs', '*.sql', '*.ts', '*.test.ts', '*.tsx', 'Dockerfile', 'docker*', 'dock*.dev', 'sch*.sql', '*config', 'vite.*', '*fig.ts', '*', '**', '?.ts', '[ab].sql', 'README.*', '.env', 'x.ts', 'STRASSE', 'ǅ', 'seed.sql', '\\#notes.md', 'a.sql', '*.S?L', '*.', 'str*e']

function randomGlob(r: ReturnType<typeof prng>): string {
  const parts = Array.from({ length: 1 + r.int(3) }, () => r.pick(GLOB_PARTS))
  let glob = parts.join('/')
  if (r.int(6) === 0)
    glob = `/${glob}`
  if (r.int(8) === 0)
    glob = `${glob}/`
  if (r.int(5) === 0)
    glob = `!${glob}`
  return glob
}

function randomPath(r: ReturnType<typeof prng>, cwd: string): string {
  const segs = Array.from({ length: 1 + r.int(4) }, () => r.pick(SEGMENTS))
  const shape = r.int(8)
  let path = segs.join('/')
  if (shape === 0)
    path = `${cwd}/${path}`
  else if (shape === 1)
    path = `/elsewhere/${path}`
  else if (shape === 2)
    path = `../${path}`
  else if (shape === 3)
    path = `./${segs[0]}/../${path}`
  else if (shape === 4)
    path = `${cwd}/${path}`.replace(/\//g, '\\')
  if (r.int(8) === 0)
    path += '/'
  return path
}

describe('differential: the indexed engine activates exactly what a per-skill loop does', () => {
  it('on random skills, messages, paths and contexts', () => {
    const r = prng(20240611)
    const cwd = '/work/repo'
    let activations = 0
    for (let round = 0; round < 150; round++) {
      const skills: TestSkill[] = Array.from({ length: 1 + r.int(40) }, (_, i) => {
        if (r.int(10) === 0)
          return skill(`s${i}`)
        return skill(`s${i}`, {
          topics: Array.from({ length: r.int(4) }, () => randomTopic(r)),
          paths: Array.from({ length: r.int(4) }, () => randomGlob(r)),
          projects: Array.from({ length: r.int(3) }, () => r.pick(CODE_SHAPES)),
          alwaysActive: r.int(20) === 0,
        })
      })
      const engine = createActivation(skills, { log: () => {}, cwd })
      const naive = naiveActivation(skills, cwd)
      const got = (list: Activated<TestSkill>[]) => list.map(a => [a.skill.name, a.trigger])
      for (let step = 0; step < 12; step++) {
        const kind = r.int(3)
        let expected, actual
        if (kind === 0) {
          const text = randomText(r, 1 + r.int(12))
          expected = naive.observeMessage(text)
          actual = got(engine.observeMessage(text))
        }
        else if (kind === 1) {
          const paths = Array.from({ length: 1 + r.int(4) }, () => randomPath(r, cwd))
          expected = naive.observePaths(paths)
          actual = got(engine.observePaths(paths))
        }
        else {
          let text = r.pick(GLUE)
          for (let i = 0; i < 1 + r.int(8); i++)
            text += r.pick(CODE_WORDS) + r.pick(GLUE)
          expected = naive.observeContext(text)
          actual = got(engine.observeContext(text))
        }
        expect(actual).toEqual(expected)
        activations += expected.length
      }
    }
    // The random sessions exercise the matching, not only the misses.
    expect(activations).toBeGreaterThan(500)
  })
})

describe('the topic index key', () => {
  it('folds every pair of characters that case-insensitive Unicode matching equates, and word characters stay word characters', () => {
    // The index keys a word by lower- then upper-casing it. Every character
    // that `iu` matching equates with another is connected to it by lower or
    // upper casing (or is one of the three simple-folding exceptions added
    // below); each such pair must share the key.
    const key = (s: string) => s.toLowerCase().toUpperCase()
    const word = /^[\p{L}\p{N}\p{M}_]$/u
    const bad: string[] = []
    for (let cp = 0; cp <= 0x10FFFF; cp++) {
      if (cp >= 0xD800 && cp <= 0xDFFF)
        continue
      const a = String.fromCodePoint(cp)
      const candidates = new Set([a.toLowerCase(), a.toUpperCase(), key(a), a.toUpperCase().toLowerCase()].filter(b => b !== a && [...b].length === 1))
      const extra = ({ 0x1FD3: '\u0390', 0x1FE3: '\u03B0', 0xFB05: '\uFB06' } as Record<number, string>)[cp]
      if (extra)
        candidates.add(extra)
      if (candidates.size === 0)
        continue
      const regex = new RegExp(`^${a.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')}$`, 'iu')
      for (const b of candidates) {
        // Equated characters share the key, and are both word characters or both not.
        if (regex.test(b) && (key(a) !== key(b) || word.test(a) !== word.test(b)))
          bad.push(`${cp.toString(16)}~${b.codePointAt(0)!.toString(16)}`)
      }
    }
    expect(bad).toEqual([])
  })
})

describe('hostile triggers built by hand', () => {
  it('skips what is out of bounds, so one skill never breaks or slows the others', () => {
    const words = Array.from({ length: 2670 }, (_, i) => `w${i}`).join(' ')
    const hostile = skill('hostile', {
      topics: [words, 'deploy'],
      paths: ['a*'.repeat(7663), '*.yml'],
      projects: [`E${'#'.repeat(200)}`, 'OPS-#'],
    })
    const crowded = skill('crowded', { topics: [...Array.from({ length: 100 }, (_, i) => `filler${i}`), 'late-topic'] })
    const { activation } = session([hostile, skill('db', { topics: ['database'], paths: ['*.sql'] }), crowded])
    expect(names(activation.observeMessage(`${words} database`))).toEqual(['db'])
    expect(names(activation.observeMessage('time to deploy late-topic'))).toEqual(['hostile'])
  })

  it('matches paths and codes of the other skills past a hostile glob or code', () => {
    const hostile = skill('hostile', { paths: ['a*'.repeat(7663), '*.yml'], projects: [`E${'#'.repeat(200)}`, 'OPS-#'] })
    const { activation } = session([hostile, skill('db', { paths: ['*.sql'] })])
    expect(names(activation.observePaths(['/repo/aaaaaaaaaaaaaaaaaaaaaaaaaaaaab/x.sql'], { cwd: '/repo' }))).toEqual(['db'])
    expect(names(activation.observeContext('ticket OPS-7'))).toEqual(['hostile'])
  })

  it('searches for the first 20 topics without a letter or digit only, each over the whole text', () => {
    const skills = Array.from({ length: 25 }, (_, i) => skill(`p${i}`, { topics: [`+${'-'.repeat(i)}>`] }))
    const { activation } = session(skills)
    expect(names(activation.observeMessage(`x ${'+'}${'-'.repeat(30)}> and ${Array.from({ length: 25 }, (_, i) => `+${'-'.repeat(i)}>`).join(' ')}`))).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}`))
  })

  it('tests a topic that many skills list once per place, and activates each of them', () => {
    const skills = Array.from({ length: 30 }, (_, i) => skill(`s${i}`, { topics: i % 3 ? ['schema  migration', `only${i}`] : ['other'] }))
    const { activation, logs } = session(skills)
    // Activating one skill leaves the shared phrase to the others.
    activation.activate('s1')
    expect(names(activation.observeMessage('a Schema\n migration here'))).toEqual(skills.filter((_, i) => i % 3 && i !== 1).map(s => s.name))
    expect(logs[1]).toBe('[skills] Activated conditional skill \'s2\' (matched: topics: schema  migration)')
    expect(activation.dormant.map(s => s.name)).toEqual(skills.filter((_, i) => i % 3 === 0).map(s => s.name))
  })
})
