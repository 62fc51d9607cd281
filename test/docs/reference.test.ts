// The reference in docs/ stays complete and its links stay true: every error
// code and CLI verb (with its options) that src/ can produce is documented, and
// every link between README.md and docs/ pages lands on a page and a heading.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { validateCommand } from '../../src/cli/validate-command'
import { evalCommand } from '../../src/cli/eval'
import { buildCommand } from '../../src/cli/knowledge/build'
import { exportCommand } from '../../src/cli/knowledge/export'
import { initCommand } from '../../src/cli/knowledge/init'
import { modelCommand } from '../../src/cli/knowledge/model'
import { retrieveCommand } from '../../src/cli/knowledge/retrieve'
import { searchCommand } from '../../src/cli/knowledge/search'
import { statusCommand } from '../../src/cli/knowledge/status'
import { watchCommand } from '../../src/cli/knowledge/watch'
import { run } from '../../src/cli/index'
import { mcpCommand } from '../../src/cli/mcp/command'
import { DEFAULT_ROUTING } from '../../src/core/routing-config'
import { DEFAULT_CHUNK, DEFAULT_MODEL, DEFAULT_SEARCH } from '../../src/knowledge/config'
import { markdownPages, parseMarkdown } from './markdown'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : []
  })
}

/**
 * Every error code the sources can give a user: diagnostics (`bag.error('code', …)`,
 * `code: 'code'`, a `?? 'code'` default) and the members of the `…ErrorCode` unions
 * that `KnowledgeError`, `SnapshotError`, `SkillReadError` and `ExportError` carry.
 */
function errorCodesInSources(): Map<string, string> {
  const codes = new Map<string, string>()
  const patterns = [
    /\.(?:error|warning)\(\s*'([a-z][a-z0-9-]+)'/g,
    /\bcode:\s*'([a-z][a-z0-9-]+)'/g,
    /\bcode\s*\?\?\s*'([a-z][a-z0-9-]+)'/g,
  ]
  for (const file of sourceFiles(join(repo, 'src'))) {
    const text = readFileSync(file, 'utf8')
    const where = file.slice(repo.length + 1)
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern))
        codes.set(match[1]!, where)
    }
    for (const union of text.matchAll(/export type \w+ErrorCode =([^]*?)\n(?!\s*(?:\||\/\*\*|\*))/g)) {
      for (const member of union[1]!.matchAll(/'([a-z][a-z0-9-]+)'/g))
        codes.set(member[1]!, where)
    }
  }
  return codes
}

const docsText = markdownPages(join(repo, 'docs')).map(page => readFileSync(page, 'utf8')).join('\n')

describe('the reference in docs/', () => {
  it('documents every error code the sources can produce', () => {
    const codes = errorCodesInSources()
    // The extraction itself works: codes of each kind are found.
    for (const known of ['section-id-missing', 'yaml-tab', 'yaml-syntax', 'document-too-large', 'unknown-document', 'truncated', 'unknown-section', 'destination-exists'])
      expect(codes.has(known), known).toBe(true)
    const missing = [...codes].filter(([code]) => !docsText.includes(`\`${code}\``)).map(([code, file]) => `${code} (${file})`)
    expect(missing, 'error codes with no mention in docs/ (write them into docs/errors.md)').toEqual([])
  })

  it('documents every CLI verb, with each of its options, in docs/cli.md', async () => {
    const cli = readFileSync(join(repo, 'docs/cli.md'), 'utf8')
    const commands = [validateCommand, initCommand, buildCommand, searchCommand, retrieveCommand, statusCommand, watchCommand, modelCommand, exportCommand, evalCommand, mcpCommand]
    // The list above is the CLI's own: `skill-kit --help` names exactly these.
    let help = ''
    await run(['--help'], { out: (text: string) => { help += text }, err: () => {} } as never)
    const listed = [...help.matchAll(/^ {2}([a-z]+)\b/gm)].map(m => m[1])
    expect(listed.sort()).toEqual(commands.map(c => c.name).sort())
    const missing: string[] = []
    for (const command of commands) {
      if (!cli.includes(`skill-kit ${command.name}`))
        missing.push(`skill-kit ${command.name}`)
      for (const option of Object.keys(command.options)) {
        if (!new RegExp(`--${option}\\b`).test(cli))
          missing.push(`skill-kit ${command.name} --${option}`)
      }
    }
    expect(missing).toEqual([])
  })

  it('documents every plugin option and skill-kit.json setting', () => {
    // The keys the validators accept, read from their lists (string literals only).
    const keysOf = (file: string, names: string[]) => {
      const text = readFileSync(join(repo, file), 'utf8')
      return names.flatMap((name) => {
        const list = new RegExp(`const ${name} = \\[([^\\]]*)\\]`).exec(text)
        expect(list, `${name} in ${file}`).not.toBeNull()
        return [...list![1]!.matchAll(/'([^']+)'/g)].map(m => m[1]!)
      })
    }
    const plugin = keysOf('src/plugin/validate-options.ts', ['TOP_KEYS', 'SKILLS_KEYS', 'KNOWLEDGE_KEYS', 'SHARDS_KEYS', 'SHARD_SIZE_KEYS', 'EXPORT_KEYS'])
    const settings = [
      ...keysOf('src/knowledge/config.ts', ['TOP_KEYS', 'WATCH_KEYS', 'SERVER_KEYS']).filter(key => key !== '$schema'),
      ...Object.keys(DEFAULT_MODEL),
      ...Object.keys(DEFAULT_CHUNK),
      ...Object.keys(DEFAULT_SEARCH),
    ]
    expect(plugin).toContain('preloadHtml')
    expect(settings).toContain('maxDocumentBytes')
    const options = readFileSync(join(repo, 'docs/options.md'), 'utf8')
    const routed = readFileSync(join(repo, 'docs/routed-pages.md'), 'utf8')
    // A key is documented when it appears as a word inside a code span of a line outside code blocks.
    const inCode = (text: string, key: string) => text.replace(/^```[^]*?^```$/gm, '').split('\n')
      .some(line => [...line.matchAll(/`([^`]+)`/g)].some(m => new RegExp(`(?:^|[^\\w])${key}(?:$|[^\\w])`).test(m[1]!)))
    const missing = [
      ...[...plugin, ...settings].filter(key => !inCode(options, key)).map(key => `docs/options.md: ${key}`),
      ...Object.keys(DEFAULT_ROUTING).filter(key => !routed.includes(`"${key}"`)).map(key => `docs/routed-pages.md: routing.${key}`),
    ]
    expect(missing).toEqual([])
  })

  it('lists every import form the plugin serves in Getting started', () => {
    // The plugin's table of module kinds, at the top of its index, names each form.
    const table = readFileSync(join(repo, 'src/plugin/index.ts'), 'utf8').split('\n').filter(line => line.startsWith('// |')).join('\n')
    const forms = [...table.matchAll(/\?[a-z]+(?:=<id>)?|virtual:skill-kit\/[\w<>/]+/g)].map(m => m[0])
    expect(forms).toEqual(expect.arrayContaining(['?cover', '?section=<id>', '?routes', 'virtual:skill-kit/skills', 'virtual:skill-kit/knowledge/<name>/routes']))
    const page = readFileSync(join(repo, 'docs/getting-started.md'), 'utf8')
    expect(forms.filter(form => !page.includes(`${form}\``))).toEqual([])
  })

  it('has links between README.md and docs/ that land on a page and a heading', () => {
    const pages = [join(repo, 'README.md'), ...markdownPages(join(repo, 'docs'))]
    const broken: string[] = []
    for (const page of pages) {
      const { links } = parseMarkdown(readFileSync(page, 'utf8'))
      for (const link of links) {
        if (/^[a-z]+:/i.test(link))
          continue
        const [path, anchor] = link.split('#') as [string, string | undefined]
        const target = path === '' ? page : resolve(dirname(page), path)
        if (!existsSync(target)) {
          broken.push(`${page.slice(repo.length + 1)}: ${link} (no such file)`)
          continue
        }
        if (!target.endsWith('.md'))
          continue
        const { anchors } = parseMarkdown(readFileSync(target, 'utf8'))
        if (anchor !== undefined && !anchors.has(anchor))
          broken.push(`${page.slice(repo.length + 1)}: ${link} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })
})

describe('README.md', () => {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8')

  it('is a front page of at most about 200 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(210)
  })

  it('names the test command CI runs (.ci/run runs the README\'s `npm test`)', () => {
    const ci = readFileSync(join(repo, '.ci/run'), 'utf8')
    expect(ci).toMatch(/^npm test$/m)
    expect(readme).toMatch(/^npm test\b/m)
    const scripts = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).scripts as Record<string, string>
    expect(scripts.test).toBeTruthy()
  })
})
