// The `agentSkills` option in a Vite build of a site: the well-known index
// validates against the RFC's schema, its digests are those of the bytes a
// static server serves, archives unpack to the skill folders' files (and
// nothing from outside them), two builds give the same bytes, and llms.txt
// links to every skill and exported knowledge base.

import type { AddressInfo } from 'node:net'
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { dirname, extname, join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import Ajv from 'ajv'
import { parseTarGzip } from 'nanotar'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultProjectConfig } from '../../../src/knowledge/config'
import { watcherReports } from '../../support/watcher-ready.mjs'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/plugin-agent-skills')
const site = join(work, 'site')
const schema = JSON.parse(readFileSync(join(repo, 'test/fixtures/agent-skills/discovery-0.2.0.schema.json'), 'utf8'))

/** The skills of the site's registry folders, by path in their folder. */
const SKILLS: Record<string, Record<string, string>> = {
  'skills/commit-style': {
    'SKILL.md': '---\nname: commit-style\ndescription: Write commit messages in the team\'s style. Use when committing.\n---\n\nStart with the area, then say what and why.\n',
  },
  'skills/xlsx': {
    'SKILL.md': '---\nname: xlsx\ndescription: Create and recalculate spreadsheets. Use when the user asks for a workbook.\n---\n\nRun `scripts/recalc.py`; forms are in [references/FORMS.md](references/FORMS.md).\n',
    'scripts/recalc.py': 'print("recalculated")\n',
    'references/FORMS.md': '# Forms\n\nFill the cells top to bottom.\n',
  },
  '.agents/skills/release': {
    'SKILL.md': '---\nname: release\ndescription: Cut a release. Use when the user asks to publish a version.\n---\n\nTag, build, publish.\n',
  },
}
const QUICK = '---\r\nname: quick\r\ndescription: Answer in one sentence.\r\n---\r\n\r\nBe brief.\r\n'

const MIME: Record<string, string> = { '.json': 'application/json', '.md': 'text/markdown', '.gz': 'application/gzip', '.txt': 'text/plain' }

/** Every file under `dir`, relative, with `/`, sorted. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile())
    .map(e => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort()
}

/** The site's plugin, from dist/. */
async function sitePlugin(): Promise<import('vite').Plugin> {
  const { default: skillKit } = await import(pathToFileURL(join(repo, 'dist/vite.mjs')).href)
  return skillKit({
    agentSkills: { summary: 'Skills and guides of the fixture site.' },
    knowledge: { home: { dir: 'home', model: false, export: { mode: 'routed' } } },
  })
}

/** Builds the site with Vite into `out`. */
async function buildSite(out: string): Promise<void> {
  const { build } = await import('vite')
  await build({ configFile: false, root: site, logLevel: 'silent', plugins: [await sitePlugin()], build: { outDir: out, emptyOutDir: true, copyPublicDir: false } })
}

/** A static server of `dir` on 127.0.0.1 with the content types the RFC asks for. */
async function serve(dir: string): Promise<{ origin: string, close: () => Promise<void> }> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)
    const file = join(dir, path)
    if (!file.startsWith(dir + sep) || !filesOf(dir).includes(path.slice(1))) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream' })
    response.end(readFileSync(file))
  })
  await new Promise<void>(done => server.listen(0, '127.0.0.1', done))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise(done => server.close(() => done())),
  }
}

const out = join(work, 'out')
const again = join(work, 'again')
let server: Awaited<ReturnType<typeof serve>>

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  for (const [folder, files] of Object.entries(SKILLS)) {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(site, folder, path)), { recursive: true })
      writeFileSync(join(site, folder, path), text)
    }
  }
  writeFileSync(join(site, 'skills/quick.skill.md'), QUICK)
  // What must never be packed: a file and a folder outside, linked from the skill's folder, and a hidden file.
  mkdirSync(join(work, 'outside'))
  writeFileSync(join(work, 'outside/secret.txt'), 'the build machine\'s secret\n')
  symlinkSync(join(work, 'outside/secret.txt'), join(site, 'skills/xlsx/leak.txt'))
  symlinkSync(join(work, 'outside'), join(site, 'skills/xlsx/linked'), 'dir')
  writeFileSync(join(site, 'skills/xlsx/.env'), 'TOKEN=secret\n')
  mkdirSync(join(site, 'home'))
  writeFileSync(join(site, 'home/skill-kit.json'), JSON.stringify(defaultProjectConfig('home'), null, 2))
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(site, 'home/knowledge'), { recursive: true })
  writeFileSync(join(site, 'package.json'), JSON.stringify({ name: 'fixture-site', private: true }))
  writeFileSync(join(site, 'index.html'), '<!doctype html><title>Fixture</title><script type="module" src="./main.js"></script>\n')
  writeFileSync(join(site, 'main.js'), 'import skills from \'virtual:skill-kit/skills\'\ndocument.title = `${skills.length} skills`\n')
  await buildSite(out)
  server = await serve(out)
}, 120_000)

afterAll(async () => {
  await server?.close()
})

describe('agentSkills in a Vite build', () => {
  it('emits an index that validates against the RFC v0.2.0 schema, with each skill under its type', () => {
    const index = JSON.parse(readFileSync(join(out, '.well-known/agent-skills/index.json'), 'utf8'))
    const validate = new Ajv({ allErrors: true }).compile(schema)
    expect(validate(index), JSON.stringify(validate.errors)).toBe(true)
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json')
    expect(index.skills.map((s: { name: string, type: string, url: string }) => [s.name, s.type, s.url])).toEqual([
      ['commit-style', 'skill-md', 'commit-style/SKILL.md'],
      ['home', 'archive', 'home.tar.gz'],
      ['quick', 'skill-md', 'quick/SKILL.md'],
      ['release', 'skill-md', 'release/SKILL.md'],
      ['xlsx', 'archive', 'xlsx.tar.gz'],
    ])
    expect(index.skills[0].description).toBe('Write commit messages in the team\'s style. Use when committing.')
    // Every name is an Agent Skills name: lowercase letters, digits and single hyphens, at most 64.
    for (const { name } of index.skills)
      expect(name).toMatch(/^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/)
  })

  it('gives each skill the digest of the bytes a static server serves at its URL, and a skill-md the skill file as it is', async () => {
    const indexUrl = `${server.origin}/.well-known/agent-skills/index.json`
    const response = await fetch(indexUrl)
    expect(response.headers.get('content-type')).toBe('application/json')
    const index = await response.json() as { skills: { name: string, url: string, digest: string }[] }
    for (const skill of index.skills) {
      const artefact = await fetch(new URL(skill.url, indexUrl))
      expect(artefact.status, skill.url).toBe(200)
      const bytes = new Uint8Array(await artefact.arrayBuffer())
      expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`, skill.name).toBe(skill.digest)
    }
    // The skill file's own bytes (CRLF line endings included), not the text the plugin compiled.
    expect(readFileSync(join(out, '.well-known/agent-skills/quick/SKILL.md'), 'utf8')).toBe(QUICK)
  })

  it('packs a skill folder\'s files, byte for byte, and nothing linked from outside it or hidden', async () => {
    const entries = await parseTarGzip(readFileSync(join(out, '.well-known/agent-skills/xlsx.tar.gz')))
    expect(entries.map(e => [e.name, e.type, e.attrs?.mode, e.attrs?.mtime, e.attrs?.uid])).toEqual([
      ['SKILL.md', 'file', '0000644', 0, 0],
      ['references/FORMS.md', 'file', '0000644', 0, 0],
      ['scripts/recalc.py', 'file', '0000644', 0, 0],
    ])
    for (const entry of entries)
      expect(entry.text).toBe(SKILLS['skills/xlsx']![entry.name])
  })

  it('packs an exported knowledge base as the folder the build wrote', async () => {
    const entries = await parseTarGzip(readFileSync(join(out, '.well-known/agent-skills/home.tar.gz')))
    const exported = join(out, 'skills/home')
    expect(entries.map(e => e.name)).toEqual(filesOf(exported))
    for (const entry of entries)
      expect(Buffer.from(entry.data ?? []).equals(readFileSync(join(exported, entry.name))), entry.name).toBe(true)
  })

  it('writes llms.txt at the output root, linking each skill and the knowledge base\'s own llms.txt', () => {
    const text = readFileSync(join(out, 'llms.txt'), 'utf8')
    expect(text.split('\n').slice(0, 4)).toEqual(['# fixture-site', '', '> Skills and guides of the fixture site.', ''])
    const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map(m => m[1]!)
    expect(links).toEqual([
      '.well-known/agent-skills/index.json',
      '.well-known/agent-skills/commit-style/SKILL.md',
      '.well-known/agent-skills/home.tar.gz',
      '.well-known/agent-skills/quick/SKILL.md',
      '.well-known/agent-skills/release/SKILL.md',
      '.well-known/agent-skills/xlsx.tar.gz',
      'skills/home/llms.txt',
    ])
    // Each link lands on a file of the output.
    for (const link of links)
      expect(filesOf(out), link).toContain(link)
  })

  it('gives the same bytes in a second build', async () => {
    await buildSite(again)
    const published = (dir: string) => filesOf(dir).filter(file => file.startsWith('.well-known/') || file === 'llms.txt')
    expect(published(again)).toEqual(published(out))
    expect(published(out)).toHaveLength(7)
    for (const file of published(out))
      expect(readFileSync(join(again, file)).equals(readFileSync(join(out, file))), file).toBe(true)
  }, 60_000)
})

describe('agentSkills in the Vite dev server', () => {
  let dev: import('vite').ViteDevServer | undefined
  let origin: string

  beforeAll(async () => {
    const { createServer: createViteServer } = await import('vite')
    dev = await createViteServer({ configFile: false, root: site, base: '/docs/', logLevel: 'silent', plugins: [await sitePlugin()], server: { port: 0, host: '127.0.0.1' } })
    await dev.listen()
    origin = `http://127.0.0.1:${(dev.httpServer!.address() as AddressInfo).port}/docs/`
    await watcherReports(dev, join(site, 'skills'))
  }, 60_000)

  /** Resolves once the dev server's watcher (which the plugin's loader listens to first) reports `file`. */
  const reported = (file: string) => new Promise<void>((done) => {
    const heard = (_event: string, path: string) => {
      if (path === file) {
        dev!.watcher.off('all', heard)
        done()
      }
    }
    dev!.watcher.on('all', heard)
  })

  afterAll(async () => {
    await dev?.close()
  })

  it('serves the registry\'s skills at the same paths, under its base, with the same bytes as the build', async () => {
    const response = await fetch(`${origin}.well-known/agent-skills/index.json`)
    expect(response.headers.get('content-type')).toBe('application/json')
    const index = await response.json() as { skills: { name: string, url: string, digest: string }[] }
    const built = JSON.parse(readFileSync(join(out, '.well-known/agent-skills/index.json'), 'utf8')) as typeof index
    // The build's entries but the exported knowledge base: the dev server exports nothing.
    expect(index.skills).toEqual(built.skills.filter(skill => skill.name !== 'home'))
    for (const skill of index.skills) {
      const artefact = await fetch(new URL(skill.url, `${origin}.well-known/agent-skills/index.json`))
      expect(Buffer.from(await artefact.arrayBuffer()).equals(readFileSync(join(out, '.well-known/agent-skills', skill.url))), skill.url).toBe(true)
    }
    expect((await fetch(`${origin}.well-known/agent-skills/xlsx.tar.gz`)).headers.get('content-type')).toBe('application/gzip')
    expect(await (await fetch(`${origin}llms.txt`)).text()).toContain('- [commit-style](.well-known/agent-skills/commit-style/SKILL.md): Write commit messages')
    // No exported knowledge base: that path is left to Vite (its page).
    expect((await fetch(`${origin}.well-known/agent-skills/home.tar.gz`)).headers.get('content-type')).toMatch(/^text\/html/)
  })

  it('serves an edit at once, and a skill it cannot publish as a 500 with the build\'s message', async () => {
    const file = join(site, 'skills/commit-style/SKILL.md')
    const before = readFileSync(file, 'utf8')
    try {
      const edited = reported(file)
      writeFileSync(file, before.replace('Write commit messages', 'Write short commit messages'))
      await edited
      const index = await (await fetch(`${origin}.well-known/agent-skills/index.json`)).json() as { skills: { description: string }[] }
      expect(index.skills[0]!.description).toBe('Write short commit messages in the team\'s style. Use when committing.')
      writeFileSync(join(site, '.agents/skills/commit-style.skill.md'), before)
      const clash = await fetch(`${origin}.well-known/agent-skills/index.json`)
      expect(clash.status).toBe(500)
      expect(await clash.text()).toBe('Two published skills are named "commit-style": skill .agents/skills/commit-style.skill.md and skill skills/commit-style/SKILL.md. Names in the well-known index must be unique: rename one (a knowledge base\'s skill takes the "name" of its skill-kit.json).\n')
    }
    finally {
      writeFileSync(file, before)
      rmSync(join(site, '.agents/skills/commit-style.skill.md'), { force: true })
    }
  })
})
