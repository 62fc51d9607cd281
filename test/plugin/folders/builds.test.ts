import type { FolderOutcome } from '../../../src/plugin/folders/builds'
import { describe, expect, it } from 'vitest'
import { FolderBuilds } from '../../../src/plugin/folders/builds'

type Outcome = ({ ok: true, pages: string } | FolderOutcome & { ok: false })

const docs = { kind: 'dir', dir: '/work/docs' } as const
const valid = (pages: string): Outcome => ({ ok: true, pages })
const failed = (message: string): Outcome => ({ ok: false, message, watch: [] })

/** A build that ends when the test says so. */
function deferred() {
  let finish!: (outcome: Outcome) => void
  const promise = new Promise<Outcome>((resolve) => {
    finish = resolve
  })
  return { promise, finish }
}

function builds(settled: [string, Outcome][] = []) {
  return new FolderBuilds<Outcome>({ servedAs: outcome => (outcome as { pages: string }).pages, onSettled: (key, outcome) => settled.push([key, outcome]) })
}

describe('folder builds', () => {
  it('shares a running build with every import that asks, and settles it once', async () => {
    const settled: [string, Outcome][] = []
    const folder = builds(settled)
    const running = deferred()
    let started = 0
    const start = () => {
      started++
      return running.promise
    }
    const first = folder.build(docs, start)
    const second = folder.build(docs, start)
    running.finish(valid('a'))
    expect(await first).toEqual(valid('a'))
    expect(await second).toEqual(valid('a'))
    expect(started).toBe(1)
    expect(settled).toEqual([[JSON.stringify(docs), valid('a')]])
  })

  it('builds again after a reset, unless the dev server keeps the builds current', async () => {
    const folder = builds()
    let started = 0
    const start = async () => valid(`v${++started}`)
    await folder.build(docs, start)
    folder.reset()
    expect(await folder.build(docs, start)).toEqual(valid('v2'))
    folder.live = true
    folder.reset()
    expect(await folder.build(docs, start)).toEqual(valid('v2'))
    expect(started).toBe(2)
  })

  it('keeps the last valid build over a failed one, and tells whether imports get another module', async () => {
    const folder = builds()
    folder.live = true
    expect(folder.adopt(docs, failed('broken'))).toBe(true)
    expect(folder.failures()).toEqual([failed('broken')])
    expect(folder.adopt(docs, valid('a'))).toBe(true)
    expect(folder.failures()).toEqual([])
    expect(folder.adopt(docs, failed('broken again'))).toBe(false)
    expect(await folder.build(docs, async () => valid('never'))).toEqual(valid('a'))
    expect(folder.adopt(docs, valid('a'))).toBe(false)
    expect(folder.adopt(docs, valid('b'))).toBe(true)
  })

  it('starts a rebuild only once the running build has ended', async () => {
    const folder = builds()
    const running = deferred()
    const order: string[] = []
    void folder.build(docs, () => running.promise.then((outcome) => {
      order.push('first ended')
      return outcome
    }))
    const rebuilt = folder.rebuild(docs, async () => {
      order.push('rebuild started')
      return valid('b')
    })
    running.finish(valid('a'))
    expect(await rebuilt).toEqual(valid('b'))
    expect(order).toEqual(['first ended', 'rebuild started'])
  })

  it('tells the folders each build opens, and keeps the last ones per target', () => {
    const folder = builds()
    const seen: string[][] = []
    folder.onFolders = folders => seen.push(folders.roots)
    folder.setFolders({ target: docs, roots: ['/work/docs'], written: [] })
    folder.setFolders({ target: docs, roots: ['/work/docs', '/work/docs/guides'], written: ['/work/docs/.skill-kit'] })
    expect(seen).toEqual([['/work/docs'], ['/work/docs', '/work/docs/guides']])
    expect(folder.foldersOf(docs)?.written).toEqual(['/work/docs/.skill-kit'])
    expect(folder.watched()).toHaveLength(1)
  })
})
