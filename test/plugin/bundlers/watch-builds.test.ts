// Watch builds in every bundler: an edited, an added and a removed file each
// start a build whose output has the new values, for the registry, a skill's
// `?cover` and `?meta`, and a knowledge folder; an invalid skill is reported
// once per build, and fixing it gives good output again.

import type { Settled } from '../../support/build'
import type { WatchBuild, WatchSession } from '../../support/watch-session'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUNDLERS, settle, unwrap } from '../../support/build'
import { watchBuilds } from '../../support/watch-session'

const repo = resolve(import.meta.dirname, '../../..')

/** Longer than any build of this small app on a loaded machine: a change that starts no build fails its step, not the whole file. */
const NO_BUILD_AFTER_MS = 30_000

/** A progressive skill: its cover lists the files bundled in its folder. */
const skill = (description: string) => `---
name: alpha
description: ${description}
progressive:
  always: [usage]
---

Read the sections you need.

## Usage {#usage}

Run the scripts on the input.
`
const document = (description: string, text: string) => `---\ndescription: ${description}\n---\n\n# ${text}\n\n${text} is documented here.\n`

/** Invalid: the always-on section does not exist. */
const BROKEN = `---
name: alpha
description: Alpha, broken.
progressive:
  always: [missing]
---

Read the sections you need.

## Usage {#usage}

Run the scripts on the input.
`

const ENTRY = `import skills from 'virtual:skill-kit/skills'
import cover from './skills/alpha/SKILL.md?cover'
import meta from './skills/alpha/SKILL.md?meta'
import { documents } from './docs?knowledge'

export const listing = skills.map(s => [s.name, s.description])
export const docs = documents.map(d => [d.path, d.description])
export { cover, meta }
`

const BUNDLED = 'Bundled files (paths relative to the skill folder):'

/** What a good build's output holds, as the test checks it. */
interface Expected {
  listing: [string, string][]
  resources: string[]
  docs: [string, string][]
}

function createApp(app: string): void {
  rmSync(dirname(app), { recursive: true, force: true })
  mkdirSync(join(app, 'skills/alpha/scripts'), { recursive: true })
  mkdirSync(join(app, 'docs/knowledge'), { recursive: true })
  writeFileSync(join(app, 'main.js'), ENTRY)
  writeFileSync(join(app, 'skills/alpha/SKILL.md'), skill('Alpha, first.'))
  writeFileSync(join(app, 'skills/alpha/scripts/run.py'), 'print("run")\n')
  writeFileSync(join(app, 'skills/beta.skill.md'), '---\nname: beta\ndescription: Beta.\n---\n\nAnswer briefly.\n')
  writeFileSync(join(app, 'docs/skill-kit.json'), '{ "name": "docs", "model": false }\n')
  writeFileSync(join(app, 'docs/knowledge/a.md'), document('About A.', 'Alpha topic'))
}

/**
 * Each change is one file-system operation (a write lands by rename), so that
 * it starts one build and no half-written file is read.
 */
function changes(app: string, staging: string) {
  const write = (path: string, text: string) => {
    const temp = join(staging, `${Date.now()}-${Math.random()}`)
    writeFileSync(temp, text)
    renameSync(temp, join(app, path))
  }
  return [
    ['edit a skill', () => write('skills/alpha/SKILL.md', skill('Alpha, second.'))],
    ['add a file to a skill\'s folder', () => write('skills/alpha/scripts/new.py', 'print("new")\n')],
    ['remove a file from a skill\'s folder', () => rmSync(join(app, 'skills/alpha/scripts/run.py'))],
    ['add a skill to the registry folder', () => {
      const folder = join(staging, 'gamma')
      mkdirSync(folder)
      writeFileSync(join(folder, 'SKILL.md'), '---\nname: gamma\ndescription: Gamma.\n---\n\nAnswer in full.\n')
      renameSync(folder, join(app, 'skills/gamma'))
    }],
    ['remove a skill', () => rmSync(join(app, 'skills/beta.skill.md'))],
    ['add a document', () => write('docs/knowledge/b.md', document('About B.', 'Beta topic'))],
    ['edit a document', () => write('docs/knowledge/a.md', document('About A, again.', 'Alpha topic'))],
    ['remove a document', () => rmSync(join(app, 'docs/knowledge/a.md'))],
    ['break a skill', () => write('skills/alpha/SKILL.md', BROKEN)],
    ['fix the skill', () => write('skills/alpha/SKILL.md', skill('Alpha, fixed.'))],
  ] as const
}

type Step = ReturnType<typeof changes>[number][0] | 'first build'

/** The output after each step, when the build succeeds. */
const EXPECTED: Partial<Record<Step, Expected>> = {
  'first build': { listing: [['alpha', 'Alpha, first.'], ['beta', 'Beta.']], resources: ['scripts/run.py'], docs: [['a.md', 'About A.']] },
  'edit a skill': { listing: [['alpha', 'Alpha, second.'], ['beta', 'Beta.']], resources: ['scripts/run.py'], docs: [['a.md', 'About A.']] },
  'add a file to a skill\'s folder': { listing: [['alpha', 'Alpha, second.'], ['beta', 'Beta.']], resources: ['scripts/new.py', 'scripts/run.py'], docs: [['a.md', 'About A.']] },
  'remove a file from a skill\'s folder': { listing: [['alpha', 'Alpha, second.'], ['beta', 'Beta.']], resources: ['scripts/new.py'], docs: [['a.md', 'About A.']] },
  'add a skill to the registry folder': { listing: [['alpha', 'Alpha, second.'], ['beta', 'Beta.'], ['gamma', 'Gamma.']], resources: ['scripts/new.py'], docs: [['a.md', 'About A.']] },
  'remove a skill': { listing: [['alpha', 'Alpha, second.'], ['gamma', 'Gamma.']], resources: ['scripts/new.py'], docs: [['a.md', 'About A.']] },
  'add a document': { listing: [['alpha', 'Alpha, second.'], ['gamma', 'Gamma.']], resources: ['scripts/new.py'], docs: [['a.md', 'About A.'], ['b.md', 'About B.']] },
  'edit a document': { listing: [['alpha', 'Alpha, second.'], ['gamma', 'Gamma.']], resources: ['scripts/new.py'], docs: [['a.md', 'About A, again.'], ['b.md', 'About B.']] },
  'remove a document': { listing: [['alpha', 'Alpha, second.'], ['gamma', 'Gamma.']], resources: ['scripts/new.py'], docs: [['b.md', 'About B.']] },
  'fix the skill': { listing: [['alpha', 'Alpha, fixed.'], ['gamma', 'Gamma.']], resources: ['scripts/new.py'], docs: [['b.md', 'About B.']] },
}

/** Rejects when no build has ended `ms` after a change. */
function orTimeout<T>(promise: Promise<T>, step: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No build ended within ${NO_BUILD_AFTER_MS} ms after: ${step}`)), NO_BUILD_AFTER_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

describe.each(BUNDLERS)('%s in watch mode', (bundler) => {
  const work = join(repo, 'test/.tmp', `watch-${bundler}`)
  const app = join(work, 'app')
  const staging = join(work, 'staging')
  const builds = new Map<Step, Settled<WatchBuild>>()
  let session: WatchSession | undefined

  beforeAll(async () => {
    createApp(app)
    mkdirSync(staging, { recursive: true })
    session = await watchBuilds(bundler, join(app, 'main.js'), { root: app }, work)
    builds.set('first build', await settle(orTimeout(session.first, 'the start')))
    // Each change waits for the end of the build before: the bundler's watchers are armed by then.
    for (const [step, change] of changes(app, staging)) {
      const next = session.nextBuild()
      change()
      builds.set(step, await settle(orTimeout(next, step)))
    }
  }, 6 * 60_000)

  afterAll(async () => {
    await session?.close()
  })

  const good = (step: Step) => {
    const { errors, module } = unwrap(builds.get(step))
    expect(errors).toEqual([])
    return module!
  }

  it.each(Object.entries(EXPECTED))('after "%s", the build has the new registry, skill and knowledge', (step, expected) => {
    const { listing, cover, meta, docs } = good(step as Step)
    expect({ listing, resources: meta.resources, docs }).toEqual(expected)
    expect(meta.description).toBe(expected.listing[0]![1])
    expect(cover).toContain(`${BUNDLED}\n${expected.resources.map(r => `- ${r}`).join('\n')}`)
  })

  it('reports an invalid skill once in its build, located, and builds nothing', () => {
    const { errors, module } = unwrap(builds.get('break a skill'))
    expect(module).toBeUndefined()
    const text = errors.join('\n')
    expect(text).toContain('Invalid skill skills/alpha/SKILL.md (1 error). Fix them, or set onInvalid: \'fallback\' to load it whole:')
    expect(text).toContain('always-unknown-id')
    expect(text.split('Invalid skill skills/alpha/SKILL.md').length - 1).toBe(1)
  })
})
