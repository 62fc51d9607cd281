// A registry skill's published files: real files of its folder only, checked
// as they are read, whatever its resources list says (a list made before a
// file was swapped for a symbolic link, a hand-made one with `..`).

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExportError } from '../../src/export/error'
import { skillFolderFiles } from '../../src/export/skill-folder-files'

const work = mkdtempSync(join(tmpdir(), 'skill-kit-folder-files-'))
const folder = join(work, 'skills/pdf')
const file = join(folder, 'SKILL.md')
const SKILL = '---\r\nname: pdf\r\ndescription: Read PDFs.\r\n---\r\n'

beforeAll(() => {
  mkdirSync(join(folder, 'scripts'), { recursive: true })
  mkdirSync(join(work, 'outside'))
  writeFileSync(file, SKILL)
  writeFileSync(join(folder, 'scripts/extract.py'), 'print(1)\n')
  writeFileSync(join(work, 'outside/secret.txt'), 'secret\n')
  writeFileSync(join(work, 'skills/neighbour.txt'), 'not the skill\'s\n')
  symlinkSync(join(work, 'outside/secret.txt'), join(folder, 'leak.txt'))
  symlinkSync(join(work, 'outside'), join(folder, 'linked'), 'dir')
})

afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The error of publishing the skill with `resources`, as a person reads it. */
function refusal(resources: string[]): { code: string, message: string } {
  try {
    skillFolderFiles({ name: 'pdf', file, resources }, 'skills/pdf/SKILL.md')
  }
  catch (error) {
    expect(error).toBeInstanceOf(ExportError)
    return { code: (error as ExportError).code, message: (error as Error).message }
  }
  throw new Error('published')
}

describe('skillFolderFiles', () => {
  it('reads the skill file\'s own bytes as SKILL.md and each resource at its path', () => {
    const files = skillFolderFiles({ name: 'pdf', file, resources: ['scripts/extract.py'] }, 'skills/pdf/SKILL.md')
    expect(files.map(f => [f.path, Buffer.from(f.data).toString()])).toEqual([['SKILL.md', SKILL], ['scripts/extract.py', 'print(1)\n']])
  })

  it('never reads a file through a symbolic link, to a file or along a folder', () => {
    expect(refusal(['leak.txt'])).toEqual({
      code: 'skill-unpublishable',
      message: 'Skill "pdf" (skills/pdf/SKILL.md) cannot be published: its bundled file "leak.txt" is (or lies in a folder that is) a symbolic link. Bundled files must be real files inside the skill folder: copy the target in, or leave it out of resources.',
    })
    expect(refusal(['linked/secret.txt']).message).toContain('its bundled file "linked/secret.txt" is (or lies in a folder that is) a symbolic link.')
  })

  it('never reads a path outside the folder, or one that is not a file', () => {
    expect(refusal(['../neighbour.txt']).message).toBe('Skill "pdf" (skills/pdf/SKILL.md) cannot be published: its bundled file "../neighbour.txt" is not a file of its folder. List files by their path inside the skill folder.')
    expect(refusal(['scripts/../../neighbour.txt']).message).toContain('"scripts/../../neighbour.txt" is not a file of its folder.')
    expect(refusal([join(work, 'outside/secret.txt')]).message).toContain('is not a file of its folder.')
    expect(refusal(['scripts']).message).toContain('its bundled file "scripts" is not a regular file.')
    expect(refusal(['missing.txt']).message).toContain('its bundled file "missing.txt" is not a regular file.')
  })
})
