import type { CliRun } from '../support/cli'
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundleCli, runCli } from '../support/cli'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const fixtures = join(repo, 'test/cli/fixtures')
let script: string

/** Runs `skill-kit …` in a fixture folder; resolves with the exit code, whatever it is. */
function skillKit(cwd: string, ...args: string[]): Promise<CliRun> {
  return runCli(script, join(fixtures, cwd), args)
}

interface JsonReport {
  skills: {
    file: string
    name: string
    mode: string
    diagnostics: { code: string, severity: string, message: string, file: string, line: number, column: number }[]
  }[]
  errors: number
  warnings: number
  targets: string[]
  listings: {
    target: string
    skills: number
    characters: number
    budget: number
    dropped: { min: number, max: number }
    cut: { name: string, file: string, characters: number, cut: string }[]
  }[]
}

/** The errors `invalid/broken-rules/SKILL.md` has, at the places they are. */
const BROKEN = [
  { code: 'name-invalid', line: 2, column: 7 },
  { code: 'always-unknown-id', line: 5, column: 12 },
  { code: 'section-id-missing', line: 12, column: 11 },
  { code: 'section-id-duplicate', line: 16, column: 15 },
]

beforeAll(async () => {
  script = await bundleCli(join(repo, 'test/.tmp/cli-validate'))
})

describe('skill-kit validate', () => {
  it('exits 0 on valid skills, checking the current folder by default', async () => {
    const run = await skillKit('valid', 'validate')
    expect(run).toEqual({ code: 0, stdout: '2 skills checked: 0 errors, 0 warnings.\n', stderr: '' })
  })

  it('exits 1 and prints every error with its location and a code frame', async () => {
    const run = await skillKit('invalid', 'validate')
    expect(run.code).toBe(1)
    expect(run.stderr).toBe('')
    for (const { code, line, column } of BROKEN)
      expect(run.stdout).toContain(`broken-rules/SKILL.md:${line}:${column} error ${code}: `)
    expect(run.stdout).toContain('> 2 | name: Broken_Rules\n    |       ^')
    expect(run.stdout).toContain('Did you mean "rules"?')
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('1 skill checked: 4 errors, 0 warnings.')
  })

  it('prints a JSON report with --format json', async () => {
    const run = await skillKit('invalid', 'validate', '--format', 'json')
    expect(run.code).toBe(1)
    const report = JSON.parse(run.stdout) as JsonReport
    expect(report.errors).toBe(4)
    expect(report.warnings).toBe(0)
    expect(report.skills).toHaveLength(1)
    const [skill] = report.skills
    expect(skill).toMatchObject({ file: 'broken-rules/SKILL.md', name: 'Broken_Rules', mode: 'invalid' })
    expect(skill!.diagnostics.map(({ code, line, column }) => ({ code, line, column }))).toEqual(BROKEN)
    for (const d of skill!.diagnostics) {
      expect(d.severity).toBe('error')
      expect(d.file).toBe('broken-rules/SKILL.md')
      expect(d.message.length).toBeGreaterThan(20)
    }
  })

  it('reports a name that differs from its folder as a warning, and as an error with --strict', async () => {
    const loose = await skillKit('mismatch', 'validate')
    expect(loose.code).toBe(0)
    expect(loose.stdout).toContain('changelog/SKILL.md:2:7 warning name-mismatch: "name" is "change-log" but must match its folder "changelog".')
    expect(loose.stdout).toContain('1 skill checked: 0 errors, 1 warning.')

    const strict = await skillKit('mismatch', 'validate', '--strict')
    expect(strict.code).toBe(1)
    expect(strict.stdout).toContain('changelog/SKILL.md:2:7 error name-mismatch: ')
    expect(strict.stdout).toContain('1 skill checked: 1 error, 0 warnings.')

    const json = JSON.parse((await skillKit('mismatch', 'validate', '--strict', '--format=json')).stdout) as JsonReport
    expect(json.skills[0]!.diagnostics).toMatchObject([{ code: 'name-mismatch', severity: 'error', line: 2, column: 7 }])
  })

  it('finds nested SKILL.md and *.skill.md files in folder arguments', async () => {
    const run = await skillKit('.', 'validate', 'valid', 'mismatch', '--format', 'json')
    expect(run.code).toBe(0)
    const report = JSON.parse(run.stdout) as JsonReport
    expect(report.skills.map(s => [s.file, s.mode])).toEqual([
      ['mismatch/changelog/SKILL.md', 'regular'],
      ['valid/release-notes/SKILL.md', 'progressive'],
      ['valid/team/review/code-review.skill.md', 'regular'],
    ])
    expect(report).toMatchObject({ errors: 0, warnings: 1 })
  })

  it('accepts a file argument and paths outside the working folder', async () => {
    const run = await skillKit('valid', 'validate', '../invalid/broken-rules/SKILL.md')
    expect(run.code).toBe(1)
    expect(run.stdout).toContain('../invalid/broken-rules/SKILL.md:16:15 error section-id-duplicate: ')
  })

  it('exits 0 with the usage for --help', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await skillKit('.', flag)
      expect(run.code).toBe(0)
      expect(run.stdout).toContain('Usage: skill-kit <command> [options]')
      expect(run.stdout).toContain('validate [paths...]')
    }
  })

  it('exits 2 on usage errors', async () => {
    const unknown = await skillKit('.', 'lint')
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe('')
    expect(unknown.stderr).toContain('Unknown command "lint".')
    expect(unknown.stderr).toContain('Usage: skill-kit')

    const format = await skillKit('.', 'validate', '--format', 'xml')
    expect(format.code).toBe(2)
    expect(format.stderr).toContain('--format must be text or json, got "xml".')

    const option = await skillKit('.', 'validate', '--fix')
    expect(option.code).toBe(2)
    expect(option.stderr).toContain('--fix')

    const missing = await skillKit('.', 'validate', 'no-such-folder')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe('skill-kit validate: no-such-folder: no such file or folder.\n')

    const notSkill = await skillKit('valid', 'validate', '../../validate.test.ts')
    expect(notSkill.code).toBe(2)
    expect(notSkill.stderr).toBe('skill-kit validate: ../../validate.test.ts: not a skill file (SKILL.md or *.skill.md).\n')

    const empty = await skillKit('valid', 'validate', '../../../../src/core')
    expect(empty.code).toBe(2)
    expect(empty.stderr).toContain('no SKILL.md or *.skill.md under ../../../../src/core.')

    const bare = await skillKit('.')
    expect(bare.code).toBe(2)
    expect(bare.stdout).toBe('')
    expect(bare.stderr).toContain('Usage: skill-kit')
  })

  it('reports malformed triggers with their lines', async () => {
    const run = await skillKit('.', 'validate', '../../skill/fixtures/invalid/trigger-glob-invalid', '--format', 'json')
    expect(run.code).toBe(1)
    const report = JSON.parse(run.stdout) as JsonReport
    expect(report.skills[0]!.diagnostics.map(d => [d.code, d.line])).toEqual([
      ['trigger-glob-invalid', 7],
      ['trigger-glob-invalid', 8],
      ['trigger-glob-invalid', 9],
    ])
  })

  it('exits 0 with the usage for validate --help', async () => {
    const run = await skillKit('.', 'validate', '--help')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Usage: skill-kit')
  })
})

describe('skill-kit validate --target', () => {
  const targets = '../../skill/fixtures/targets'

  it('reports what the reference validator rejects, with the fix, and exits 1', async () => {
    const run = await skillKit('.', 'validate', `${targets}/agentskills-extensions`, `${targets}/agentskills-yaml`, '--target', 'agentskills')
    expect(run.code).toBe(1)
    expect(run.stderr).toBe('')
    expect(run.stdout).toContain([
      `${targets}/agentskills-extensions/SKILL.md:7:1 error agentskills-field-rejected: The Agent Skills reference validator rejects the field "progressive" ("Unexpected fields in frontmatter"). For strict compliance, replace it with this key under "metadata", which skill-kit reads too: progressive.always: "rules".`,
      '  5 | resources:',
      '  6 |   - scripts/run.py',
      '> 7 | progressive:',
      '    | ^',
    ].join('\n'))
    expect(run.stdout).toContain(`${targets}/agentskills-yaml/SKILL.md:6:16 error agentskills-yaml-flow: `)
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('2 skills checked: 7 errors, 0 warnings.')
  })

  it('passes the strict form, and takes targets repeated or comma-separated', async () => {
    const run = await skillKit('.', 'validate', `${targets}/strict-form`, '--target', 'agentskills')
    expect(run).toEqual({ code: 0, stdout: '1 skill checked: 0 errors, 0 warnings.\n', stderr: '' })
    const both = await skillKit('.', 'validate', `${targets}/strict-form`, '--target=codex,agentskills', '--target', 'codex', '--format', 'json')
    expect((JSON.parse(both.stdout) as JsonReport).targets).toEqual(['agentskills', 'codex'])
  })

  it('prints the target diagnostics and the listings in the JSON report', async () => {
    const run = await skillKit('.', 'validate', `${targets}/file-form`, `${targets}/strict-form`, '--target', 'claude,codex', '--format', 'json')
    expect(run.code).toBe(1)
    const report = JSON.parse(run.stdout) as JsonReport
    expect(report).toMatchObject({ errors: 2, warnings: 2, targets: ['claude', 'codex'] })
    expect(report.skills.map(s => [s.file, s.mode, s.diagnostics.map(d => [d.code, d.severity, d.line, d.column])])).toEqual([
      [`${targets}/file-form/deploy.skill.md`, 'invalid', [['claude-not-discovered', 'error', 1, 1], ['codex-not-discovered', 'error', 1, 1]]],
      [`${targets}/strict-form/SKILL.md`, 'progressive', [['claude-field-ignored', 'warning', 6, 3], ['codex-field-ignored', 'warning', 6, 3]]],
    ])
    // Neither agent lists deploy.skill.md; Claude Code counts "- name: description" lines, Codex adds the file's absolute path.
    const description = 'Write and review PostgreSQL migrations.'
    const codexPath = realpathSync(join(fixtures, '../../skill/fixtures/targets/strict-form/SKILL.md'))
    expect(report.listings).toEqual([
      { target: 'claude', skills: 1, characters: `- strict-form: ${description}\n`.length, budget: 8000, dropped: { min: 0, max: 0 }, cut: [] },
      { target: 'codex', skills: 1, characters: `- strict-form: ${description} (file: ${codexPath})\n`.length, budget: 8000, dropped: { min: 0, max: 0 }, cut: [] },
    ])
  })

  it('exits 2 on an unknown target or a bad Claude Code budget', async () => {
    const unknown = await skillKit('valid', 'validate', '--target', 'claude,cursor')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('--target must be agentskills, claude or codex, got "cursor".')
    process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET = 'lots'
    try {
      const budget = await skillKit('valid', 'validate', '--target', 'claude')
      expect(budget.code).toBe(2)
      expect(budget.stderr).toContain('SLASH_COMMAND_TOOL_CHAR_BUDGET must be a positive number of characters, got "lots".')
    }
    finally {
      delete process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET
    }
  })

  describe('listing budgets', () => {
    const folder = join(repo, 'test/.tmp/cli-validate-listing')
    const skills = join(folder, 'skills')
    /** Twelve skills with descriptions of 540 to 980 characters: 9,276 characters listed, over the 8,000 budgets. */
    const descriptions = Array.from({ length: 12 }, (_, i) => `Use for task ${String(i + 1).padStart(2, '0')}. `.padEnd(500 + (i + 1) * 40, 'x'))
    const names = descriptions.map((_, i) => `skill-${String(i + 1).padStart(2, '0')}`)

    beforeAll(() => {
      rmSync(folder, { recursive: true, force: true })
      names.forEach((name, i) => {
        mkdirSync(join(skills, name), { recursive: true })
        writeFileSync(join(skills, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${descriptions[i]}\n---\nBody.\n`)
      })
    })

    it('names the skills Codex leaves out, at their descriptions, in name order', async () => {
      const run = await skillKit('.', 'validate', '../../.tmp/cli-validate-listing/skills', '--target', 'codex')
      expect(run.code).toBe(0)
      // Codex's own rule: "- name: description (file: path)" lines and their newlines, taken in name order while they fit.
      const lines = names.map((name, i) => `- ${name}: ${descriptions[i]} (file: ${realpathSync(join(skills, name, 'SKILL.md'))})\n`.length)
      const total = lines.reduce((a, b) => a + b, 0)
      let used = 0
      const omitted = names.filter((_, i) => used + lines[i]! <= 8000 ? (used += lines[i]!, false) : true)
      expect(omitted.length).toBeGreaterThan(0)
      for (const name of omitted)
        expect(run.stdout).toContain(`../../.tmp/cli-validate-listing/skills/${name}/SKILL.md:3:14 warning codex-listing-omitted: Codex leaves this skill out of its listing: the 12 skills it would load need ${total.toLocaleString('en')} characters, one "- name: description (file: path)" line each, against its budget of 8,000 characters, filled in name order. Shorten descriptions, or disable skills you do not use.\n`)
      expect(run.stdout).toContain(`\nCodex listing: 12 skills, ${total.toLocaleString('en')} characters against its budget of 8,000: ${omitted.length} left out (${omitted.join(', ')}).\n`)
      expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`12 skills checked: 0 errors, ${omitted.length} warnings.`)
    })

    it('says how many descriptions Claude Code drops, and which when the longest are invoked least', async () => {
      const run = await skillKit('.', 'validate', '../../.tmp/cli-validate-listing/skills', '--target', 'claude', '--format', 'json')
      const [listing] = (JSON.parse(run.stdout) as JsonReport).listings
      expect(listing).toEqual({
        target: 'claude',
        skills: 12,
        characters: 9276,
        budget: 8000,
        dropped: { min: 2, max: 3 },
        cut: [
          { name: 'skill-12', file: '../../.tmp/cli-validate-listing/skills/skill-12/SKILL.md', characters: 982, cut: 'description' },
          { name: 'skill-11', file: '../../.tmp/cli-validate-listing/skills/skill-11/SKILL.md', characters: 942, cut: 'description' },
        ],
      })
      const text = await skillKit('.', 'validate', '../../.tmp/cli-validate-listing/skills', '--target', 'claude')
      expect(text.code).toBe(0)
      expect(text.stdout).toBe('Claude Code listing: 12 skills, 9,276 characters against its budget of 8,000 (1% of the context window; 8,000 by its documentation). It keeps every name and drops the descriptions of the skills invoked least until the listing fits: at least 2 (skill-12, skill-11, if those are the least invoked), at most 3. Shorten descriptions, or set disable-model-invocation: true on skills only you invoke.\n\n12 skills checked: 0 errors, 0 warnings.\n')
    })

    it('takes Claude Code\'s budget from SLASH_COMMAND_TOOL_CHAR_BUDGET', async () => {
      process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET = '20000'
      try {
        const run = await skillKit('.', 'validate', '../../.tmp/cli-validate-listing/skills', '--target', 'claude')
        expect(run.stdout).toBe('Claude Code listing: 12 skills, 9,276 of 20,000 characters.\n\n12 skills checked: 0 errors, 0 warnings.\n')
        process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET = '9000'
        const over = await skillKit('.', 'validate', '../../.tmp/cli-validate-listing/skills', '--target', 'claude')
        expect(over.stdout).toContain('Claude Code listing: 12 skills, 9,276 characters against its budget of 9,000 (SLASH_COMMAND_TOOL_CHAR_BUDGET). It keeps every name and drops the descriptions of the skills invoked least until the listing fits: at least 1 (skill-12, if those are the least invoked), at most 1.')
      }
      finally {
        delete process.env.SLASH_COMMAND_TOOL_CHAR_BUDGET
      }
    })
  })
})
