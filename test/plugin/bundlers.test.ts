/**
 * Builds the fixture apps with every bundler the package ships a plugin for,
 * then imports the output and checks the imported values. The plugins come
 * from `dist/` (run `npm run build` first), so the exports are tested as shipped.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BuildResult, Settled } from '../support/build'
import { beforeAll, describe, expect, it } from 'vitest'
import { SkillLoader } from '../../src/skill/load'
import { build, BUNDLERS, settle, unwrap } from '../support/build'

const here = dirname(fileURLToPath(import.meta.url))
const repo = resolve(here, '../..')
const app = join(repo, 'test/fixtures/app')
const invalid = join(repo, 'test/fixtures/invalid')

/** The one-line hint that opens every progressive cover (src/skill/cover.ts). */
const COVER_HINT = 'This skill is progressive: read the sections you need with the skill tool\'s read_section action, passing a section_id from the index below (offset and limit read a range of lines).'
/** Appears only in the non-always section `recalc` of the xlsx fixture. */
const SENTINEL = 'quokkasentinel'

/** The end of the xlsx cover: the index of the sections. */
const COVER_INDEX = [
  'Sections you can read on demand:',
  '- mandatory-rules — Mandatory rules',
  '- reading — Reading workbooks',
  '  - read-sheet — Read a sheet',
  '- recalc — Formulas and recalculation',
  '  - formula-errors — Formula errors',
].join('\n')

const READ_SHEET = [
  '### Read a sheet {#read-sheet}',
  '',
  'Load one sheet into a DataFrame:',
  '',
  '```python',
  'import pandas as pd',
  '## fake heading inside a code block',
  'df = pd.read_excel("input.xlsx", sheet_name="Data")',
  '```',
  '',
  'Check `df.dtypes` before computing anything.',
].join('\n')

describe.each(BUNDLERS)('%s', (bundler) => {
  const results: Record<'main' | 'coverOnly' | 'failure' | 'fallback', Settled<BuildResult> | undefined> = { main: undefined, coverOnly: undefined, failure: undefined, fallback: undefined }
  const main = () => unwrap(results.main)
  const coverOnly = () => unwrap(results.coverOnly)
  const fallback = () => unwrap(results.fallback)
  /** The error of the invalid build, which must fail. */
  const failure = (): Error => {
    const settled = results.failure!
    if (settled.ok)
      throw new Error(`${bundler} built the invalid fixture without an error`)
    return settled.error as Error
  }

  beforeAll(async () => {
    results.main = await settle(build(bundler, join(app, 'main.js'), undefined, 'app-main'))
    results.coverOnly = await settle(build(bundler, join(app, 'cover-only.js'), undefined, 'app-cover-only'))
    results.failure = await settle(build(bundler, join(invalid, 'main.js'), undefined, 'invalid-error'))
    results.fallback = await settle(build(bundler, join(invalid, 'main.js'), { onInvalid: 'fallback' }, 'invalid-fallback'))
  })

  it('names none of the build machine\'s folders in its output', () => {
    const { outDir } = main()
    const leaks = readdirSync(outDir, { recursive: true, withFileTypes: true })
      .filter(e => e.isFile() && /\.[cm]?js$/.test(e.name) && readFileSync(join(e.parentPath, e.name), 'utf8').includes(repo))
      .map(e => e.name)
    expect(leaks).toEqual([])
  })

  describe('progressive skill', () => {
    it('has its name, mode and description', () => {
      const { xlsx } = main().module
      expect(xlsx.name).toBe('xlsx')
      expect(xlsx.mode).toBe('progressive')
      expect(xlsx.description).toBe('Create, edit and analyse spreadsheets (.xlsx, .xlsm, .csv). Use when the user asks to read, write, or recalculate a workbook.')
      expect(xlsx.frontmatter.license).toBe('Apache-2.0')
      expect(xlsx.resources).toEqual(['scripts/recalc.py'])
      expect(xlsx.diagnostics).toEqual([])
    })

    it('has a cover with the hint, preamble, files, always-on section and index', () => {
      const { xlsx, cover } = main().module
      expect(xlsx.cover.startsWith(`${COVER_HINT}\n\n`)).toBe(true)
      expect(xlsx.cover).toContain('Use openpyxl to edit workbooks and pandas to analyse them')
      expect(xlsx.cover).toContain('Bundled files (paths relative to the skill folder):\n- scripts/recalc.py')
      expect(xlsx.cover).toContain('## Mandatory rules {#mandatory-rules}\n\n- Never overwrite the user\'s original file: write a copy next to it.')
      expect(xlsx.cover.endsWith(COVER_INDEX)).toBe(true)
      expect(xlsx.cover).not.toContain(SENTINEL)
      expect(cover).toBe(xlsx.cover)
    })

    it('reads a section by ID, exactly', () => {
      expect(main().module.xlsx.readSection('read-sheet')).toBe(READ_SHEET)
    })

    it('reads a section by heading, case-insensitively', () => {
      const { xlsx } = main().module
      expect(xlsx.readSection('READ A SHEET')).toBe(READ_SHEET)
      expect(xlsx.readSection('formulas and recalculation')).toContain(SENTINEL)
    })

    it('does not take a heading inside a code block for a section', () => {
      const { xlsx } = main().module
      expect(() => xlsx.readSection('fake heading inside a code block')).toThrow(expect.objectContaining({ code: 'unknown-section' }))
    })

    it('reads a range of lines with offset and limit', () => {
      const { xlsx } = main().module
      expect(xlsx.readSection('read-sheet', { offset: 2, limit: 1 })).toBe('Load one sheet into a DataFrame:')
      expect(xlsx.readSection('read-sheet', { offset: 10 })).toBe('Check `df.dtypes` before computing anything.')
      expect(xlsx.readSection('read-sheet', { limit: 1 })).toBe('### Read a sheet {#read-sheet}')
    })

    it('reads a setext level-2 section with its level-3 child', () => {
      expect(main().module.xlsx.readSection('recalc')).toBe([
        'Formulas and recalculation {#recalc}',
        '------------------------------------',
        '',
        'Run `python scripts/recalc.py output.xlsx` after every edit; it recomputes each formula with LibreOffice.',
        `Report the cells that still hold errors (${SENTINEL}).`,
        '',
        '### Formula errors {#formula-errors}',
        '',
        'Look for `#REF!`, `#DIV/0!` and `#NAME?` in the recalc report and fix their sources.',
      ].join('\n'))
    })
  })

  describe('query imports', () => {
    it('?sections maps IDs to sections with lines', () => {
      const { sections } = main().module
      expect(Object.keys(sections)).toEqual(['mandatory-rules', 'reading', 'read-sheet', 'recalc', 'formula-errors'])
      expect(sections['read-sheet']).toMatchObject({
        id: 'read-sheet',
        title: 'Read a sheet',
        level: 3,
        parent: 'reading',
        children: [],
        content: READ_SHEET,
        startLine: 20,
        endLine: 30,
      })
      expect(sections.recalc).toMatchObject({ level: 2, parent: null, children: ['formula-errors'], startLine: 32 })
      expect(sections.reading.children).toEqual(['read-sheet'])
      // The fixture file agrees with the reported lines.
      const lines = readFileSync(join(app, 'skills/xlsx/SKILL.md'), 'utf8').split('\n')
      expect(lines[20 - 1]).toBe('### Read a sheet {#read-sheet}')
      expect(lines[32 - 1]).toBe('Formulas and recalculation {#recalc}')
    })

    it('?section= is the section text', () => {
      expect(main().module.readSheet).toBe(READ_SHEET)
    })

    it('?meta has the section index but no cover or text', () => {
      const { meta } = main().module
      expect(meta).toMatchObject({ name: 'xlsx', mode: 'progressive', resources: ['scripts/recalc.py'], diagnostics: [] })
      expect(meta.sections).toEqual([
        { id: 'mandatory-rules', title: 'Mandatory rules', level: 2, parent: null },
        { id: 'reading', title: 'Reading workbooks', level: 2, parent: null },
        { id: 'read-sheet', title: 'Read a sheet', level: 3, parent: 'reading' },
        { id: 'recalc', title: 'Formulas and recalculation', level: 2, parent: null },
        { id: 'formula-errors', title: 'Formula errors', level: 3, parent: 'recalc' },
      ])
      expect(meta).not.toHaveProperty('cover')
      expect(meta).not.toHaveProperty('readSection')
      expect(JSON.stringify(meta)).not.toContain(SENTINEL)
    })

    it('a ?cover-only bundle does not carry the on-demand sections', () => {
      const { module, code } = coverOnly()
      expect(module.cover.startsWith(`${COVER_HINT}\n\n`)).toBe(true)
      expect(module.cover.endsWith(COVER_INDEX)).toBe(true)
      expect(code).toContain('Sections you can read on demand:')
      expect(code).not.toContain(SENTINEL)
      // A section's text, as is or with its backticks escaped in a template literal.
      expect(code).not.toMatch(/Look for \\?`#REF!/)
    })

    it('a ?cover carries its text exactly: backticks, ${, backslashes, separators, control characters', () => {
      const file = join(app, 'texts', 'escapes.skill.md')
      const expected = new SkillLoader().load(file).compiled.cover
      expect(expected).toContain('String.raw`\\d`')
      expect(coverOnly().module.escapes).toBe(expected)
    })
  })

  describe('regular skills', () => {
    it('a SKILL.md without progressive loads whole and cannot read sections', () => {
      const { notes } = main().module
      expect(notes.name).toBe('notes')
      expect(notes.mode).toBe('regular')
      expect(notes.sections).toEqual([])
      expect(notes.cover).toBe([
        '# Meeting notes',
        '',
        'Write the date, the attendees, then one bullet per decision.',
        '',
        '## Action items',
        '',
        'List each action item with an owner and a due date.',
      ].join('\n'))
      expect(() => notes.readSection('action items')).toThrow(expect.objectContaining({ name: 'SkillReadError', code: 'not-progressive' }))
    })

    it('a *.skill.md skill loads', () => {
      const { quick } = main().module
      expect(quick).toMatchObject({ name: 'quick', mode: 'regular', resources: [], diagnostics: [] })
      expect(quick.description).toBe('Answer in one short paragraph. Use when the user asks for a quick answer.')
      expect(quick.cover).toBe('Answer in at most three sentences. Skip preambles.')
    })

    it('the build reports no warnings for valid skills', () => {
      expect(main().warnings.filter(w => /skill/i.test(w))).toEqual([])
    })
  })

  describe('invalid skill', () => {
    it('fails the build with every diagnostic, located', () => {
      const text = String(failure().message)
      expect(text).toContain('skills/broken/SKILL.md:14:9')
      expect(text).toContain('section-id-missing')
      expect(text).toContain('skills/broken/SKILL.md:5:19')
      expect(text).toContain('always-unknown-id')
    })

    it('fails with the skill\'s diagnostics only, not a parse error of the Markdown', () => {
      // After `this.error`, webpack and rspack go on with whatever `load` returned.
      const text = String(failure().message)
      expect(text).toContain('Invalid skill')
      expect(text).not.toMatch(/parse failed|parse error|Unexpected token/i)
    })

    it('with onInvalid: \'fallback\', loads whole in fallback mode', () => {
      const { broken } = fallback().module
      expect(broken.name).toBe('broken')
      expect(broken.mode).toBe('fallback')
      expect(broken.sections).toEqual([])
      expect(broken.cover).toBe([
        'Follow the setup before anything else.',
        '',
        '## Setup {#setup}',
        '',
        'Install the tools.',
        '',
        '## Usage',
        '',
        'Run the tool on the input file.',
      ].join('\n'))
      expect(() => broken.readSection('setup')).toThrow(expect.objectContaining({ code: 'not-progressive' }))
      expect(broken.diagnostics).toEqual([
        expect.objectContaining({ code: 'always-unknown-id', severity: 'error', line: 5, column: 19 }),
        expect.objectContaining({ code: 'section-id-missing', severity: 'error', line: 14, column: 9 }),
      ])
      for (const d of broken.diagnostics)
        expect(d.file).toMatch(/(?:^|\/)skills\/broken\/SKILL\.md$/)
    })

    it('with onInvalid: \'fallback\', reports the diagnostics as warnings', () => {
      const text = fallback().warnings.join('\n')
      expect(text).toContain('skills/broken/SKILL.md:14:9')
      expect(text).toContain('section-id-missing')
      expect(text).toContain('always-unknown-id')
    })
  })
})
