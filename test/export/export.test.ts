// skill-kit export, as users run it (the CLI in its own process), and the
// exported folders as agents use them: copied away from this repository,
// searched with `node` alone, crawled from SKILL.md.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { CliRun } from '../support/cli'
import type { RoutedSkill } from '../../src/routing/layout'
import { execFile, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { homedir, hostname, tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { packageExportAssets } from '../../src/export/assets'
import { planKnowledgeExport } from '../../src/export/export'
import { writeExportFolder } from '../../src/export/folder'
import { defaultProjectConfig } from '../../src/knowledge/config'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { disposeProjectEmbedders, openKnowledgeProject } from '../../src/knowledge/project'
import { crawlRoutedSkill } from '../support/crawl-routed-skill'
import { DEFAULT_ROUTING } from '../../src/core/routing-config'
import { bundleCli, runCli } from '../support/cli'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/export')
const models = join(work, 'models')
/** The project: the home fixtures, the tiny model, routed by the test's model server, with a LICENSE and a NOTICE. */
const home = join(work, 'home')
const out = join(work, 'out')
/** An API key in the environment of every export: it must appear in none. */
const KEY = 'sk-export-test-5b2d4068c1e7SECRET'
const DOCUMENTS = ['backups/restore.md', 'backups/schedule.md', 'network/wifi.md']
let script: string
/** Folders made in the system's temp folder, removed at the end. */
const temporary: string[] = []

/** Runs `skill-kit …args` from the work folder. */
const skillKit = (...args: string[]): Promise<CliRun> => runCli(script, work, args)

/** Runs `node <args>` in `cwd`, with the test's environment minus a model path. */
function node(cwd: string, args: string[]): Promise<CliRun> {
  const { SKILL_KIT_MODEL_PATH: _, ...env } = process.env
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd, env }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr })
    })
  })
}

/** Every file of a folder, relative and `/`-separated, sorted. */
function filesOf(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter(entry => entry.isFile())
    .map(entry => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort()
}

/** A copy of `dir` in a new folder of the system's temp folder, far from this repository's node_modules. */
function copyAway(dir: string): string {
  const to = join(mkdtempSync(join(tmpdir(), 'skill-kit-export-')), 'skill')
  temporary.push(resolve(to, '..'))
  cpSync(dir, to, { recursive: true })
  return to
}

// A model server on 127.0.0.1 that routes the project (the LLM router sends the API key to it).
let server: ReturnType<typeof createServer>
let authorizations: (string | undefined)[] = []

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  let raw = ''
  for await (const chunk of request)
    raw += chunk
  authorizations.push(request.headers.authorization)
  const body = JSON.parse(raw) as { model: string, messages: { role: string, content: string }[] }
  const system = body.messages.find(m => m.role === 'system')!.content
  const user = body.messages.find(m => m.role === 'user')!.content
  const content = system.includes('summary of an index page')
    ? { summary: `Pages about ${/^Page: (.*)$/m.exec(user)![1]}.` }
    : (() => {
        const path = /^Path: (.*)$/m.exec(user)![1]!
        return { title: `Guide ${path}`, summary: `What ${path} explains.`, tasks: [`Use ${path}`], ...(system.includes('"topic"') ? { topic: 'Home' } : {}) }
      })()
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end(JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion', model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(content), refusal: null } }] }))
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  server = createServer((request, response) => void answer(request, response))
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done))
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  process.env.OPENAI_API_KEY = KEY
  ;[script] = await Promise.all([bundleCli(work), buildTinyModel(models)])
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'skill-kit.json'), JSON.stringify({
    ...defaultProjectConfig('home'),
    description: 'Home IT: backups, restores and the wifi network.',
    model: { id: TINY_MODEL_ID, cacheDir: '../models' },
    chunk: { maxTokens: 48, overlapTokens: 8 },
    routing: { ...DEFAULT_ROUTING, baseUrl, model: 'test-model', apiKeyEnv: 'OPENAI_API_KEY' },
  }, null, 2))
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(home, 'knowledge'), { recursive: true })
  writeFileSync(join(home, 'LICENSE'), 'CC-BY-4.0: the home guides.\n')
  writeFileSync(join(home, 'NOTICE'), 'Home guides, by the test.\n')
}, 60_000)

afterAll(async () => {
  delete process.env.OPENAI_API_KEY
  server.closeAllConnections()
  await new Promise(done => server.close(done))
  await disposeProjectEmbedders()
  for (const dir of temporary)
    rmSync(dir, { recursive: true, force: true })
})

/** What every semantic export of the home project holds, with --include-model or not. */
const SEMANTIC = [
  '.npmrc',
  '.yarnrc.yml',
  'LICENSE',
  'NOTICE',
  'SKILL.md',
  'index/documents.json',
  'index/settings.json',
  'index/snapshot.skillkit',
  'package-lock.json',
  'package.json',
  ...DOCUMENTS.map(path => `references/${path}`),
  'search.mjs',
]
const MODEL_FILES = ['config.json', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json'].map(file => `models/${TINY_MODEL_ID}/${file}`)

describe('skill-kit export --mode semantic', () => {
  it('exports SKILL.md, the index, the original documents, the search runtime and the pinned package', async () => {
    const run = await skillKit('export', 'out/semantic/home', '--project', 'home', '--offline')
    expect(run.code, run.stderr).toBe(0)
    // The first build of the index: its progress lines, as "skill-kit build" prints them off a terminal.
    run.stderr.split('\n').filter(Boolean).forEach(line => expect(line).toMatch(/^skill-kit: home: /))
    expect(JSON.parse(run.stdout)).toEqual({ name: 'home', mode: 'semantic', folder: 'out/semantic/home', files: SEMANTIC })
    const dir = join(out, 'semantic/home')
    expect(filesOf(dir)).toEqual(SEMANTIC)
    for (const path of DOCUMENTS)
      expect(readFileSync(join(dir, 'references', path))).toEqual(readFileSync(join(home, 'knowledge', path)))
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toBe('CC-BY-4.0: the home guides.\n')
    expect(readFileSync(join(dir, 'NOTICE'), 'utf8')).toBe('Home guides, by the test.\n')
    // The runtime is this package's, MIT, and carries its licence wherever it goes.
    expect(readFileSync(join(dir, 'search.mjs'), 'utf8')).toMatch(/^\/\*!\n \* search\.mjs: the search command of a skill exported by unplugin-skill-kit\.\n \*\n \* MIT License\n/)
    // Stale-index checks of the CLI pass: the export brought the index up to date.
    expect((await skillKit('search', 'restore', '--project', 'home', '--mode', 'lexical')).code).toBe(0)
  })

  it('writes a SKILL.md that our skill compiler accepts, naming exactly the commands the folder has', async () => {
    const dir = join(out, 'semantic/home')
    const skill = readFileSync(join(dir, 'SKILL.md'), 'utf8')
    expect(skill.startsWith('---\nname: home\ndescription: "Home IT: backups, restores and the wifi network."\n---\n')).toBe(true)
    const validated = await skillKit('validate', 'out/semantic/home/SKILL.md', '--strict', '--target', 'agentskills')
    expect(validated).toEqual({ code: 0, stdout: '1 skill checked: 0 errors, 0 warnings.\n', stderr: '' })
    const commands = [...skill.matchAll(/`((?:node|npm) [^`]*)`/g)].map(m => m[1])
    expect(commands).toEqual(['node search.mjs "<the question, or its key words>"', 'node search.mjs retrieve <id>', 'npm ci'])
    expect(existsSync(join(dir, 'search.mjs')) && existsSync(join(dir, 'package-lock.json'))).toBe(true)
  })

  it('searches and retrieves with Node alone in a copy without node_modules, as skill-kit does', async () => {
    const copy = copyAway(join(out, 'semantic/home'))
    const lexical = await node(copy, ['search.mjs', 'restore a backup', '--mode', 'lexical'])
    expect(lexical.stderr).toBe('')
    expect(lexical.code).toBe(0)
    expect(lexical.stdout).toBe((await skillKit('search', 'restore a backup', '--project', 'home', '--mode', 'lexical')).stdout)
    expect(JSON.parse(lexical.stdout)[0].id).toBe('restore-backup')
    // A typo (`bakcup`) is corrected as the runtime does, and finds what the right spelling finds.
    const typo = await node(copy, ['search.mjs', 'restore a bakcup', '--mode', 'lexical'])
    expect(typo).toEqual({ code: 0, stderr: '', stdout: (await skillKit('search', 'restore a bakcup', '--project', 'home', '--mode', 'lexical')).stdout })
    expect(JSON.parse(typo.stdout).map((r: { id: string }) => r.id)).toEqual(JSON.parse(lexical.stdout).map((r: { id: string }) => r.id))

    // auto (the default) has no model here: lexical, and it says so once on stderr.
    const auto = await node(copy, ['search.mjs', 'restore', 'a', 'backup'])
    expect(auto.code).toBe(0)
    expect(auto.stdout).toBe(lexical.stdout)
    expect(auto.stderr).toBe(`[skill-kit] Knowledge base "home" searches lexically: this skill was exported without its embedding model. For vector search, export the skill again with --include-model, or set SKILL_KIT_MODEL_PATH to a folder that holds ${TINY_MODEL_ID}/.\n`)

    const retrieved = await node(copy, ['search.mjs', 'retrieve', 'restore-backup'])
    expect(retrieved).toEqual({ code: 0, stderr: '', stdout: (await skillKit('retrieve', 'restore-backup', '--project', 'home')).stdout })
    const unknown = await node(copy, ['search.mjs', 'retrieve', 'restore-bakup'])
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'search.mjs retrieve: "restore-bakup" is not a document of "home". Did you mean "restore-backup"?\n' })
    const vector = await node(copy, ['search.mjs', 'restore', '--mode', 'vector'])
    expect(vector.code).toBe(1)
    expect(vector.stderr).toBe(`search.mjs: A vector search of "home" needs its query model, but this skill was exported without its embedding model. Export the skill again with --include-model, or set SKILL_KIT_MODEL_PATH to a folder that holds ${TINY_MODEL_ID}/, or search with mode: 'lexical'.\n`)
    cpSync(join(copy, 'search.mjs'), join(copy, '..', 'search.mjs'))
    const away = await node(join(copy, '..'), ['search.mjs', 'restore'])
    expect(away).toEqual({ code: 1, stdout: '', stderr: `search.mjs: ${join(copy, '..', 'index/settings.json')} is missing: search.mjs runs in the folder of an exported skill, beside its index/. Export the skill again with "skill-kit export".\n` })
    writeFileSync(join(copy, 'index/snapshot.skillkit'), 'not a snapshot')
    const corrupt = await node(copy, ['search.mjs', 'restore'])
    expect(corrupt).toEqual({ code: 1, stdout: '', stderr: 'search.mjs: Not a knowledge snapshot (wrong magic bytes).\n' })
    const usage = await node(copy, ['search.mjs', 'restore', '--mode', 'semantic'])
    expect(usage.code).toBe(2)
    expect(usage.stderr.split('\n')[0]).toBe('search.mjs: --mode must be auto, vector, lexical or hybrid, got "semantic".')
  })

  it('installs with npm 10 where onnxruntime-node\'s CUDA host cannot be reached, as SKILL.md says, then searches by vector', async () => {
    const copy = copyAway(join(out, 'semantic/home'))
    // A loopback port that was free a moment ago: every host an install script asks (through
    // global-agent, as onnxruntime-node's CUDA download does) refuses at once, as an unreachable host would.
    const port = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => done(port))
      })
    })
    // A user's shell: no npm_* variables of a surrounding `npm test`, no ONNX Runtime install switch.
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_|^ONNXRUNTIME_|^SKILL_KIT_/i.test(key))), GLOBAL_AGENT_HTTP_PROXY: `http://127.0.0.1:${port}` }
    const run = (command: string, args: string[], extra: Record<string, string> = {}) => new Promise<CliRun>((done) => {
      execFile(command, args, { cwd: copy, env: { ...env, ...extra }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr })
      })
    })
    expect(readFileSync(join(copy, 'SKILL.md'), 'utf8')).toContain('run `npm ci` in this folder once')
    // npm 10 is Node 20's own; packages come from the npm cache when they are there, else the registry.
    const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx'
    const install = await run(npx, ['-y', 'npm@10', 'ci', '--prefer-offline', '--no-audit', '--no-fund'])
    expect(install.stderr).not.toMatch(/npm error/)
    expect(install.code).toBe(0)
    // onnxruntime-node's CPU build loads without its install script: the same ranking as skill-kit's.
    const vector = await run(process.execPath, ['search.mjs', 'restore a backup', '--mode', 'vector', '--threshold', '-1'], { SKILL_KIT_MODEL_PATH: models })
    expect(vector.stderr).toBe('')
    expect(vector.code).toBe(0)
    const cli = JSON.parse((await skillKit('search', 'restore a backup', '--project', 'home', '--offline', '--mode', 'vector', '--threshold', '-1')).stdout) as { id: string, score: number }[]
    const exported = JSON.parse(vector.stdout) as { id: string, score: number }[]
    expect(exported.map(r => r.id)).toEqual(cli.map(r => r.id))
    exported.forEach((r, i) => expect(r.score).toBeCloseTo(cli[i]!.score, 5))
  }, 300_000)

  it('with --include-model, searches by vector in a copy once @huggingface/transformers is there', async () => {
    const run = await skillKit('export', 'out/model/home', '--project', 'home', '--offline', '--include-model')
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout).files).toEqual([...SEMANTIC.slice(0, 6), ...MODEL_FILES, ...SEMANTIC.slice(6)].sort())
    const copy = copyAway(join(out, 'model/home'))

    const missing = await node(copy, ['search.mjs', 'restore a backup'])
    expect(missing.code).toBe(0)
    expect(missing.stderr).toBe(`[skill-kit] Knowledge base "home" searches lexically: @huggingface/transformers is not installed in this skill's folder. For vector search, run "npm ci" in ${copy} once.\n`)

    // npm ci needs the registry, which tests do without: the package is linked from this repository
    // instead (ESM imports ignore NODE_PATH). Its own dependencies resolve from its real path.
    mkdirSync(join(copy, 'node_modules/@huggingface'), { recursive: true })
    symlinkSync(join(repo, 'node_modules/@huggingface/transformers'), join(copy, 'node_modules/@huggingface/transformers'), 'dir')
    const vector = await node(copy, ['search.mjs', 'restore a backup', '--threshold', '-1'])
    expect(vector.stderr).toBe('')
    expect(vector.code).toBe(0)
    const cli = JSON.parse((await skillKit('search', 'restore a backup', '--project', 'home', '--offline', '--threshold', '-1')).stdout) as { id: string, score: number }[]
    const exported = JSON.parse(vector.stdout) as { id: string, score: number }[]
    expect(exported.map(r => r.id)).toEqual(cli.map(r => r.id))
    exported.forEach((r, i) => expect(r.score).toBeCloseTo(cli[i]!.score, 5))
    // The default ranking fuses lexical evidence, typo correction and joined words included, as skill-kit does.
    for (const query of ['nightly bakcup schedule', 'wi fi keeps dropping']) {
      const fused = await node(copy, ['search.mjs', query, '--threshold', '-1'])
      expect(fused.code, fused.stderr).toBe(0)
      const expectedFused = JSON.parse((await skillKit('search', query, '--project', 'home', '--offline', '--threshold', '-1')).stdout) as { id: string, score: number }[]
      const exportedFused = JSON.parse(fused.stdout) as { id: string, score: number }[]
      expect(exportedFused.map(r => r.id), query).toEqual(expectedFused.map(r => r.id))
      exportedFused.forEach((r, i) => expect(r.score).toBeCloseTo(expectedFused[i]!.score, 5))
    }
    const hybrid = await node(copy, ['search.mjs', 'restore a backup', '--mode', 'hybrid'])
    expect(hybrid.code, hybrid.stderr).toBe(0)
    expect((JSON.parse(hybrid.stdout) as { id: string }[]).map(r => r.id)).toContain('restore-backup')
  })

  it('pins @huggingface/transformers at the version this package is tested with', () => {
    const ours = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')).packages['node_modules/@huggingface/transformers'].version
    const asset = JSON.parse(readFileSync(join(repo, 'src/export/runtime-package-lock.json'), 'utf8'))
    // When this fails, run "node scripts/export-lockfile.mjs" (it needs the registry).
    expect(asset.packages['node_modules/@huggingface/transformers'].version).toBe(ours)
    expect(asset.packages[''].dependencies).toEqual({ '@huggingface/transformers': ours })
    expect(readFileSync(join(repo, 'dist/export/package-lock.json'), 'utf8')).toBe(readFileSync(join(repo, 'src/export/runtime-package-lock.json'), 'utf8'))
    const manifest = JSON.parse(readFileSync(join(out, 'semantic/home/package.json'), 'utf8'))
    const lock = JSON.parse(readFileSync(join(out, 'semantic/home/package-lock.json'), 'utf8'))
    expect(manifest).toEqual({ name: 'home', private: true, type: 'module', dependencies: { '@huggingface/transformers': ours }, allowScripts: { 'onnxruntime-node': false } })
    expect(lock.name).toBe('home')
    expect(lock.packages['']).toEqual({ name: 'home', dependencies: manifest.dependencies })
  })
})

/** A routed export read back from disk, as the crawler takes it. */
function routedFromDisk(dir: string): RoutedSkill {
  const pages: Record<string, string> = {}
  const catalog: Record<string, string> = {}
  for (const file of filesOf(join(dir, 'indexes')))
    (file.startsWith('catalog') ? catalog : pages)[`indexes/${file}`] = readFileSync(join(dir, 'indexes', file), 'utf8')
  return { skill: readFileSync(join(dir, 'SKILL.md'), 'utf8'), llmsTxt: readFileSync(join(dir, 'llms.txt'), 'utf8'), pages, catalog, cards: {} }
}

describe('skill-kit export --mode routed', () => {
  it('exports SKILL.md, llms.txt, the index pages and the documents unchanged; every document reachable from SKILL.md', async () => {
    authorizations = []
    const run = await skillKit('export', 'out/routed/home', '--project', 'home', '--mode', 'routed')
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const dir = join(out, 'routed/home')
    const files = filesOf(dir)
    expect(JSON.parse(run.stdout)).toEqual({ name: 'home', mode: 'routed', folder: 'out/routed/home', files })
    expect(files.filter(f => !f.startsWith('indexes/'))).toEqual(['LICENSE', 'NOTICE', 'SKILL.md', 'llms.txt', ...DOCUMENTS.map(path => `references/${path}`)])
    expect(files).toContain('indexes/catalog.md')
    // The key went to the model server, and nowhere else (see below).
    expect(authorizations.length).toBeGreaterThan(0)
    expect(authorizations.every(a => a === `Bearer ${KEY}`)).toBe(true)
    for (const path of DOCUMENTS)
      expect(readFileSync(join(dir, 'references', path))).toEqual(readFileSync(join(home, 'knowledge', path)))
    const crawl = crawlRoutedSkill(routedFromDisk(dir))
    expect(crawl.broken).toEqual([])
    expect([...crawl.documents.keys()].sort()).toEqual(DOCUMENTS)
    // The cards are the model server's.
    expect(Object.values(routedFromDisk(dir).pages).some(page => page.includes('- [Guide backups/restore.md](../references/backups/restore.md): What backups/restore.md explains.'))).toBe(true)
  })

  it('works offline from the cached answers, and on a bare folder of Markdown with the offline router', async () => {
    authorizations = []
    const cached = await skillKit('export', 'out/routed-offline/home', '--project', 'home', '--mode', 'routed', '--offline')
    expect(cached.code, cached.stderr).toBe(0)
    expect(authorizations).toEqual([])
    for (const file of filesOf(join(out, 'routed/home')))
      expect(readFileSync(join(out, 'routed-offline/home', file))).toEqual(readFileSync(join(out, 'routed/home', file)))

    const bare = await skillKit('export', 'out/bare/guides', '--project', 'home/knowledge', '--mode', 'routed')
    expect(bare.stderr).toBe('')
    expect(bare.code).toBe(0)
    const crawl = crawlRoutedSkill(routedFromDisk(join(out, 'bare/guides')))
    expect([...crawl.documents.keys()].sort()).toEqual(DOCUMENTS)
  })
})

describe('exports are reproducible and leave nothing behind', () => {
  it('gives byte-identical folders for identical inputs', async () => {
    for (const [mode, extra] of [['semantic', ['--include-model']], ['routed', []]] as const) {
      for (const copy of ['a', 'b']) {
        const run = await skillKit('export', `out/same-${copy}/${mode}/home`, '--project', 'home', '--mode', mode, '--offline', ...extra)
        expect(run.code, run.stderr).toBe(0)
      }
      const a = join(out, `same-a/${mode}/home`)
      const b = join(out, `same-b/${mode}/home`)
      expect(filesOf(b)).toEqual(filesOf(a))
      for (const file of filesOf(a))
        expect(readFileSync(join(b, file)).equals(readFileSync(join(a, file))), file).toBe(true)
    }
  })

  it('writes no API key, absolute path or build-machine detail into any exported byte', () => {
    // The hostname of a test machine may be a short word ("vm") found in any text: checked from 4 characters.
    const needles = [KEY, work, repo, tmpdir(), homedir(), ...(hostname().length >= 4 ? [hostname()] : [])]
    const folders = ['semantic/home', 'model/home', 'routed/home', 'routed-offline/home', 'bare/guides']
    for (const folder of folders) {
      for (const file of filesOf(join(out, folder))) {
        const bytes = readFileSync(join(out, folder, file))
        for (const needle of needles)
          expect(bytes.includes(needle), `${folder}/${file} holds ${needle}`).toBe(false)
      }
    }
  })

  it('is listed in skill-kit --help', async () => {
    const help = await skillKit('--help')
    expect(help.stdout).toContain('\n  export <dest>         Export a project as a skill folder (semantic search or routed pages)\n')
    const usage = await skillKit('export', '--help')
    expect(usage.stdout.startsWith('Usage: skill-kit export <dest> [options]\n')).toBe(true)
  })

  it('refuses an existing destination, bad modes and --include-model for routed exports, with the fix', async () => {
    mkdirSync(join(out, 'exists'), { recursive: true })
    const exists = await skillKit('export', 'out/exists', '--project', 'home', '--offline')
    expect(exists).toEqual({ code: 1, stdout: '', stderr: 'skill-kit export: out/exists already exists. An export never overwrites: choose a new destination, or remove that one first.\n' })
    expect(readdirSync(join(out, 'exists'))).toEqual([])

    const mode = await skillKit('export', 'out/new', '--project', 'home', '--mode', 'vector')
    expect(mode.code).toBe(2)
    expect(mode.stderr.split('\n')[0]).toBe('skill-kit export: --mode must be semantic or routed, got "vector".')
    const routedModel = await skillKit('export', 'out/new', '--project', 'home', '--mode', 'routed', '--include-model')
    expect(routedModel.code).toBe(2)
    expect(routedModel.stderr.split('\n')[0]).toBe('skill-kit export: --include-model is for semantic exports: a routed export has no search script and needs no model. Remove --include-model, or export with --mode semantic.')
    const none = await skillKit('export', '--project', 'home')
    expect(none.code).toBe(2)
    expect(none.stderr.split('\n')[0]).toBe('skill-kit export: export needs a destination folder, e.g. skill-kit export dist/my-topic.')
    const inside = await skillKit('export', 'home/knowledge/skill', '--project', 'home', '--offline')
    expect(inside).toEqual({ code: 1, stdout: '', stderr: 'skill-kit export: home/knowledge/skill is inside the knowledge folder, where the exported documents would become documents of the project. Export to a folder outside it.\n' })
    expect(existsSync(join(out, 'new'))).toBe(false)
  })

  it('refuses a destination that a symbolic link puts inside the knowledge folder, writing nothing', async () => {
    const knowledge = join(home, 'knowledge')
    const before = filesOf(knowledge)
    // A link to the knowledge folder as the destination's parent.
    symlinkSync(knowledge, join(work, 'link'), 'dir')
    const throughParent = await skillKit('export', 'link/out', '--project', 'home', '--offline')
    expect(throughParent).toEqual({ code: 1, stdout: '', stderr: `skill-kit export: link/out is inside the knowledge folder (through a symbolic link: its real path is ${join(knowledge, 'out')}), where the exported documents would become documents of the project. Export to a folder outside it.\n` })
    const deeper = await skillKit('export', 'link/backups/new/out', '--project', 'home', '--offline')
    expect(deeper.stderr).toBe(`skill-kit export: link/backups/new/out is inside the knowledge folder (through a symbolic link: its real path is ${join(knowledge, 'backups/new/out')}), where the exported documents would become documents of the project. Export to a folder outside it.\n`)
    // The destination itself a link: to the knowledge folder, or dangling into it. A link is never replaced, nor followed.
    const itself = await skillKit('export', 'link', '--project', 'home', '--offline')
    expect(itself).toEqual({ code: 1, stdout: '', stderr: 'skill-kit export: link already exists. An export never overwrites: choose a new destination, or remove that one first.\n' })
    symlinkSync(join(knowledge, 'new'), join(work, 'dangling'), 'dir')
    const dangling = await skillKit('export', 'dangling', '--project', 'home', '--offline')
    expect(dangling).toEqual({ code: 1, stdout: '', stderr: 'skill-kit export: dangling already exists. An export never overwrites: choose a new destination, or remove that one first.\n' })
    expect(readlinkSync(join(work, 'dangling'))).toBe(join(knowledge, 'new'))
    expect(filesOf(knowledge)).toEqual(before)
    expect(readdirSync(work).filter(name => name.includes('.export-'))).toEqual([])
  })

  it('fails on invalid documents and on a model it cannot copy, writing nothing', async () => {
    const broken = join(work, 'broken')
    cpSync(home, broken, { recursive: true, filter: source => !source.includes('.skill-kit') })
    writeFileSync(join(broken, 'knowledge/empty.md'), '')
    for (const mode of ['semantic', 'routed']) {
      const run = await skillKit('export', `out/broken-${mode}`, '--project', 'broken', '--mode', mode, '--offline')
      expect(run.code).toBe(1)
      expect(run.stdout).toBe('')
      expect(run.stderr).toMatch(/^broken\/knowledge\/empty\.md:1:1 error document-empty: /)
      expect(run.stderr.endsWith('skill-kit export: The documents cannot be exported (1 error, 0 warnings); nothing was written.\n')).toBe(true)
      expect(existsSync(join(out, `broken-${mode}`))).toBe(false)
    }
    const lexical = join(work, 'lexical')
    cpSync(home, lexical, { recursive: true, filter: source => !source.includes('.skill-kit') })
    writeFileSync(join(lexical, 'skill-kit.json'), JSON.stringify({ ...defaultProjectConfig('lexical'), model: false }))
    const noModel = await skillKit('export', 'out/lexical', '--project', 'lexical', '--include-model')
    expect(noModel).toEqual({ code: 1, stdout: '', stderr: 'skill-kit export: "lexical" has no model ("model": false in skill-kit.json), so --include-model has nothing to copy: export without it.\n' })
    const plain = await skillKit('export', 'out/lexical', '--project', 'lexical')
    expect(plain.code, plain.stderr).toBe(0)
    expect(JSON.parse(plain.stdout).files).toEqual(SEMANTIC.filter(f => !/^(?:package|\.npmrc|\.yarnrc)/.test(f)))
    const copy = copyAway(join(out, 'lexical'))
    const search = await node(copy, ['search.mjs', 'restore a backup'])
    expect(search.stderr).toBe('')
    expect(JSON.parse(search.stdout)[0].id).toBe('restore-backup')
  })

  it('refuses --include-model when the model folder lacks the model\'s files', async () => {
    const empty = join(work, 'empty-models')
    mkdirSync(empty, { recursive: true })
    const opened = openKnowledgeProject(home, { overrides: { model: { cacheDir: '../empty-models' } } })
    // The model itself loads from elsewhere: only the copy for the export is missing.
    const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: models, offline: true })
    await expect(planKnowledgeExport(opened.project!, { mode: 'semantic', includeModel: true, buildOptions: { embedder } }))
      .rejects.toThrow(`--include-model copies the embedding model ${TINY_MODEL_ID} into the export, but its model folder lacks config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx. Run "skill-kit model --project test/.tmp/export/home" first.`)
    await embedder.dispose()
  })

  it('says so when this package was not built, or when a routed export is asked for the model', async () => {
    expect(() => packageExportAssets(tmpdir())).toThrow('unplugin-skill-kit has no dist/export/search.mjs: this copy of the package was not built. Run "npm run build" in it.')
    await expect(planKnowledgeExport(openKnowledgeProject(home).project!, { mode: 'routed', includeModel: true }))
      .rejects.toThrow('A routed export has no search script, so it takes no model: export it without includeModel, or as a semantic export.')
  })

  it('leaves neither the destination nor a temporary folder when writing fails midway', async () => {
    const opened = openKnowledgeProject(home)
    const plan = await planKnowledgeExport(opened.project!, { mode: 'semantic', includeModel: true, offline: true })
    if (!('entries' in plan))
      throw new Error('the plan failed')
    // The model's ONNX file cannot be read, after SKILL.md, the index and the references were written.
    const failing = plan.entries.map(entry => entry.path.endsWith('.onnx') ? { ...entry, read: () => Promise.reject(new Error('disk gone')) } : entry)
    const parent = join(out, 'midway')
    mkdirSync(parent, { recursive: true })
    await expect(writeExportFolder(join(parent, 'home'), failing)).rejects.toThrow('disk gone')
    expect(readdirSync(parent)).toEqual([])
    await writeExportFolder(join(parent, 'home'), plan.entries)
    expect(readdirSync(parent)).toEqual(['home'])
    expect(filesOf(join(parent, 'home'))).toEqual(filesOf(join(out, 'model/home')))
  })

  it('removes the temporary folder a killed export left, and keeps one that a running export writes', async () => {
    const opened = openKnowledgeProject(home)
    const plan = await planKnowledgeExport(opened.project!, { mode: 'routed' })
    if (!('entries' in plan))
      throw new Error('the plan failed')
    const parent = join(out, 'killed')
    const dead = spawnSync(process.execPath, ['-e', '']).pid!
    mkdirSync(join(parent, `.home.export-${dead}-AbC123/references`), { recursive: true })
    mkdirSync(join(parent, `.home.export-${process.ppid}-XyZ789`), { recursive: true })
    await writeExportFolder(join(parent, 'home'), plan.entries)
    expect(readdirSync(parent).sort()).toEqual([`.home.export-${process.ppid}-XyZ789`, 'home'])
  })
})
