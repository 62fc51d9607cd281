import type { CliRun } from './cli'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundleCli, runCli } from './cli'

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
