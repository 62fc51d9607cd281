// Every code block of README.md and docs/ that shows an import or a command
// runs here, as written, against the project in test/docs/fixture/ (skills/,
// and the knowledge folders docs/, guides/ and handbook/, lexical so that no
// model is needed); a block this test cannot run says so in its info string
// (```ts illustrative). So an example that stops working fails a test.
//
// Three ways to run a block:
// - commands (sh): each line is `npx skill-kit …`, run as the CLI runs, in order, exit 0 each;
// - code that imports packages only: compiled from TypeScript and run by Node, exit 0;
// - code that imports skills or knowledge bases (`./…?knowledge`, `virtual:…`): built
//   with Vite and this package's plugin (dist/), then run; it must not throw.

import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundleCli, runCli } from '../support/cli'
import { markdownPages, parseMarkdown } from './markdown'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const fixture = join(repo, 'test/docs/fixture')
const tmp = join(repo, 'test/.tmp/docs-blocks')

/** The plugin options the examples assume (Knowledge bases names `handbook`, Routed index pages `docs`). */
const PLUGIN_OPTIONS = { knowledge: { handbook: './handbook', docs: './docs' } }

interface PageBlock {
  page: string
  info: string
  code: string
  line: number
}

type Runner = 'commands' | 'node' | 'bundle'

const COMMAND_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console'])

/** Whether a block shows an import or a command, which a reader would copy and run. */
function showsImportOrCommand(block: PageBlock): boolean {
  const language = block.info.split(/\s+/)[0] ?? ''
  return COMMAND_LANGUAGES.has(language) || /^\s*import\s|\brequire\(|\bimport\(/m.test(block.code)
}

function isIllustrative(block: PageBlock): boolean {
  return block.info.split(/\s+/).includes('illustrative')
}

/** How a block runs, or why it cannot (then it must be marked illustrative). */
function runnerOf(block: PageBlock): Runner | string {
  const language = block.info.split(/\s+/)[0] ?? ''
  if (COMMAND_LANGUAGES.has(language)) {
    const other = commandLines(block.code).find(line => !line.startsWith('npx skill-kit '))
    return other === undefined ? 'commands' : `it runs "${other}", which this test does not run`
  }
  if (!['ts', 'js', 'mjs'].includes(language))
    return `its language "${language}" is not run`
  return /from '(?:\.{1,2}\/|virtual:)/.test(block.code) ? 'bundle' : 'node'
}

/** A command block's commands: comments and blank lines dropped. */
function commandLines(code: string): string[] {
  return code.split('\n').map(line => line.replace(/\s+#\s.*$/, '').trim()).filter(line => line !== '' && !line.startsWith('#'))
}

/** Splits a command line into arguments, as a shell does for plain words and "double quotes". */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map(m => m[1] ?? m[2]!)
}

function blockName(block: PageBlock): string {
  return `${basename(block.page, '.md')}-${block.line}`
}

/** A fresh copy of the fixture project for one block. */
function projectFor(block: PageBlock): string {
  const dir = join(tmp, blockName(block))
  rmSync(dir, { recursive: true, force: true })
  cpSync(fixture, dir, { recursive: true })
  return dir
}

/** This package's entries by specifier, from package.json's exports, as an installed package resolves them. */
function packageAliases(): { find: RegExp, replacement: string }[] {
  const exports = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).exports as Record<string, string | { default?: string }>
  return Object.entries(exports).flatMap(([key, value]) => {
    const target = typeof value === 'string' ? value : value.default
    if (!target)
      return []
    const specifier = `unplugin-skill-kit${key === '.' ? '' : key.slice(1)}`
    return [{ find: new RegExp(`^${specifier.replace(/[/.]/g, '\\$&')}$`), replacement: join(repo, target) }]
  })
}

let cli: string

async function runCommands(block: PageBlock): Promise<void> {
  const dir = projectFor(block)
  for (const line of commandLines(block.code)) {
    const result = await runCli(cli, dir, shellWords(line).slice(2))
    expect(result.code, `${line}\n${result.stderr}`).toBe(0)
  }
}

async function runInNode(block: PageBlock): Promise<void> {
  const dir = projectFor(block)
  const { transform } = await import('esbuild')
  const { code } = await transform(block.code, { loader: 'ts', format: 'esm' })
  // Inside the repository, `unplugin-skill-kit/…` resolves to this package's own exports (dist/).
  const file = join(dir, 'block.mjs')
  writeFileSync(file, code)
  const result = await runCli(file, dir, [])
  expect(result.code, result.stderr).toBe(0)
}

async function runBundled(block: PageBlock): Promise<void> {
  const dir = projectFor(block)
  const entry = join(dir, 'block.ts')
  writeFileSync(entry, block.code)
  const outDir = join(dir, 'dist')
  const { build } = await import('vite')
  const skillKit = (await import(pathToFileURL(join(repo, 'dist/vite.mjs')).href)).default
  await build({
    configFile: false,
    root: dir,
    base: './',
    logLevel: 'silent',
    plugins: [skillKit(PLUGIN_OPTIONS)],
    resolve: { alias: packageAliases() },
    build: {
      outDir,
      emptyOutDir: true,
      minify: false,
      copyPublicDir: false,
      target: 'esnext',
      lib: { entry, formats: ['es'], fileName: () => 'index.mjs' },
    },
  })
  // Run as a program: an example that throws (or rejects at its top level) fails here.
  const result = await runCli(join(outDir, 'index.mjs'), dir, [])
  expect(result.code, result.stderr).toBe(0)
}

const blocks: PageBlock[] = [join(repo, 'README.md'), ...markdownPages(join(repo, 'docs'))].flatMap(page =>
  parseMarkdown(readFileSync(page, 'utf8')).blocks.map(block => ({ page, ...block })),
)
const shown = blocks.filter(showsImportOrCommand)
const run = shown.filter(block => !isIllustrative(block))

describe('code blocks of README.md and docs/', () => {
  beforeAll(async () => {
    mkdirSync(tmp, { recursive: true })
    cli = await bundleCli(tmp)
  })

  it('run, or are marked illustrative', () => {
    const unrunnable = run.map(block => [block, runnerOf(block)] as const)
      .filter(([, runner]) => !['commands', 'node', 'bundle'].includes(runner))
      .map(([block, why]) => `${block.page.slice(repo.length + 1)}:${block.line}: ${why}; mark it \`\`\`${block.info} illustrative, or make it runnable`)
    expect(unrunnable).toEqual([])
  })

  it('include every example of the README', () => {
    const readme = shown.filter(block => block.page.endsWith('README.md') && block.info.startsWith('ts'))
    expect(readme.length).toBeGreaterThanOrEqual(4)
    expect(readme.filter(isIllustrative)).toEqual([])
  })

  for (const block of run) {
    const runner = runnerOf(block)
    if (!['commands', 'node', 'bundle'].includes(runner))
      continue
    it(`${block.page.slice(repo.length + 1)}:${block.line} runs (${runner})`, async () => {
      if (runner === 'commands')
        await runCommands(block)
      else if (runner === 'node')
        await runInNode(block)
      else
        await runBundled(block)
    })
  }
})
