/**
 * `agentSkills` in watch mode, with an app that imports no skill: an edit to
 * a published skill, a new skill folder and the fix of an invalid skill each
 * rebuild and publish again, and the failed build in between says why and
 * the watch goes on (webpack records an error of its build start instead of
 * stopping, Rollup keeps watching by itself).
 */
import type { Bundler } from '../../support/build'
import type { WatchSession } from '../../support/watch-session'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { watchBuilds } from '../../support/watch-session'

const repo = resolve(import.meta.dirname, '../../..')
const SKILL = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\nBody.\n`

describe.each(['rollup', 'webpack'] as Bundler[])('agentSkills in %s\'s watch mode', (bundler) => {
  const work = join(repo, 'test/.tmp', `agent-skills-watch-${bundler}`)
  const app = join(work, 'app')
  let session: WatchSession | undefined

  afterAll(async () => {
    await session?.close()
  })

  /** Writes `text` to `path` in one file-system operation (a rename), so a build never sees half of it. */
  const replace = (path: string, text: string) => {
    const staged = join(work, 'staged')
    writeFileSync(staged, text)
    renameSync(staged, path)
  }
  const published = () => (JSON.parse(readFileSync(join(work, 'out/.well-known/agent-skills/index.json'), 'utf8')) as { skills: { name: string, description: string }[] }).skills

  it('publishes an edit, a new skill and a fixed one again, and reports the broken one', async () => {
    rmSync(work, { recursive: true, force: true })
    mkdirSync(join(app, 'skills/alpha'), { recursive: true })
    writeFileSync(join(app, 'skills/alpha/SKILL.md'), SKILL('alpha', 'First version.'))
    writeFileSync(join(app, 'main.js'), 'export const answer = 42\n')
    session = await watchBuilds(bundler, join(app, 'main.js'), { root: app, agentSkills: true }, work)
    expect((await session.first).errors).toEqual([])
    expect(published()).toEqual([{ name: 'alpha', type: 'skill-md', description: 'First version.', url: 'alpha/SKILL.md', digest: expect.stringMatching(/^sha256:/) }])

    let next = session.nextBuild()
    replace(join(app, 'skills/alpha/SKILL.md'), SKILL('alpha', 'Second version.'))
    expect((await next).errors).toEqual([])
    expect(published().map(s => s.description)).toEqual(['Second version.'])

    // A new skill, broken: the build says why, and the watch goes on.
    next = session.nextBuild()
    mkdirSync(join(work, 'beta'))
    writeFileSync(join(work, 'beta/SKILL.md'), '---\nname: beta\n---\n')
    renameSync(join(work, 'beta'), join(app, 'skills/beta'))
    const broken = await next
    expect(broken.errors.join('\n')).toContain('Invalid skill skills/beta/SKILL.md, which agentSkills publishes.')

    next = session.nextBuild()
    replace(join(app, 'skills/beta/SKILL.md'), SKILL('beta', 'Fixed.'))
    expect((await next).errors).toEqual([])
    expect(published().map(s => [s.name, s.description])).toEqual([['alpha', 'Second version.'], ['beta', 'Fixed.']])
  }, 120_000)
})
