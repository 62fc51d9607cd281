// skill-kit eval, in process: trigger cases through activation and
// search_skills, retrieval cases through skill-kit search on a lexical project.

import type { CliIo } from '../../src/cli/io'
import type { EvalReport } from '../../src/cli/eval'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { run } from '../../src/cli/index'
import { defaultProjectConfig } from '../../src/knowledge/config'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/cli-eval')
const skills = join(work, 'skills')
const project = join(work, 'home')

/** Runs `skill-kit …args` in this process; resolves with the exit code and what it printed. */
async function skillKit(...args: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = { out: (text) => { stdout += text }, err: (text) => { stderr += text }, errIsTTY: false }
  const code = await run(args, io)
  return { code, stdout, stderr }
}

function writeSkill(name: string, frontmatter: string): void {
  mkdirSync(join(skills, name), { recursive: true })
  writeFileSync(join(skills, name, 'SKILL.md'), `---\nname: ${name}\n${frontmatter}\n---\n\n# ${name}\n\nSteps.\n`)
}

function writeCases(name: string, cases: unknown): string {
  const file = join(work, name)
  writeFileSync(file, JSON.stringify(cases))
  return file
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  writeSkill('postgres-migrations', 'description: Write and review PostgreSQL schema migrations safely.\ncontext_trigger:\n  topics: [database, migration]')
  writeSkill('release-notes', 'description: Draft release notes from merged pull requests.')
  writeSkill('code-review', 'description: Review a pull request for correctness, tests and readability.')
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(project, 'knowledge'), { recursive: true })
  writeFileSync(join(project, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig('home'), model: false }))
  const build = await skillKit('build', '--project', project)
  expect(build.code).toBe(0)
  // A project with the tiny test model, for search_skills by vector.
  await buildTinyModel(join(work, 'models'))
  mkdirSync(join(work, 'tiny/knowledge'), { recursive: true })
  writeFileSync(join(work, 'tiny/skill-kit.json'), JSON.stringify({ ...defaultProjectConfig('tiny'), model: { id: TINY_MODEL_ID, cacheDir: '../models' } }))
}, 60_000)

describe('skill-kit eval', () => {
  it('measures trigger cases through activation and search_skills: precision, recall and each miss', async () => {
    const cases = writeCases('triggers.json', { skill: 'postgres-migrations', evals: [
      { query: 'add a column to the users table in a migration', should_trigger: true },
      { prompt: 'the database is slow after the schema change', should_trigger: true },
      { query: 'add an index to speed up slow queries', should_trigger: true },
      { query: 'review this pull request', should_trigger: false },
      { query: 'draft notes about the database for the release', should_trigger: false },
    ] })
    const result = await skillKit('eval', cases, '--skills', skills, '--json')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout) as EvalReport
    // Activation: topics "database" and "migration" (whole words): cases 1, 2 and the false alarm 5.
    expect(report.trigger!.activation).toEqual({ cases: 5, truePositives: 2, falsePositives: 1, falseNegatives: 1, trueNegatives: 1, precision: 2 / 3, recall: 2 / 3 })
    // search_skills, first result: case 3 shares no word with the skill; case 5 ranks release-notes first.
    expect(report.trigger!.searchSkills).toMatchObject({ truePositives: 2, falseNegatives: 1, falsePositives: 0, trueNegatives: 2, precision: 1, recall: 2 / 3 })
    expect(report.trigger!.misses.map(m => m.query)).toEqual(['add an index to speed up slow queries', 'draft notes about the database for the release'])
    const text = await skillKit('eval', cases, '--skills', skills)
    expect(text.stdout).toContain('Trigger cases for postgres-migrations:\n  activation: precision 67 %, recall 67 %')
    expect(text.stdout).toContain('  should trigger postgres-migrations: "add an index to speed up slow queries" (activation quiet, search_skills rank -)')
  })

  it('ranks search_skills by vector with the project\'s model (--vectors), and says which ranking it used', async () => {
    const cases = writeCases('vectors.json', [
      { query: 'write and review a schema migration', should_trigger: true, skill: 'postgres-migrations' },
      { query: 'review this pull request', should_trigger: false, skill: 'postgres-migrations' },
      { query: 'quantum chromodynamics', should_trigger: true, skill: 'postgres-migrations' },
    ])
    const lexical = JSON.parse((await skillKit('eval', cases, '--skills', skills, '--json')).stdout) as EvalReport
    expect(lexical.trigger!.searchRanking).toBe('lexical')
    // Lexically, a request that shares no word with any skill ranks none.
    expect(lexical.trigger!.misses.find(m => m.query === 'quantum chromodynamics')!.searchRank).toBeNull()
    const result = await skillKit('eval', cases, '--skills', skills, '--vectors', '--project', join(work, 'tiny'), '--offline', '--json')
    expect(result.stderr).toBe('')
    const report = JSON.parse(result.stdout) as EvalReport
    expect(report.trigger!.searchRanking).toBe('vector')
    // By vector every skill has a score, so even that request ranks all three.
    const rank = report.trigger!.misses.find(m => m.query === 'quantum chromodynamics')?.searchRank ?? 1
    expect([1, 2, 3]).toContain(rank)
    const none = await skillKit('eval', cases, '--skills', skills, '--vectors', '--project', project)
    expect(none.code).toBe(1)
    expect(none.stderr).toContain('--vectors ranks skills with the project\'s embedding model, but "home" has none ("model": false in skill-kit.json)')
  })

  it('measures retrieval cases through skill-kit search: top-1, MRR and recall@5', async () => {
    const cases = writeCases('retrieval.json', [
      { query: 'restore a deleted file', expected: 'restore-backup' },
      { query: 'the wifi keeps dropping', expected: ['network/wifi'] },
      { query: 'how often do backups run', expected: 'network/wifi' },
    ])
    const result = await skillKit('eval', cases, '--project', project, '--json')
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout) as EvalReport
    expect(report.retrieval).toMatchObject({ cases: 3, top1: 2 / 3, recall5: 2 / 3 })
    expect(report.retrieval!.misses).toEqual([{ query: 'how often do backups run', expected: ['network/wifi'], got: expect.not.arrayContaining(['network/wifi']) }])
  })

  it.each([
    [[{ query: 'x' }], 'case 1: give either "should_trigger" (true or false: a trigger case) or "expected" (document IDs: a retrieval case).'],
    [[{ query: 'x', should_trigger: 'yes', skill: 'code-review' }], 'case 1: "should_trigger" must be true or false, got "yes".'],
    [[{ query: 'x', should_trigger: true }], 'case 1: which skill should it trigger? Add "skill" to the case or to the file'],
    [[{ query: 'x', should_trigger: true, skill: 'code-reveiw' }], 'The cases name "code-reveiw", not among the 3 skills found'],
    [{ cases: [] }, 'expected a JSON array of cases, or an object with an "evals" array'],
  ])('says what is wrong with a cases file, in its terms (case %#)', async (cases, message) => {
    const result = await skillKit('eval', writeCases('bad.json', cases), '--skills', skills)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(message)
    expect(result.stderr).not.toContain('    at ')
  })
})
