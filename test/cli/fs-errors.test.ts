// Paths that cannot be read or written as a command needs: the message names
// the path and the fix, the exit code is 1, and no stack trace is printed.

import type { CliRun } from '../support/cli'
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { defaultProjectConfig } from '../../src/knowledge/config'
import { bundleCli, runCli } from '../support/cli'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/cli-fs-errors')
let script: string

const skillKit = (...args: string[]): Promise<CliRun> => runCli(script, work, args)

function project(name: string): string {
  const dir = join(work, name)
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(dir, 'knowledge'), { recursive: true })
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig(name), model: false }, null, 2))
  return dir
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  script = await bundleCli(work)
}, 60_000)

describe('file-system errors on the user\'s paths', () => {
  it('a file where the index folder goes (ENOTDIR)', async () => {
    writeFileSync(join(project('blocked'), '.skill-kit'), '')
    const run = await skillKit('build', '--project', 'blocked')
    expect(run.stderr).toBe('skill-kit build: Cannot create the folder blocked/.skill-kit/index: a part of that path is a file where a folder is expected. Move that file away, or choose another path (ENOTDIR).\n')
    expect(run.code).toBe(1)
  })

  it('a file where an export\'s parent folder goes (EEXIST)', async () => {
    project('exported')
    expect((await skillKit('build', '--project', 'exported')).code).toBe(0)
    writeFileSync(join(work, 'taken'), '')
    const run = await skillKit('export', 'taken/skill', '--project', 'exported')
    expect(run.stderr).toBe('skill-kit export: Cannot create the folder taken: a file is in the way. Move it away, or choose another path (EEXIST).\n')
    expect(run.code).toBe(1)
  })

  it('a folder named skill-kit.json', async () => {
    mkdirSync(join(work, 'folder-settings/skill-kit.json'), { recursive: true })
    const run = await skillKit('build', '--project', 'folder-settings')
    expect(run.stderr).toBe('folder-settings/skill-kit.json:1:1 error config-invalid: skill-kit.json is a folder, not a file. Remove it, then write the project\'s settings with "skill-kit init".\n\n'
      + 'skill-kit build: The settings of folder-settings cannot be used (1 error, 0 warnings).\n')
    expect(run.code).toBe(1)
  })
})
