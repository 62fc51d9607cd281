import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SkillLoader } from '../../src/skill/load'

describe('SkillLoader cache', () => {
  let dir: string
  const skill = (name: string, extra = '') => {
    mkdirSync(join(dir, name), { recursive: true })
    writeFileSync(join(dir, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${name}.\n${extra}---\nBody of ${name}.\n`)
    return join(dir, name, 'SKILL.md')
  }
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skill-kit-cache-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('reuses a result while nothing in the folder changes', () => {
    const file = skill('a')
    const loader = new SkillLoader()
    expect(loader.load(file).compiled).toBe(loader.load(file).compiled)
  })

  it('recompiles a skill when any file of its folder changes, appears or goes, and nothing else', () => {
    const a = skill('a')
    const b = skill('b')
    const loader = new SkillLoader()
    const first = loader.load(a).compiled
    const other = loader.load(b).compiled

    writeFileSync(join(dir, 'a', 'notes.txt'), 'new file')
    const added = loader.load(a).compiled
    expect(added).not.toBe(first)
    expect(added.resources).toEqual(['notes.txt'])
    expect(loader.load(b).compiled).toBe(other)

    writeFileSync(join(dir, 'a', 'notes.txt'), 'edited')
    const edited = loader.load(a).compiled
    expect(edited).not.toBe(added)

    rmSync(join(dir, 'a', 'notes.txt'))
    expect(loader.load(a).compiled.resources).toEqual([])
  })

  it('lists a skill folder\'s files but not hidden entries, node_modules or the skill file, alone or not', () => {
    const a = skill('a')
    mkdirSync(join(dir, 'a', '.git'))
    writeFileSync(join(dir, 'a', '.git', 'HEAD'), 'ref')
    mkdirSync(join(dir, 'a', 'node_modules'))
    writeFileSync(join(dir, 'a', 'node_modules', 'x.js'), '')
    writeFileSync(join(dir, 'a', '.env'), 'X=1')
    expect(new SkillLoader().load(a).compiled.resources).toEqual([])
    mkdirSync(join(dir, 'a', 'scripts', 'node_modules'), { recursive: true })
    writeFileSync(join(dir, 'a', 'scripts', 'run.sh'), '')
    writeFileSync(join(dir, 'a', 'scripts', 'node_modules', 'y.js'), '')
    writeFileSync(join(dir, 'a', 'README.md'), '')
    expect(new SkillLoader().load(a).compiled.resources).toEqual(['README.md', 'scripts/run.sh'])
  })

  it('trusting its cache, reads a skill again only when invalidate names one of its files or folders', () => {
    const a = skill('a')
    const b = skill('b')
    const tool = join(dir, 'tool.skill.md')
    writeFileSync(join(dir, 'ref.md'), 'Reference.\n')
    writeFileSync(tool, '---\nname: tool\ndescription: Tool.\nresources: [ref.md]\n---\nBody.\n')
    const loader = new SkillLoader()
    loader.trustUntilInvalidated()
    const [first, other, tooled] = [a, b, tool].map(file => loader.load(file).compiled)

    // Unheard-of changes are not looked for: that is the caller's watcher's job.
    writeFileSync(join(dir, 'a', 'notes.txt'), 'new file')
    expect(loader.load(a).compiled).toBe(first)

    loader.invalidate(join(dir, 'a', 'notes.txt'))
    expect(loader.load(a).compiled.resources).toEqual(['notes.txt'])
    expect(loader.load(b).compiled).toBe(other)
    expect(loader.load(tool).compiled).toBe(tooled)

    // A declared resource, with the separators a watcher may use.
    writeFileSync(join(dir, 'ref.md'), 'Edited.\n')
    loader.invalidate(join(dir, 'ref.md').replace(/\\/g, '/'))
    expect(loader.load(tool).compiled).not.toBe(tooled)
    expect(loader.load(b).compiled).toBe(other)

    // A whole skill folder removed.
    const second = loader.load(a).compiled
    loader.invalidate(join(dir, 'a'))
    expect(loader.load(a).compiled).not.toBe(second)
  })

  it('tracks declared resources of a x.skill.md', () => {
    const file = join(dir, 'tool.skill.md')
    writeFileSync(file, '---\nname: tool\ndescription: Tool.\nresources: [ref.md]\n---\nBody.\n')
    const loader = new SkillLoader()
    expect(loader.load(file).compiled.diagnostics.map(d => d.code)).toEqual(['resource-missing'])
    writeFileSync(join(dir, 'ref.md'), 'reference')
    const fixed = loader.load(file)
    expect(fixed.compiled.diagnostics).toEqual([])
    expect(fixed.compiled.resources).toEqual(['ref.md'])
    expect(fixed.dependencies).toEqual([file, join(dir, 'ref.md')])
  })
})
