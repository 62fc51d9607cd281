// Folders skill-kit makes for what it generates keep themselves out of git, as pytest's and
// ruff's caches do; folders that existed, and .gitignore files someone wrote, stay as they are.
// Checked with git itself, in a repository in the system's temp folder.

import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileAtomic } from '../../src/core/atomic'
import { IGNORE_EVERYTHING, makeGeneratedFolder } from '../../src/core/folders'
import { RoutingCache } from '../../src/routing/cache'

let repo: string

/** What `git status` lists as untracked, every file named. */
const untracked = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo, encoding: 'utf8' })
  .split('\n').filter(Boolean).map(line => line.slice(3)).sort()

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'skill-kit-folders-'))
  execFileSync('git', ['init', '-q'], { cwd: repo })
})

afterEach(() => {
  rmSync(repo, { recursive: true, force: true })
})

describe('makeGeneratedFolder', () => {
  it('ignores a .skill-kit folder it makes, with all that is written into it later', () => {
    writeFileAtomic(join(repo, 'docs/.skill-kit/index/manifest.json'), '{}')
    writeFileAtomic(join(repo, 'docs/.skill-kit/cache/vectors.bin'), 'v')
    writeFileSync(join(repo, 'docs/guide.md'), '# Guide\n')
    expect(readFileSync(join(repo, 'docs/.skill-kit/.gitignore'), 'utf8')).toBe(IGNORE_EVERYTHING)
    expect(readdirSync(join(repo, 'docs/.skill-kit')).sort()).toEqual(['.gitignore', 'cache', 'index'])
    expect(untracked()).toEqual(['docs/guide.md'])
  })

  it('ignores a cache folder outside .skill-kit that it makes, and nothing above it', () => {
    makeGeneratedFolder(join(repo, 'build/vectors'), { cache: true })
    writeFileSync(join(repo, 'build/vectors/a.bin'), 'v')
    writeFileSync(join(repo, 'build/app.js'), '')
    new RoutingCache(join(repo, 'public/kb/routing-cache')).set('cards', 'key', { title: 'A' })
    writeFileSync(join(repo, 'public/kb/manifest.json'), '{}')
    expect(untracked()).toEqual(['build/app.js', 'public/kb/manifest.json'])
  })

  it('leaves folders that existed as their owner made them', () => {
    mkdirSync(join(repo, 'models'))
    makeGeneratedFolder(join(repo, 'models'), { cache: true })
    expect(readdirSync(join(repo, 'models'))).toEqual([])
    // A .skill-kit whose .gitignore its owner removed, to commit the index: it stays so.
    mkdirSync(join(repo, 'kb/.skill-kit'), { recursive: true })
    writeFileAtomic(join(repo, 'kb/.skill-kit/index/manifest.json'), '{}')
    expect(readdirSync(join(repo, 'kb/.skill-kit'))).toEqual(['index'])
    expect(untracked()).toEqual(['kb/.skill-kit/index/manifest.json'])
  })
})
