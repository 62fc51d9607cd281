// The gate between a path an MCP client names and the disk, alone: what it
// reads and every way out of the folder it refuses.

import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { insidePath, OutsideError, readContained, resolvesInside } from '../../../src/cli/mcp/contain'

const work = join(resolve(import.meta.dirname, '../../..'), 'test/.tmp/cli-mcp-contain')
const folder = join(work, 'skills')

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(join(folder, 'notes/scripts'), { recursive: true })
  mkdirSync(join(work, 'outside'))
  writeFileSync(join(work, 'outside/secret.txt'), 'secret')
  writeFileSync(join(folder, 'notes/scripts/run.sh'), 'echo run\n')
  symlinkSync(join(work, 'outside/secret.txt'), join(folder, 'notes/leak.txt'))
  symlinkSync(join(work, 'outside'), join(folder, 'notes/linked'))
  symlinkSync(join(folder, 'notes/scripts/run.sh'), join(folder, 'notes/alias.sh'))
})

describe('readContained', () => {
  it('reads a file inside the folder, also through a link that stays inside', () => {
    expect(readContained(folder, 'notes/scripts/run.sh', 'run.sh').toString()).toBe('echo run\n')
    expect(readContained(folder, 'notes/alias.sh', 'alias.sh').toString()).toBe('echo run\n')
    expect(readContained(folder, 'notes/./scripts/../scripts/run.sh', 'run.sh').toString()).toBe('echo run\n')
  })

  it('refuses "..", absolute paths, drives and NUL bytes before touching the disk', () => {
    for (const path of ['../outside/secret.txt', 'notes/../../outside/secret.txt', '..', join(work, 'outside/secret.txt'), '/etc/passwd', 'C:/Windows/win.ini', 'notes\\..\\..\\outside\\secret.txt', 'notes/run.sh\0', '', '.'])
      expect(() => readContained(folder, path, JSON.stringify(path)), path).toThrow(OutsideError)
    expect(() => readContained(folder, '../outside/secret.txt', '"x"')).toThrow('"x" is outside the folder it is served from: paths are relative to it, without "..".')
  })

  it('refuses a link out of the folder, to a file or through a linked folder', () => {
    expect(() => readContained(folder, 'notes/leak.txt', '"leak.txt"')).toThrow('"leak.txt" leads outside the folder it is served from (a symbolic link); only files inside it are served.')
    expect(() => readContained(folder, 'notes/linked/secret.txt', '"s"')).toThrow(/leads outside/)
  })

  it('refuses a folder and a missing file', () => {
    expect(() => readContained(folder, 'notes/scripts', '"scripts"')).toThrow('"scripts" is not a file.')
    expect(() => readContained(folder, 'notes/none.md', '"none"')).toThrow('"none" does not exist.')
  })
})

describe('insidePath and resolvesInside', () => {
  it('normalises a path inside, and gives nothing for one outside', () => {
    expect(insidePath('scripts/./run.sh')).toBe('scripts/run.sh')
    expect(insidePath('scripts\\run.sh')).toBe('scripts/run.sh')
    expect(insidePath('scripts/../../x')).toBeUndefined()
  })

  it('tells where a path really is', () => {
    expect(resolvesInside(folder, join(folder, 'notes/alias.sh'))).toBe(true)
    expect(resolvesInside(folder, join(folder, 'notes/leak.txt'))).toBe(false)
    expect(resolvesInside(folder, join(folder, 'notes/none'))).toBe(false)
  })
})
