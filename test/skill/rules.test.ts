import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compileSkill } from '../../src/skill/compile'
import { SkillLoader } from '../../src/skill/load'

const fixtures = join(import.meta.dirname, 'fixtures')

/** `[severity, code, line, column, a phrase of the message]` */
type Expected = [severity: 'error' | 'warning', code: string, line: number, column: number, message: string | RegExp]

function diagnosticsOf(dir: string, options = {}) {
  const { compiled } = new SkillLoader(options).load(join(dir, 'SKILL.md'))
  return compiled
}

function expectDiagnostics(dir: string, expected: Expected[], options = {}) {
  const compiled = diagnosticsOf(dir, options)
  expect(compiled.diagnostics.map(d => [d.severity, d.code, d.line, d.column])).toEqual(expected.map(e => e.slice(0, 4)))
  compiled.diagnostics.forEach((d, i) => {
    expect(d.file).toBe(join(dir, 'SKILL.md'))
    const message = expected[i]![4]
    if (typeof message === 'string')
      expect(d.message).toContain(message)
    else expect(d.message).toMatch(message)
  })
  return compiled
}

const cases: Record<string, Expected[]> = {
  // Frontmatter and YAML
  'frontmatter-missing': [['error', 'frontmatter-missing', 1, 1, 'Start it with a "---" line, then name: frontmatter-missing']],
  'frontmatter-unclosed': [['error', 'frontmatter-unclosed', 1, 1, 'never closed. Add a "---" line']],
  'frontmatter-not-mapping': [['error', 'frontmatter-not-mapping', 2, 1, 'must be a YAML mapping']],
  'yaml-tab': [['error', 'yaml-tab', 4, 1, 'A tab is used for indentation, which YAML forbids. Indent with spaces.']],
  'yaml-unquoted-colon': [['error', 'yaml-unquoted-colon', 3, 14, 'Quote the whole value']],
  'yaml-duplicate-key': [['error', 'yaml-duplicate-key', 4, 1, 'Key "description" appears twice']],
  'yaml-syntax': [['error', 'yaml-syntax', 3, 23, /^Invalid YAML: .+ Fix the frontmatter syntax\.$/]],
  'yaml-too-large': [['error', 'yaml-too-large', 2, 1, 'more than 10000 values through aliases']],
  'yaml-too-deep': [['error', 'yaml-too-deep', 4, 67, 'nests more than 64 levels of mappings, lists or brackets. Flatten it']],
  'yaml-too-deep-block': [['error', 'yaml-too-deep', 68, 65, 'nests more than 64 levels']],
  'yaml-alias-cycle': [['error', 'yaml-alias-cycle', 4, 11, 'The alias *a refers to a value that contains it']],
  'yaml-warning': [['warning', 'yaml-warning', 3, 14, 'Custom YAML tags are not supported']],
  // Agent Skills specification
  'name-missing': [['error', 'name-missing', 2, 1, 'Add name: name-missing']],
  'name-invalid': [['error', 'name-invalid', 2, 7, 'Use name: name-invalid']],
  'name-not-string': [['error', 'name-invalid', 2, 7, 'must be a non-empty string']],
  'name-hyphens': [['error', 'name-invalid', 2, 7, 'single hyphens, and not start or end with a hyphen. Use name: name-hyphens']],
  'name-too-long': [['error', 'name-too-long', 2, 7, 'has 68 characters; the limit is 64']],
  'name-mismatch': [['warning', 'name-mismatch', 2, 7, '"name" is "other-name" but must match its folder "name-mismatch"']],
  'description-missing': [['error', 'description-missing', 2, 1, 'has no "description"']],
  'description-invalid': [['error', 'description-invalid', 4, 3, 'must be a string']],
  'description-empty': [['error', 'description-empty', 3, 14, 'is empty']],
  'description-too-long': [['error', 'description-too-long', 3, 14, 'has 1025 characters; the limit is 1024']],
  'license-invalid': [['error', 'license-invalid', 4, 10, 'must be a string']],
  'compatibility-invalid': [['error', 'compatibility-invalid', 4, 16, 'must be a non-empty string']],
  'compatibility-too-long': [['error', 'compatibility-too-long', 4, 16, 'has 501 characters; the limit is 500']],
  'metadata-invalid': [['error', 'metadata-invalid', 6, 12, '"metadata.version" must be a string. Quote the value, e.g. version: "1.2"']],
  'metadata-not-mapping': [['error', 'metadata-invalid', 4, 11, 'must be a mapping of string keys to string values']],
  'allowed-tools-invalid': [['error', 'allowed-tools-invalid', 4, 16, 'space-separated string']],
  'field-unknown': [
    ['warning', 'field-unknown', 4, 1, 'Unknown frontmatter field "descripton". It looks like "description", which is set already: keep one of them.'],
    ['warning', 'field-unknown', 5, 1, /^Unknown frontmatter field "color"\. Agents ignore it/],
  ],
  // Progressive structure
  'progressive-invalid': [['error', 'progressive-invalid', 4, 14, '"progressive" must be a mapping']],
  'progressive-unknown-key': [['warning', 'progressive-unknown-key', 5, 3, 'Unknown key "progressive.alwys"']],
  'always-invalid': [['error', 'always-invalid', 5, 11, 'must be a list of section IDs']],
  'always-item-invalid': [
    ['error', 'always-invalid', 7, 7, 'item 2 must be a non-empty section ID string'],
    ['error', 'always-invalid', 8, 7, 'item 3 must be a non-empty section ID string'],
  ],
  'always-duplicate': [['error', 'always-duplicate', 7, 7, '"rules" is listed twice']],
  'always-unknown-id': [['error', 'always-unknown-id', 7, 7, 'names "core-tols", but no heading has {#core-tols}. Did you mean "core-tools"? Known IDs: rules, core-tools.']],
  'section-id-missing': [
    ['error', 'section-id-missing', 8, 14, 'Level-2 heading "Core tools" has no section ID. Add {#core-tools} at the end of the heading line.'],
    ['error', 'section-id-missing', 10, 15, 'Level-2 heading "Setext heading" has no section ID. Add {#setext-heading}'],
  ],
  'section-id-invalid': [
    ['error', 'section-id-invalid', 6, 10, 'Section ID "{#has space}" is not valid'],
    ['error', 'section-id-invalid', 8, 10, 'Section ID "{#}" is not valid'],
  ],
  'section-id-duplicate': [['error', 'section-id-duplicate', 8, 16, 'Section ID "rules" is already used on line 6']],
  'section-id-ignored': [['warning', 'section-id-ignored', 8, 13, '"{#detail}" on this level-4 heading cannot be read']],
  'sections-missing': [['error', 'sections-missing', 6, 1, 'has no section with an ID']],
  'content-outside-sections': [['warning', 'content-outside-sections', 12, 1, 'neither on the cover nor in any section']],
  // Bundled files
  'resources-invalid': [['error', 'resources-invalid', 4, 12, 'must be a list of file paths']],
  'resources-item-invalid': [
    ['error', 'resources-invalid', 5, 5, 'item 1 must be a non-empty relative file path'],
    ['error', 'resources-invalid', 6, 5, 'item 2 must be a non-empty relative file path'],
  ],
  'resource-outside': [
    ['error', 'resource-outside', 5, 5, 'Resource "../other/file.txt" is outside the skill folder'],
    ['error', 'resource-outside', 6, 5, 'Resource "/etc/passwd" is outside the skill folder'],
  ],
  'resource-duplicate': [['error', 'resource-duplicate', 6, 5, 'Resource "./scripts/run.py" is listed twice']],
  'resource-missing': [['error', 'resource-missing', 5, 5, 'Resource "scripts/missing.py" does not exist']],
  'resource-not-file': [['error', 'resource-not-file', 5, 5, 'Resource "scripts" is a folder']],
  // Conditional activation
  'trigger-not-mapping': [['error', 'trigger-invalid', 4, 18, '"context_trigger" must be a mapping with paths, topics, projects or always_active.']],
  'trigger-unknown-key': [
    ['error', 'trigger-unknown-key', 5, 3, 'Unknown key "context_trigger.topic". Did you mean "topics"?'],
    ['error', 'trigger-unknown-key', 6, 3, 'Unknown key "context_trigger.files".'],
  ],
  'trigger-empty': [['error', 'trigger-invalid', 4, 18, '"context_trigger" is empty, so the skill could never activate']],
  'trigger-empty-list': [
    ['error', 'trigger-invalid', 5, 10, '"context_trigger.paths" is an empty list'],
    ['error', 'trigger-invalid', 6, 11, '"context_trigger.topics" must be a list of keywords or phrases'],
  ],
  'trigger-empty-string': [['error', 'trigger-invalid', 7, 7, '"context_trigger.topics" item 2 must be a non-empty string']],
  'trigger-too-many': [['error', 'trigger-too-many', 6, 5, '"context_trigger.topics" lists 101 entries; at most 100 are allowed. Keep the ones that identify the skill best.']],
  'trigger-bounds': [
    ['error', 'trigger-invalid', 7, 7, `Topic "${'word '.repeat(12)}…" has 149 characters; topics are keywords or short phrases of at most 100.`],
    ['error', 'trigger-invalid', 8, 7, 'Topic "++" has no letter or digit, so every message would be searched for it at every character; use a word or phrase, e.g. "c++".'],
    ['error', 'trigger-invalid', 10, 7, `Project code "${'E'.repeat(60)}…" has 101 characters; at most 100 are allowed.`],
    ['error', 'trigger-glob-invalid', 13, 7, `Glob "src/${'a'.repeat(56)}…" has 264 characters; at most 256 are allowed.`],
    ['error', 'trigger-glob-invalid', 14, 7, 'Glob "a*a*a*a*a*a*a*a*a*" has 9 wildcards; at most 8 are allowed, since each one multiplies the work of matching a path.'],
  ],
  'trigger-glob-invalid': [
    ['error', 'trigger-glob-invalid', 7, 7, 'Glob "#notes" starts with "#", which .gitignore reads as a comment'],
    ['error', 'trigger-glob-invalid', 8, 7, 'Glob "../shared/**" contains ".."'],
    ['error', 'trigger-glob-invalid', 9, 7, 'Glob "src/[abc.ts" has a "[" without a closing "]"'],
  ],
  'trigger-projects-invalid': [
    ['error', 'trigger-invalid', 5, 21, 'Project code "E 07" may only use letters, digits'],
    ['error', 'trigger-invalid', 6, 18, '"context_trigger.always_active" must be true or false'],
  ],
  'paths-twice': [['error', 'trigger-invalid', 4, 1, 'Paths are given twice, in "paths" and in "context_trigger.paths"']],
  'paths-empty': [['error', 'trigger-invalid', 4, 8, '"paths" is empty']],
  // The strict form under metadata: each item is reported at its place in the comma-separated value
  'metadata-trigger-glob-invalid': [
    ['error', 'trigger-glob-invalid', 5, 34, 'Glob "../shared/**" contains "..": paths are matched inside the working folder.'],
    ['error', 'trigger-glob-invalid', 5, 48, 'Glob "src/[abc.ts" has a "[" without a closing "]".'],
  ],
  'metadata-trigger-unknown-key': [['error', 'trigger-unknown-key', 5, 3, 'Unknown key "metadata.context_trigger.topic". Did you mean "context_trigger.topics"? Use context_trigger.paths, context_trigger.topics, context_trigger.projects, context_trigger.always_active.']],
  'metadata-trigger-invalid': [
    ['error', 'trigger-invalid', 5, 27, '"metadata.context_trigger.topics" is an empty list. Add keywords or phrases, or remove the key.'],
    ['error', 'trigger-invalid', 6, 35, 'Project code "E 07" may only use letters, digits, "_", "-" and "#" (one digit), e.g. "E##".'],
    ['error', 'trigger-invalid', 7, 34, '"metadata.context_trigger.always_active" must be "true" or "false".'],
  ],
  'metadata-trigger-twice': [['error', 'trigger-invalid', 9, 3, 'Triggers are given twice, in "context_trigger" and in "metadata.context_trigger.paths". Keep one form.']],
  'metadata-trigger-nested': [
    ['error', 'trigger-invalid', 5, 3, '"metadata.context_trigger" is not read: give each trigger its own string key, e.g. context_trigger.paths: "*.sql, supabase/**".'],
    ['error', 'metadata-invalid', 6, 5, '"metadata.context_trigger" must be a string.'],
  ],
  'metadata-paths-twice': [['error', 'trigger-invalid', 4, 1, 'Paths are given twice, in "paths" and in "metadata.context_trigger.paths". Keep one of them.']],
  'metadata-progressive-invalid': [['error', 'progressive-invalid', 5, 16, '"metadata.progressive" must be "true"; to load the body whole, remove it and "metadata.progressive.always".']],
  'metadata-progressive-twice': [['error', 'progressive-invalid', 6, 3, 'The progressive structure is given twice, in "progressive" and in "metadata.progressive.always". Keep one form.']],
  'metadata-always-unknown-id': [
    ['error', 'always-unknown-id', 5, 31, '"metadata.progressive.always" names "core-tols", but no heading has {#core-tols}. Did you mean "core-tools"? Known IDs: rules, core-tools.'],
    ['error', 'always-duplicate', 5, 42, '"rules" is listed twice in "metadata.progressive.always". Remove the duplicate.'],
  ],
  'metadata-resource-missing': [['error', 'resource-missing', 5, 31, 'Resource "scripts/missing.py" does not exist in the skill folder. Fix the path or remove the entry.']],
  'metadata-resources-twice': [['error', 'resources-invalid', 7, 3, 'The bundled files are given twice, in "resources" and in "metadata.resources". Keep one of them.']],
  // Every problem of a file at once, in reading order
  'many-problems': [
    ['error', 'description-missing', 2, 1, 'has no "description"'],
    ['error', 'name-invalid', 2, 7, 'Use name: many-problems'],
    ['error', 'always-unknown-id', 4, 12, 'names "missing"'],
    ['error', 'section-id-missing', 8, 14, 'Add {#no-id-here}'],
    ['error', 'section-id-duplicate', 12, 10, 'already used on line 10'],
  ],
}

describe('validation rules', () => {
  it.each(Object.entries(cases))('%s', (name, expected) => {
    const compiled = expectDiagnostics(join(fixtures, 'invalid', name), expected)
    const hasError = expected.some(e => e[0] === 'error')
    expect(compiled.failed).toBe(hasError)
  })

  it('covers every invalid fixture', async () => {
    const { readdirSync } = await import('node:fs')
    expect(readdirSync(join(fixtures, 'invalid')).sort()).toEqual(Object.keys(cases).sort())
  })

  it('makes a name mismatch an error with strict', () => {
    expectDiagnostics(join(fixtures, 'invalid', 'name-mismatch'), [['error', 'name-mismatch', 2, 7, 'must match its folder']], { strict: true })
  })

  it('refuses frontmatter over 262,144 characters before parsing it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skill-kit-'))
    mkdirSync(join(dir, 'long'))
    writeFileSync(join(dir, 'long', 'SKILL.md'), `---\nname: long\ndescription: "${'a'.repeat(262_144)}"\n---\nBody.\n`)
    expectDiagnostics(join(dir, 'long'), [['error', 'yaml-too-long', 2, 1, 'The frontmatter has 262,170 characters; at most 262,144 are allowed. Move long text into the body.']])
    rmSync(dir, { recursive: true })
  })

  it('refuses a skill file over 4 MiB before reading it, and compiles it again once it is smaller', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skill-kit-'))
    mkdirSync(join(dir, 'huge'))
    const file = join(dir, 'huge', 'SKILL.md')
    writeFileSync(file, '---\nname: huge\ndescription: Huge.\n---\nBody.\n')
    // 50 MiB, sparse: written at once.
    truncateSync(file, 50 * 1024 * 1024)
    const loader = new SkillLoader()
    const compiled = expectDiagnostics(join(dir, 'huge'), [['error', 'skill-too-large', 1, 1, 'The skill file has 52,428,800 bytes; at most 4,194,304 (4 MiB) are read. Move long reference material into files of the skill\'s folder (its resources), which agents read only when they need them.']])
    expect(compiled).toMatchObject({ name: 'huge', mode: 'fallback', failed: true, cover: '', body: '' })
    expect(loader.load(file).compiled.failed).toBe(true)
    expect(new SkillLoader({ onInvalid: 'fallback' }).load(file).compiled.failed).toBe(false)
    truncateSync(file, 40)
    expect(loader.load(file).compiled).toMatchObject({ name: 'huge', mode: 'regular', diagnostics: [] })
    rmSync(dir, { recursive: true })
  })

  it('checks a x.skill.md name against its file name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skill-kit-'))
    writeFileSync(join(dir, 'deploy.skill.md'), '---\nname: ship\ndescription: Ships.\n---\nBody.\n')
    const { compiled } = new SkillLoader().load(join(dir, 'deploy.skill.md'))
    expect(compiled.diagnostics).toMatchObject([{ code: 'name-mismatch', line: 2, message: expect.stringContaining('its file name "deploy.skill.md"') }])
    rmSync(dir, { recursive: true })
  })
})

describe('symlinked resources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skill-kit-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('rejects a symlinked file and a file behind a symlinked folder', () => {
    const skill = join(dir, 'linked')
    mkdirSync(join(skill, 'real'), { recursive: true })
    writeFileSync(join(dir, 'outside.txt'), 'secret')
    writeFileSync(join(skill, 'real', 'inside.txt'), 'ok')
    symlinkSync(join(dir, 'outside.txt'), join(skill, 'link.txt'))
    symlinkSync(join(skill, 'real'), join(skill, 'alias'))
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: linked\ndescription: Links.\nresources:\n  - link.txt\n  - alias/inside.txt\n  - real/inside.txt\n---\nBody.\n')
    expectDiagnostics(skill, [
      ['error', 'resource-symlink', 5, 5, 'Resource "link.txt" is a symbolic link'],
      ['error', 'resource-symlink', 6, 5, 'Resource "alias/inside.txt" is a symbolic link'],
    ])
  })

  it('leaves symlinks out of the automatic bundled file list', () => {
    const skill = join(dir, 'auto')
    mkdirSync(join(skill, 'scripts'), { recursive: true })
    writeFileSync(join(skill, 'scripts', 'run.sh'), 'echo')
    symlinkSync(join(dir, 'outside.txt'), join(skill, 'scripts', 'link.txt'))
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: auto\ndescription: Auto.\n---\nBody.\n')
    expect(new SkillLoader().load(join(skill, 'SKILL.md')).compiled.resources).toEqual(['scripts/run.sh'])
  })
})

describe('fallback', () => {
  it('loads an invalid skill whole, keeping its diagnostics', () => {
    const compiled = diagnosticsOf(join(fixtures, 'invalid', 'section-id-missing'), { onInvalid: 'fallback' })
    expect(compiled.failed).toBe(false)
    expect(compiled.mode).toBe('fallback')
    expect(compiled.sections).toEqual([])
    expect(compiled.cover.startsWith('## Rules {#rules}')).toBe(true)
    expect(compiled.cover.endsWith('### Deep {#deep}')).toBe(true)
    expect(compiled.diagnostics.map(d => d.code)).toEqual(['section-id-missing', 'section-id-missing'])
  })
})

describe('long lists of unknown section IDs', () => {
  it('list 20 known IDs and guess for the first 10 unknown ones', () => {
    const body = Array.from({ length: 25 }, (_, i) => `## H${i} {#h${i}}\n\ntext\n`).join('\n')
    const always = Array.from({ length: 12 }, (_, i) => `h${i}x`).join(', ')
    const compiled = compileSkill({ file: '/repo/skills/long/SKILL.md', source: `---\nname: long\ndescription: d\nprogressive:\n  always: [${always}]\n---\n${body}`, folder: { files: [], kind: () => 'missing' } })
    const known = `${Array.from({ length: 20 }, (_, i) => `h${i}`).join(', ')} and 5 more`
    expect(compiled.diagnostics.map(d => d.message)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `"progressive.always" names "h${i}x", but no heading has {#h${i}x}. Did you mean "h${i}"? Known IDs: ${known}.`),
      ...[10, 11].map(i => `"progressive.always" names "h${i}x", but no heading has {#h${i}x}. Known IDs: ${known}.`),
    ])
  })
})
