// The knowledge folder's watcher when Node's recursive watcher fails. On Linux, Node
// watches each subfolder itself and emits `error` when one vanishes while it is scanned
// (a folder renamed or deleted right after it was made: nodejs/node#63686); the folder
// is still there then, and its parent sends no event. Which scan loses that race is up
// to the machine's load, so the error is emitted here on the watcher itself.
// Only a lost event of a document counts as a change: the index's own writes in a hidden folder do not.

import type { FSWatcher } from 'node:fs'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { watchKnowledgeProject } from '../../src/knowledge/watch-folder'

/** Every recursive watcher made, with the folder it watches. */
const recursive: { dir: string, watcher: FSWatcher }[] = []

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>()
  const watch = ((dir: string, ...rest: unknown[]) => {
    const watcher = (fs.watch as (...args: unknown[]) => FSWatcher)(dir, ...rest)
    if ((rest[0] as { recursive?: boolean } | undefined)?.recursive)
      recursive.push({ dir, watcher })
    return watcher
  }) as typeof fs.watch
  return { ...fs, default: { ...fs, watch }, watch }
})

const root = realpathSync(mkdtempSync(join(tmpdir(), 'skill-kit-watch-folder-')))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Labels as the watcher reports them, and a wait for one that fails with what came instead. */
function recorder() {
  const labels: string[] = []
  let wake: (() => void) | undefined
  return {
    labels,
    onChange: (label: string) => {
      labels.push(label)
      wake?.()
    },
    async until(label: string): Promise<void> {
      while (!labels.includes(label)) {
        let timer: NodeJS.Timeout | undefined
        await new Promise<void>((resolve, reject) => {
          wake = resolve
          timer = setTimeout(() => reject(new Error(`No "${label}" within 20 s; reported: ${JSON.stringify(labels)}`)), 20_000)
        }).finally(() => clearTimeout(timer))
      }
    },
  }
}

describe('watchKnowledgeProject', () => {
  let close: (() => void) | undefined
  afterEach(() => {
    close?.()
    recursive.length = 0
  })

  it('watches the folder again after its recursive watcher fails, and reports the folder as changed when an edit was lost', async () => {
    const docs = join(root, 'docs')
    mkdirSync(join(docs, 'guides'), { recursive: true })
    writeFileSync(join(docs, 'guides/a.md'), '# A\n')
    const seen = recorder()
    close = watchKnowledgeProject({ knowledge: docs }, seen.onChange).close

    expect(recursive.map(r => r.dir)).toEqual([docs])
    const [first] = recursive
    // The edit's event has not come yet when the watcher fails: it is lost with the watcher.
    writeFileSync(join(docs, 'guides/a.md'), '# A, edited at last\n')
    first!.watcher.emit('error', Object.assign(new Error(`ENOENT: no such file or directory, scandir '${join(docs, 'guides/gone')}'`), { code: 'ENOENT' }))
    expect(seen.labels).toEqual(['docs/'])
    expect(recursive.map(r => r.dir)).toEqual([docs, docs])

    // An edit after the failure is still seen, with its own path.
    writeFileSync(join(docs, 'guides/a.md'), '# A, edited\n')
    await seen.until('guides/a.md')
    writeFileSync(join(docs, 'guides/b.md'), '# B\n')
    await seen.until('guides/b.md')
  })

  it('reports nothing when its watcher fails on a hidden folder of its own and no document changed', async () => {
    const docs = join(root, 'own-writes')
    mkdirSync(join(docs, '.skill-kit/index'), { recursive: true })
    writeFileSync(join(docs, 'a.md'), '# A\n')
    const seen = recorder()
    close = watchKnowledgeProject({ knowledge: docs }, seen.onChange).close
    mkdirSync(join(docs, '.skill-kit/index/.table.tmp'))
    rmSync(join(docs, '.skill-kit/index/.table.tmp'), { recursive: true })
    recursive[0]!.watcher.emit('error', Object.assign(new Error(`ENOENT: no such file or directory, scandir '${join(docs, '.skill-kit/index/.table.tmp')}'`), { code: 'ENOENT' }))
    expect(recursive).toHaveLength(2)
    writeFileSync(join(docs, 'a.md'), '# A, edited\n')
    await seen.until('a.md')
    expect(seen.labels.every(label => label === 'a.md')).toBe(true)
  })

  it('ignores an error of a watcher it has replaced already', () => {
    const docs = join(root, 'replaced')
    mkdirSync(docs, { recursive: true })
    const seen = recorder()
    close = watchKnowledgeProject({ knowledge: docs }, seen.onChange).close
    const [first] = recursive
    writeFileSync(join(docs, 'lost.md'), '# Lost\n')
    first!.watcher.emit('error', new Error('ENOENT'))
    first!.watcher.emit('error', new Error('ENOENT'))
    expect(seen.labels).toEqual(['replaced/'])
    expect(recursive).toHaveLength(2)
  })
})
