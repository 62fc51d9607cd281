import type { OutputChunk, RollupOutput } from 'rollup'
import type { Settled } from '../../support/build'
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build as viteBuild, createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import skillKitVite from '../../../dist/vite.mjs'
import { build, BUNDLERS, settle, unwrap } from '../../support/build'

const fixtures = join(import.meta.dirname, '../../fixtures')
const registryApp = join(fixtures, 'registry')
const SENTINELS = { 'db-migrations': 'wombatalpha', 'commit-style': 'wombatbeta', 'quick-answers': 'wombatgamma', 'release': 'wombatdelta' }

describe('virtual:skill-kit/skills in a Vite production build', () => {
  let output: RollupOutput
  const outDir = join(import.meta.dirname, '../../.tmp/registry-vite-chunks')
  beforeAll(async () => {
    const result = await viteBuild({
      configFile: false,
      root: registryApp,
      logLevel: 'silent',
      plugins: [skillKitVite()],
      build: { outDir, emptyOutDir: true, minify: false, lib: { entry: join(registryApp, 'main.js'), formats: ['es'], fileName: () => 'index.mjs' } },
    })
    output = (Array.isArray(result) ? result[0] : result) as unknown as RollupOutput
  })

  it('keeps every skill body out of the entry chunk, one chunk per skill', () => {
    const chunks = output.output.filter((o): o is OutputChunk => o.type === 'chunk')
    const entry = chunks.find(c => c.isEntry)!
    for (const sentinel of Object.values(SENTINELS))
      expect(entry.code).not.toContain(sentinel)
    // The activation engine (and its inlined path matcher) stays out of an app that only lists skills.
    for (const chunk of chunks)
      expect(chunk.code).not.toMatch(/createActivation|path should be a/)
    // No HMR code in builds.
    for (const chunk of chunks)
      expect(chunk.code).not.toContain('import.meta.hot')
    expect(entry.dynamicImports).toHaveLength(4)
    for (const [name, sentinel] of Object.entries(SENTINELS)) {
      const holders = chunks.filter(c => c.code.includes(sentinel))
      expect(holders, name).toHaveLength(1)
      expect(entry.dynamicImports).toContain(holders[0]!.fileName)
      // A skill's chunk carries no other skill's body.
      for (const other of Object.values(SENTINELS).filter(s => s !== sentinel))
        expect(holders[0]!.code).not.toContain(other)
    }
  })

  it('lists skills eagerly and loads one on demand', async () => {
    const { skills } = await import(/* @vite-ignore */ pathToFileURL(join(outDir, 'index.mjs')).href)
    expect(skills.map((s: { name: string }) => s.name)).toEqual(['release', 'commit-style', 'db-migrations', 'quick-answers'])
    const db = skills[2]
    expect(db).toMatchObject({
      description: expect.stringContaining('SQL schema migrations'),
      mode: 'progressive',
      file: 'skills/db-migrations/SKILL.md',
      triggers: { paths: ['*.sql', 'supabase/**'], topics: ['database', 'schema migration'], projects: [], alwaysActive: false },
      sections: [
        { id: 'rules', title: 'Rules', level: 2, parent: null },
        { id: 'add-column', title: 'Adding a column', level: 2, parent: null },
        { id: 'large-tables', title: 'Large tables', level: 3, parent: 'add-column' },
      ],
    })
    expect(db.tokens.listing).toBe(Math.ceil(`- db-migrations: ${db.description}`.length / 4))
    expect(db.tokens.cover).toBeGreaterThan(db.tokens.listing)
    expect(skills[1].triggers).toBeNull()
    expect(skills[0].triggers.alwaysActive).toBe(true)

    const skill = await db.load()
    expect(await db.load()).toBe(skill)
    expect(skill.cover).toContain('Every migration is reversible')
    expect(await db.readSection('large-tables')).toBe('### Large tables {#large-tables}\n\nBatch updates by primary key ranges of 10,000 rows.')
  })
})

describe.each(BUNDLERS)('virtual:skill-kit/skills with %s', (bundler) => {
  let result: Settled<Awaited<ReturnType<typeof build>>> | undefined
  let duplicate: Settled<Awaited<ReturnType<typeof build>>> | undefined
  beforeAll(async () => {
    result = await settle(build(bundler, join(registryApp, 'main.js'), { root: registryApp }, 'registry'))
    duplicate = await settle(build(bundler, join(fixtures, 'registry-duplicate', 'main.js'), { root: join(fixtures, 'registry-duplicate') }, 'registry-duplicate'))
  })

  it('lists the skills and loads their bodies', async () => {
    const { skills } = unwrap(result).module
    expect(skills.map((s: { name: string }) => s.name)).toEqual(['release', 'commit-style', 'db-migrations', 'quick-answers'])
    const commit = await skills[1].load()
    expect(commit.mode).toBe('regular')
    expect(commit.cover).toContain('wombatbeta')
    expect(await skills[2].readSection('Rules')).toContain('write the down step first')
  })

  it('fails when two skills share a name, naming both files', () => {
    expect(duplicate?.ok).toBe(false)
    const message = String((duplicate as { error: Error }).error.message)
    expect(message).toContain('Two skills are named "same": skills/one/SKILL.md and skills/two/SKILL.md.')
  })
})

describe('virtual:skill-kit/skills in the Vite dev server', () => {
  const root = mkdtempSync(join(tmpdir(), 'skill-kit-dev-'))
  let server: Awaited<ReturnType<typeof createServer>>
  beforeAll(async () => {
    cpSync(registryApp, root, { recursive: true })
    server = await createServer({ configFile: false, root, logLevel: 'silent', plugins: [skillKitVite()], server: { port: 0, ws: false } })
  })
  afterAll(async () => {
    await server.close()
    rmSync(root, { recursive: true, force: true })
  })

  const names = async (): Promise<string[]> => {
    const { default: skills } = await server.ssrLoadModule('virtual:skill-kit/skills')
    return skills.map((s: { name: string }) => s.name)
  }
  /** Polls until the registry lists `expected`: the watcher reports changes asynchronously. */
  const eventually = async (expected: string[]) => {
    let last: string[] = []
    for (let i = 0; i < 100; i++) {
      last = await names()
      if (JSON.stringify(last) === JSON.stringify(expected))
        return
      await new Promise(r => setTimeout(r, 50))
    }
    expect(last).toEqual(expected)
  }

  it('follows skill folders being added, renamed and removed', async () => {
    await eventually(['release', 'commit-style', 'db-migrations', 'quick-answers'])

    mkdirSync(join(root, 'skills/api-design'))
    writeFileSync(join(root, 'skills/api-design/SKILL.md'), '---\nname: api-design\ndescription: Design HTTP APIs.\n---\nBody.\n')
    await eventually(['release', 'api-design', 'commit-style', 'db-migrations', 'quick-answers'])

    // Renamed, the folder sorts last; the skill keeps its name (with a name-mismatch warning).
    renameSync(join(root, 'skills/commit-style'), join(root, 'skills/zz-commit-style'))
    await eventually(['release', 'api-design', 'db-migrations', 'quick-answers', 'commit-style'])

    rmSync(join(root, 'skills/api-design'), { recursive: true })
    await eventually(['release', 'db-migrations', 'quick-answers', 'commit-style'])
  })

  it('follows edits of a skill', async () => {
    writeFileSync(join(root, 'skills/db-migrations/SKILL.md'), '---\nname: db-migrations\ndescription: Edited.\n---\nBody.\n')
    for (let i = 0; i < 100; i++) {
      const { default: skills } = await server.ssrLoadModule('virtual:skill-kit/skills')
      if (skills.find((s: { name: string }) => s.name === 'db-migrations').description === 'Edited.')
        return
      await new Promise(r => setTimeout(r, 50))
    }
    throw new Error('the registry never saw the edit')
  })
})
