// The skill catalog of `skill-kit mcp`: fresh from disk at each request, or
// kept while a watcher reports every change, and fresh again when the watcher
// is lost; digests of the bytes it serves.

import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { SkillCatalog } from '../../../src/cli/mcp/skills'

const work = join(resolve(import.meta.dirname, '../../..'), 'test/.tmp/cli-mcp-skills')
const root = join(work, 'skills')
const skill = (body: string) => `---\nname: notes\ndescription: Take notes.\n---\n\n${body}\n`
const body = async (catalog: SkillCatalog) => (await catalog.registry()[0]!.load()).cover

beforeEach(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(join(root, 'notes'), { recursive: true })
  writeFileSync(join(root, 'notes/SKILL.md'), skill('First version.'))
})

describe('SkillCatalog', () => {
  it('reads the skills again at each request by default', async () => {
    const catalog = new SkillCatalog([root])
    expect(await body(catalog)).toBe('First version.')
    writeFileSync(join(root, 'notes/SKILL.md'), skill('Second version.'))
    expect(await body(catalog)).toBe('Second version.')
    writeFileSync(join(root, 'notes/tips.md'), 'Tip.\n')
    expect(catalog.filePaths(catalog.find('notes')!)).toEqual(['SKILL.md', 'tips.md'])
  })

  it('trusted, keeps skills and digests until a changed path is named; untrusted again, reads them', async () => {
    const catalog = new SkillCatalog([root])
    catalog.trustUntilInvalidated()
    const before = catalog.files(catalog.find('notes')!)
    writeFileSync(join(root, 'notes/SKILL.md'), skill('Second version.'))
    expect(await body(catalog)).toBe('First version.')
    expect(catalog.files(catalog.find('notes')!)).toEqual(before)
    catalog.invalidate(join(root, 'notes/SKILL.md'))
    expect(await body(catalog)).toBe('Second version.')
    const bytes = readFileSync(join(root, 'notes/SKILL.md'))
    expect(catalog.files(catalog.find('notes')!)).toEqual([{ path: 'SKILL.md', digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, size: bytes.byteLength }])

    mkdirSync(join(root, 'drafts'))
    writeFileSync(join(root, 'drafts/SKILL.md'), '---\nname: drafts\ndescription: Draft.\n---\n\nDraft.\n')
    expect(catalog.skills().map(s => s.name)).toEqual(['notes'])
    catalog.stopTrusting()
    expect(catalog.skills().map(s => s.name)).toEqual(['drafts', 'notes'])
  })
})
