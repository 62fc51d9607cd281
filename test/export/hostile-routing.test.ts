// `skill-kit export --mode routed`, as users run it (the CLI in its own
// process), routed by a hostile model on 127.0.0.1: links, images, paths,
// HTML, separators and the API key in every field it fills. The exported
// SKILL.md, llms.txt and index pages, as marked renders them, link only to what
// the program wrote; the key is in no file, cache or line the CLI printed.

import type { CliRun } from '../support/cli'
import type { Reply } from '../support/model-server'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleCli, runCli } from '../support/cli'
import { FORBIDDEN, HOSTILE_KEY, hostileReply, markdownProblems, PAYLOADS, routedPages, textsUnder } from '../support/hostile-model'
import { startModelServer } from '../support/model-server'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/export-hostile-routing')
const project = join(work, 'home')
let script: string
let closeServer: () => Promise<void>
let calls = 0
/** The answer instead of the hostile card or summary; `undefined`: the hostile one. */
let override: Reply | undefined

/** Runs `skill-kit …args` from the work folder, with the key in the environment. */
const skillKit = (...args: string[]): Promise<CliRun> => runCli(script, work, args, [], { OPENAI_API_KEY: HOSTILE_KEY })

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  const server = await startModelServer({
    onCall: () => {
      calls++
    },
    reply: call => override ?? hostileReply(call, calls),
  })
  closeServer = server.close
  script = await bundleCli(work)
  mkdirSync(join(project, 'knowledge'), { recursive: true })
  PAYLOADS.forEach((_, n) => writeFileSync(join(project, 'knowledge', `doc-${n}.md`), `# Document ${n}\n\nWhat document ${n} says.\n`))
  writeFileSync(join(project, 'skill-kit.json'), JSON.stringify({
    name: 'home',
    description: 'Find the house guides that answer a question.',
    model: false,
    routing: { baseUrl: server.baseUrl, model: 'test-model', apiKeyEnv: 'OPENAI_API_KEY', pageSize: 3 },
  }, null, 2))
}, 60_000)

afterAll(async () => {
  await closeServer()
  rmSync(work, { recursive: true, force: true })
})

/** The payload words (and the key) found in `texts`, by file. */
function forbiddenIn(texts: ReadonlyMap<string, string>): string[] {
  return [...texts].flatMap(([file, text]) => FORBIDDEN.filter(word => text.includes(word)).map(word => `${file}: ${JSON.stringify(word)}`))
}

describe('skill-kit export --mode routed with a hostile routing model', () => {
  it('exports pages whose every link is the program\'s, with no HTML, payload or key of the model\'s', async () => {
    const run = await skillKit('export', 'out/routed', '--project', 'home', '--mode', 'routed')
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(calls).toBeGreaterThan(PAYLOADS.length)
    const files = textsUnder(join(work, 'out/routed'))
    const pages = routedPages(files)
    expect([...pages.keys()]).toEqual(expect.arrayContaining(['SKILL.md', 'llms.txt', 'indexes/catalog.md']))
    // The pages that list documents, named by slugs of the model's topics.
    const leaves = [...pages].filter(([path, text]) => path.startsWith('indexes/') && text.includes('\n## Documents\n'))
    expect(leaves.length).toBeGreaterThan(0)
    expect(leaves.map(([path]) => path).filter(path => !/^indexes\/[a-z0-9]+(?:-[a-z0-9]+)*\.md$/.test(path))).toEqual([])
    expect(markdownProblems(pages, path => files.has(path))).toEqual([])
    expect(forbiddenIn(pages)).toEqual([])
    // The routing cache and everything else the build left in the project, and what the CLI printed.
    expect(forbiddenIn(textsUnder(join(project, '.skill-kit')))).toEqual([])
    expect([...textsUnder(work).entries()].filter(([, text]) => text.includes(HOSTILE_KEY)).map(([file]) => file)).toEqual([])
    expect(`${run.stdout}${run.stderr}`).not.toContain(HOSTILE_KEY)
    // An agent reads the model's words, plain.
    expect(leaves[0]![1]).toMatch(/\n- \[Doc \d [^\]\n]*\]\(\.\.\/references\/doc-\d\.md\): What doc \d covers: [^\n]*\\\[redacted\\\]/)
  })

  it('fails with a message that holds neither the key nor more than a bounded quote of the model', async () => {
    override = { finishReason: `${HOSTILE_KEY} ${'x'.repeat(20_000)}` }
    try {
      const run = await skillKit('export', 'out/failed', '--project', 'home', '--mode', 'routed', '--force')
      expect(run.code).not.toBe(0)
      expect(run.stderr).toContain('did not finish normally (finish_reason "[redacted] xxx')
      expect(`${run.stdout}${run.stderr}`).not.toContain(HOSTILE_KEY)
      expect(run.stderr.length).toBeLessThan(1000)
      expect([...textsUnder(work).entries()].filter(([, text]) => text.includes(HOSTILE_KEY)).map(([file]) => file)).toEqual([])
    }
    finally {
      override = undefined
    }
  })
})
