// Nothing outside a skill's folder is opened: every read of the file system is
// recorded while skills whose resources point outside (by `..`, an absolute
// path, a symlinked folder or file) are loaded.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { SkillLoader } from '../../src/skill/load'

const reads = vi.hoisted(() => [] as string[])
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>()
  const recorded = <F extends (...args: any[]) => any>(read: F) => ((path: unknown, ...rest: unknown[]) => {
    // A number is a descriptor, opened (and recorded) before.
    if (typeof path !== 'number')
      reads.push(String(path))
    return read(path, ...rest)
  }) as F
  return { ...fs, default: fs, readFileSync: recorded(fs.readFileSync), openSync: recorded(fs.openSync), createReadStream: recorded(fs.createReadStream) }
})

const root = realpathSync(mkdtempSync(join(tmpdir(), 'skill-kit-outside-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('a skill\'s resources outside its folder', () => {
  it('are reported, and never read, hashed or watched', () => {
    const outside = join(root, 'outside')
    mkdirSync(outside)
    writeFileSync(join(outside, 'secret.txt'), 'secret')
    const folder = join(root, 'skills', 'leaky')
    mkdirSync(folder, { recursive: true })
    symlinkSync(outside, join(folder, 'linked'))
    symlinkSync(join(outside, 'secret.txt'), join(folder, 'secret-link.txt'))
    writeFileSync(join(folder, 'SKILL.md'), [
      '---',
      'name: leaky',
      'description: Points outside.',
      'resources:',
      '  - ../../outside/secret.txt',
      `  - ${join(outside, 'secret.txt')}`,
      '  - linked/secret.txt',
      '  - secret-link.txt',
      '---',
      'Body.',
      '',
    ].join('\n'))

    reads.length = 0
    const loaded = new SkillLoader().load(join(folder, 'SKILL.md'))
    expect(loaded.compiled.diagnostics.map(d => [d.code, d.line])).toEqual([
      ['resource-outside', 5],
      ['resource-outside', 6],
      ['resource-symlink', 7],
      ['resource-symlink', 8],
    ])
    expect(loaded.dependencies).toEqual([join(folder, 'SKILL.md')])
    expect(reads.length).toBeGreaterThan(0)
    expect(reads.filter(path => !path.startsWith(folder + sep))).toEqual([])
  })
})
