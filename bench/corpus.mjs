// Deterministic generator of realistic agent skills (SKILL.md), modelled on the
// skills published in public repositories such as anthropics/skills: YAML
// frontmatter (name = folder, a 1–3 sentence description, sometimes license,
// metadata, allowed-tools, compatibility), then a Markdown body of prose, lists,
// fenced code (with `#` comment lines), tables, quotes and level-2/3/4 headings.
// About a third are progressive (`progressive: { always: [...] }`, `{#id}` on
// every level-2 and level-3 heading). Line counts are log-normal with a median
// of about 240 and a tail past 500.
//
// No Math.random: everything comes from a seeded PRNG, so a (count, seed) pair
// always yields the same bytes.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const DEFAULT_SEED = 20240611

/** sfc32, seeded through splitmix32: small, fast and well distributed. */
export function createRng(seed) {
  let s = seed >>> 0
  const split = () => {
    s = (s + 0x9E3779B9) >>> 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85EBCA6B) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xC2B2AE35) >>> 0
    return (z ^ (z >>> 16)) >>> 0
  }
  let a = split()
  let b = split()
  let c = split()
  let d = split()
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0
    d = (d + 1) >>> 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) >>> 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) >>> 0
    return t / 4294967296
  }
  for (let i = 0; i < 12; i++) next()
  const rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: list => list[Math.floor(next() * list.length)],
    chance: p => next() < p,
    /** Standard normal (Box–Muller). */
    normal: () => {
      const u = 1 - next()
      const v = next()
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
    },
    sample: (list, n) => {
      const copy = [...list]
      const out = []
      while (out.length < n && copy.length > 0)
        out.push(copy.splice(Math.floor(next() * copy.length), 1)[0])
      return out
    },
  }
  return rng
}

// ---------------------------------------------------------------- vocabulary

const DOMAINS = [
  ['pdf', 'PDF documents'],
  ['docx', 'Word documents'],
  ['xlsx', 'spreadsheets'],
  ['pptx', 'slide decks'],
  ['csv', 'CSV exports'],
  ['sql', 'SQL migrations'],
  ['git', 'Git repositories'],
  ['github', 'GitHub pull requests'],
  ['docker', 'Docker images'],
  ['kubernetes', 'Kubernetes manifests'],
  ['terraform', 'Terraform modules'],
  ['api', 'REST APIs'],
  ['graphql', 'GraphQL schemas'],
  ['mcp', 'MCP servers'],
  ['react', 'React components'],
  ['vue', 'Vue single-file components'],
  ['svg', 'SVG illustrations'],
  ['canvas', 'canvas artwork'],
  ['brand', 'brand assets'],
  ['webapp', 'web applications'],
  ['playwright', 'browser tests'],
  ['pytest', 'Python test suites'],
  ['changelog', 'release notes'],
  ['i18n', 'translation catalogs'],
  ['logs', 'application logs'],
  ['incident', 'incident reports'],
  ['invoice', 'invoices'],
  ['contract', 'legal contracts'],
  ['slack', 'Slack messages'],
  ['email', 'email campaigns'],
  ['notebook', 'Jupyter notebooks'],
  ['dataset', 'tabular datasets'],
  ['image', 'raster images'],
  ['audio', 'audio transcripts'],
  ['video', 'video captions'],
  ['markdown', 'Markdown documentation'],
  ['openapi', 'OpenAPI specifications'],
  ['security', 'dependency audits'],
  ['accessibility', 'accessibility reviews'],
  ['theme', 'design tokens'],
]

const ACTIONS = [
  ['processing', 'process'],
  ['builder', 'build'],
  ['review', 'review'],
  ['editor', 'edit'],
  ['analyzer', 'analyze'],
  ['generator', 'generate'],
  ['migration', 'migrate'],
  ['testing', 'test'],
  ['formatter', 'format'],
  ['converter', 'convert'],
  ['validator', 'validate'],
  ['extractor', 'extract data from'],
  ['publisher', 'publish'],
  ['triage', 'triage'],
  ['helper', 'work with'],
]

const NOUNS = ['file', 'section', 'field', 'template', 'script', 'record', 'page', 'table', 'output', 'input', 'schema', 'step', 'check', 'report', 'config', 'fixture', 'token', 'layout', 'batch', 'manifest', 'draft', 'digest', 'header', 'row', 'column', 'item', 'reference', 'snapshot', 'workflow', 'package']
const ADJECTIVES = ['existing', 'new', 'large', 'nested', 'optional', 'required', 'generated', 'temporary', 'final', 'original', 'intermediate', 'shared', 'local', 'remote', 'cached', 'invalid', 'empty', 'partial', 'signed', 'encrypted']
const VERBS = ['read', 'write', 'check', 'validate', 'update', 'parse', 'render', 'merge', 'split', 'convert', 'extract', 'compare', 'inspect', 'collect', 'load', 'save', 'rename', 'archive', 'upload', 'review']
const ADVERBS = ['carefully', 'first', 'again', 'explicitly', 'in place', 'in one pass', 'incrementally', 'before committing', 'after each change', 'locally']
const TOOLS = ['pypdf', 'pdfplumber', 'pandas', 'openpyxl', 'python-docx', 'jq', 'ripgrep', 'pandoc', 'ffmpeg', 'sqlite3', 'kubectl', 'terraform', 'gh', 'npm', 'pnpm', 'uv', 'ruff', 'pytest', 'playwright', 'esbuild', 'vite', 'curl', 'libreoffice', 'imagemagick']
const FILES = ['input.pdf', 'report.xlsx', 'data.csv', 'config.yaml', 'package.json', 'schema.sql', 'README.md', 'output.docx', 'slides.pptx', 'manifest.json', 'scripts/check.py', 'scripts/convert.sh', 'templates/base.html', 'reference/forms.md', 'src/index.ts', 'tests/test_main.py']
const TITLES_H2 = ['Overview', 'Quick start', 'When to use this skill', 'Workflow', 'Core concepts', 'Setup', 'Installation', 'Common tasks', 'Reading input', 'Writing output', 'Validation', 'Error handling', 'Troubleshooting', 'Best practices', 'Guidelines', 'Examples', 'Reference', 'Configuration', 'Performance', 'Security considerations', 'Testing', 'Limitations', 'Output format', 'Style rules', 'Checklist', 'Advanced usage', 'Scripts', 'Dependencies', 'Mandatory rules', 'Decision tree', 'Edge cases', 'Naming conventions', 'Review process', 'Next steps']
const TITLES_H3 = ['Prerequisites', 'Basic usage', 'Options', 'Step by step', 'Example', 'Common mistakes', 'Tips', 'Notes', 'Inputs', 'Outputs', 'Flags', 'Fallbacks', 'Retries', 'Caveats', 'Details', 'Command line', 'Python', 'TypeScript', 'Shell', 'Edge cases', 'Verification', 'Cleanup', 'Formatting', 'Naming', 'Layout', 'Tables', 'Images', 'Links', 'Metadata', 'Logging']
const TITLES_H4 = ['Example', 'Why', 'Note', 'Output', 'Variant', 'When it fails', 'Alternative']
const LICENSES = ['Apache-2.0', 'MIT', 'Proprietary. LICENSE.txt has complete terms', 'Complete terms in LICENSE.txt', 'BSD-3-Clause', 'CC-BY-4.0']
const AUTHORS = ['anthropic', 'example-org', 'platform-team', 'docs-guild', 'data-eng', 'acme-labs', 'jdoe']
const ALLOWED = ['Read', 'Write', 'Edit', 'Grep', 'Glob', 'Bash(git:*)', 'Bash(python:*)', 'Bash(npm:*)', 'WebFetch', 'Bash(jq:*)']

// ---------------------------------------------------------------- text

function capitalize(s) {
  return s[0].toUpperCase() + s.slice(1)
}

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
}

/** Inline Markdown a skill's prose typically carries. */
function inline(r, ctx) {
  switch (r.int(0, 9)) {
    case 0: return `\`${r.pick(TOOLS)}\``
    case 1: return `\`${r.pick(FILES)}\``
    case 2: return `**${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}s**`
    case 3: return `[${r.pick(FILES)}](${r.pick(FILES)})`
    case 4: return `_${r.pick(ADVERBS)}_`
    case 5: return `\`--${r.pick(NOUNS)}\``
    default: return `the ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}${ctx ? ` of the ${ctx}` : ''}`
  }
}

function sentence(r, ctx) {
  const a = () => `${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`
  switch (r.int(0, 11)) {
    case 0: return `Always ${r.pick(VERBS)} ${inline(r, ctx)} ${r.pick(ADVERBS)}.`
    case 1: return `Use ${inline(r)} to ${r.pick(VERBS)} each ${a()}, then ${r.pick(VERBS)} ${inline(r, ctx)}.`
    case 2: return `If the ${a()} is missing, ${r.pick(VERBS)} ${inline(r)} instead and report which ${r.pick(NOUNS)} was affected.`
    case 3: return `Never ${r.pick(VERBS)} ${inline(r, ctx)} without asking the user; it may contain ${a()}s that cannot be recovered.`
    case 4: return `The ${r.pick(NOUNS)} is ${r.pick(['usually', 'often', 'rarely', 'sometimes'])} ${r.pick(ADJECTIVES)}, so ${r.pick(VERBS)} it ${r.pick(ADVERBS)}.`
    case 5: return `Prefer ${inline(r)} over ${inline(r)} when the ${ctx ?? r.pick(NOUNS)} has more than ${r.int(2, 500)} ${r.pick(NOUNS)}s.`
    case 6: return `This keeps the ${a()} small and makes it easier to ${r.pick(VERBS)} later.`
    case 7: return `See ${inline(r)} for the full list of ${r.pick(NOUNS)}s and their defaults.`
    case 8: return `Run the ${r.pick(NOUNS)} ${r.pick(['check', 'script', 'command'])} ${r.pick(ADVERBS)} and fix every ${r.pick(['error', 'warning', 'failure'])} it reports before you continue.`
    case 9: return `When in doubt, ${r.pick(VERBS)} a ${a()} first and compare it with ${inline(r, ctx)}.`
    case 10: return `${capitalize(r.pick(VERBS))} ${inline(r)} with ${inline(r)}; the result is a ${a()} you can ${r.pick(VERBS)} directly.`
    default: return `Most ${ctx ?? r.pick(NOUNS)} tasks need only ${r.int(2, 5)} steps: ${r.pick(VERBS)}, ${r.pick(VERBS)} and ${r.pick(VERBS)}.`
  }
}

function paragraph(r, ctx) {
  const text = Array.from({ length: r.int(1, 5) }, () => sentence(r, ctx)).join(' ')
  if (!r.chance(0.25))
    return [text]
  // Some authors hard-wrap their prose at ~90 columns.
  const lines = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > 90) {
      lines.push(line)
      line = word
    }
    else { line = line ? `${line} ${word}` : word }
  }
  lines.push(line)
  return lines
}

function bulletList(r, ctx) {
  const marker = r.chance(0.8) ? '-' : '*'
  return Array.from({ length: r.int(3, 8) }, () => {
    if (r.chance(0.35))
      return `${marker} **${capitalize(r.pick(NOUNS))}**: ${sentence(r, ctx)}`
    if (r.chance(0.15))
      return `${marker} [${r.chance(0.5) ? 'x' : ' '}] ${sentence(r, ctx)}`
    return `${marker} ${sentence(r, ctx)}`
  })
}

function numberedList(r, ctx) {
  const lines = []
  const n = r.int(3, 7)
  for (let i = 1; i <= n; i++) {
    lines.push(`${i}. ${sentence(r, ctx)}`)
    if (r.chance(0.2)) {
      for (let j = r.int(1, 3); j > 0; j--)
        lines.push(`   - ${sentence(r, ctx)}`)
    }
    if (r.chance(0.08)) {
      // A command nested in a list item, indented to the item's content.
      lines.push('', '   ```bash', `   # ${r.pick(VERBS)} the ${r.pick(NOUNS)}`, `   ${r.pick(TOOLS)} ${r.pick(VERBS)} ${r.pick(FILES)}`, '   ```', '')
    }
  }
  return lines
}

function codeBash(r) {
  const lines = []
  if (r.chance(0.3))
    lines.push('#!/usr/bin/env bash', 'set -euo pipefail', '')
  const n = r.int(2, 14)
  for (let i = 0; i < n; i++) {
    if (r.chance(0.35))
      lines.push(`# ${capitalize(r.pick(VERBS))} the ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`)
    switch (r.int(0, 5)) {
      case 0: lines.push(`${r.pick(TOOLS)} ${r.pick(VERBS)} --${r.pick(NOUNS)} ${r.pick(FILES)}`); break
      case 1: lines.push(`python ${r.pick(['scripts/check.py', 'scripts/convert.py', 'scripts/fill_form.py'])} ${r.pick(FILES)} > /tmp/${r.pick(NOUNS)}.json`); break
      case 2: lines.push(`for f in ${r.pick(['*.pdf', '*.csv', 'src/**/*.ts', 'docs/*.md'])}; do echo "$f"; done`); break
      case 3: lines.push(`${r.pick(['pip install', 'npm install -D', 'uv add', 'brew install'])} ${r.pick(TOOLS)}`); break
      case 4: lines.push(`export ${r.pick(NOUNS).toUpperCase()}_DIR="$HOME/.cache/${r.pick(NOUNS)}"`); break
      default: lines.push(`${r.pick(['git diff --stat', 'git log --oneline -n 20', 'ls -la', 'jq \'.items | length\' data.json', 'wc -l *.csv'])}`)
    }
  }
  return ['```bash', ...lines, '```']
}

function codePython(r) {
  const lines = []
  lines.push(`import ${r.pick(['json', 'sys', 'csv', 'pathlib', 're'])}`, `from ${r.pick(['pypdf', 'openpyxl', 'docx', 'pandas'])} import ${capitalize(r.pick(NOUNS))}${r.chance(0.5) ? 'Reader' : 'Writer'}`, '')
  if (r.chance(0.5))
    lines.push(`# ${capitalize(r.pick(VERBS))} every ${r.pick(NOUNS)} and ${r.pick(VERBS)} the ${r.pick(NOUNS)}`)
  const fn = `${r.pick(VERBS)}_${r.pick(NOUNS)}s`
  lines.push(`def ${fn}(path: str) -> list[dict]:`, `    """${capitalize(r.pick(VERBS))} the ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}s in *path*."""`, '    results = []')
  const n = r.int(1, 10)
  for (let i = 0; i < n; i++) {
    if (r.chance(0.3))
      lines.push(`    # ${capitalize(r.pick(ADVERBS))}: ${r.pick(VERBS)} the ${r.pick(NOUNS)}`)
    switch (r.int(0, 3)) {
      case 0: lines.push(`    for ${r.pick(NOUNS)} in ${r.pick(['reader.pages', 'sheet.rows', 'doc.paragraphs', 'data["items"]'])}:`, `        results.append({"${r.pick(NOUNS)}": ${r.pick(['len(', 'str(', 'repr('])}${r.pick(NOUNS)})})`); break
      case 1: lines.push(`    if not ${r.pick(NOUNS)}:`, `        raise ValueError("${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}")`); break
      case 2: lines.push(`    ${r.pick(NOUNS)} = ${r.pick(['json.loads', 'pathlib.Path', 're.compile', 'int'])}(${r.pick(['path', '"0"', 'r"^\\d+$"', 'sys.argv[1]'])})`); break
      default: lines.push(`    print(f"{${r.pick(NOUNS)}=}")  # debug only`)
    }
  }
  lines.push('    return results')
  if (r.chance(0.5))
    lines.push('', '', 'if __name__ == "__main__":', `    ${fn}(sys.argv[1])`)
  return ['```python', ...lines, '```']
}

function codeTs(r) {
  const lines = []
  lines.push(`import { ${r.pick(VERBS)}${capitalize(r.pick(NOUNS))} } from '${r.pick(['./lib', 'node:fs/promises', '@acme/sdk', 'zod'])}'`, '')
  const n = r.int(1, 8)
  lines.push(`export async function ${r.pick(VERBS)}${capitalize(r.pick(NOUNS))}s(input: string): Promise<string[]> {`)
  for (let i = 0; i < n; i++) {
    if (r.chance(0.3))
      lines.push(`  // ${capitalize(r.pick(VERBS))} the ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}`)
    switch (r.int(0, 2)) {
      case 0: lines.push(`  const ${r.pick(NOUNS)}${i} = await ${r.pick(VERBS)}(input, { ${r.pick(NOUNS)}: ${r.chance(0.5) ? 'true' : r.int(1, 100)} })`); break
      case 1: lines.push(`  if (!input.includes('${r.pick(NOUNS)}'))`, `    throw new Error(\`${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}: \${input}\`)`); break
      default: lines.push(`  console.log('${r.pick(VERBS)}', input.length)`)
    }
  }
  lines.push('  return [input]', '}')
  return [`\`\`\`${r.pick(['ts', 'typescript'])}`, ...lines, '```']
}

function codeOther(r) {
  if (r.chance(0.5)) {
    const n = r.int(2, 8)
    const body = Array.from({ length: n }, (_, i) => `  "${r.pick(NOUNS)}${i}": ${r.pick(['true', '"' + r.pick(FILES) + '"', String(r.int(0, 999)), 'null'])}${i < n - 1 ? ',' : ''}`)
    return ['```json', '{', ...body, '}', '```']
  }
  const n = r.int(2, 8)
  return ['```', ...Array.from({ length: n }, () => `${r.pick(NOUNS)}/${r.pick(FILES)}  ${r.chance(0.3) ? `# ${r.pick(ADJECTIVES)}` : ''}`.trimEnd()), '```']
}

function codeBlock(r) {
  const x = r.next()
  return x < 0.4 ? codeBash(r) : x < 0.7 ? codePython(r) : x < 0.88 ? codeTs(r) : codeOther(r)
}

function table(r) {
  const cols = r.int(2, 4)
  const head = Array.from({ length: cols }, () => capitalize(r.pick(NOUNS)))
  const rows = Array.from({ length: r.int(3, 8) }, () => Array.from({ length: cols }, (_, i) =>
    i === 0 ? `\`${r.pick(TOOLS)}\`` : r.chance(0.5) ? `${capitalize(r.pick(VERBS))} ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}s` : r.pick(['Yes', 'No', 'Optional', String(r.int(1, 64))])))
  const align = r.chance(0.3) ? head.map((_, i) => (i === 0 ? ':---' : '---:')) : head.map(() => '---')
  return [`| ${head.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows.map(row => `| ${row.join(' | ')} |`)]
}

function quote(r, ctx) {
  const label = r.pick(['**Note:**', '**Important:**', '**Warning:**', '**Tip:**'])
  const lines = [`> ${label} ${sentence(r, ctx)}`]
  if (r.chance(0.4))
    lines.push(`> ${sentence(r, ctx)}`)
  return lines
}

/** One block of body content. */
function block(r, ctx) {
  const x = r.next()
  if (x < 0.36)
    return paragraph(r, ctx)
  if (x < 0.54)
    return bulletList(r, ctx)
  if (x < 0.66)
    return numberedList(r, ctx)
  if (x < 0.88)
    return codeBlock(r)
  if (x < 0.95)
    return table(r)
  return quote(r, ctx)
}

// ---------------------------------------------------------------- skills

function description(r, subject, verb) {
  const parts = [
    `${capitalize(verb)} ${subject} with ${r.pick(TOOLS)}${r.chance(0.5) ? ` and ${r.pick(TOOLS)}` : ''}, including ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}s and ${r.pick(NOUNS)} ${r.pick(['checks', 'reports', 'templates'])}.`,
  ]
  const more = r.int(0, 2)
  const extras = [
    `Use when the user asks to ${verb} ${subject}, or mentions ${r.pick(NOUNS)}s, ${r.pick(NOUNS)}s or ${r.pick(FILES)}.`,
    `Covers ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}s, ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}s and common ${r.pick(['errors', 'pitfalls', 'edge cases'])}.`,
    `Not for ${r.pick(ADJECTIVES)} ${r.pick(NOUNS)}s; use the ${r.pick(DOMAINS)[0]}-${r.pick(ACTIONS)[0]} skill for those.`,
  ]
  for (let i = 0; i < more; i++)
    parts.push(extras[i])
  return parts.join(' ')
}

/** A description as YAML: plain, double-quoted, or a folded block. */
function yamlDescription(r, text) {
  const style = r.next()
  if (style < 0.55)
    return [`description: ${text}`]
  if (style < 0.8)
    return [`description: "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`]
  const lines = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && line.length + word.length + 1 > 76) {
      lines.push(`  ${line}`)
      line = word
    }
    else { line = line ? `${line} ${word}` : word }
  }
  lines.push(`  ${line}`)
  return ['description: >-', ...lines]
}

/** Log-normal line target: median ≈ 240, a few skills past 500. */
function targetLines(r) {
  return Math.max(40, Math.min(1400, Math.round(Math.exp(Math.log(240) + 0.42 * r.normal()))))
}

/** Share of a section's line budget that blocks are added against (calibrated: median file ≈ 240 lines). */
const SECTION_FILL = 0.45

function generateSkill(r, name, subject, verb) {
  const progressive = r.chance(1 / 3)
  const target = targetLines(r)
  const title = `${capitalize(subject)} ${capitalize(verb.split(' ')[0])} Guide`

  // Body ---------------------------------------------------------------
  const body = []
  const ids = new Set()
  const sectionIds = []
  const idFor = (heading) => {
    let id = slug(heading) || 'section'
    for (let n = 2; ids.has(id); n++)
      id = `${slug(heading)}-${n}`
    ids.add(id)
    return id
  }
  const heading = (level, text) => {
    if (!progressive || level > 3)
      return `${'#'.repeat(level)} ${text}`
    const id = idFor(text)
    if (level === 2)
      sectionIds.push(id)
    return `${'#'.repeat(level)} ${text} {#${id}}`
  }
  const push = (lines) => {
    if (body.length > 0)
      body.push('')
    body.push(...lines)
  }

  push([`# ${title}`])
  push(paragraph(r, subject))
  if (r.chance(0.4))
    push(bulletList(r, subject))

  const frontLines = 8
  const sectionCount = Math.max(3, Math.min(22, Math.round(target / 32 + r.normal())))
  // Blocks overshoot their budget by about half a block: aim low so the file lands on `target`.
  const perSection = Math.max(4, Math.floor(SECTION_FILL * (target - frontLines - body.length) / sectionCount))
  const h2 = r.sample(TITLES_H2, sectionCount)
  while (h2.length < sectionCount)
    h2.push(`${r.pick(TITLES_H2)} (${h2.length + 1})`)
  for (const h of h2) {
    push([heading(2, h)])
    const start = body.length
    const subs = r.chance(0.55) ? r.int(1, 3) : 0
    const ownBudget = subs > 0 ? Math.max(3, Math.floor(perSection * 0.35)) : perSection
    while (body.length - start < ownBudget)
      push(block(r, subject))
    for (let s = 0; s < subs; s++) {
      push([heading(3, `${r.pick(TITLES_H3)}${r.chance(0.3) ? ` for ${r.pick(NOUNS)}s` : ''}`)])
      const subStart = body.length
      const subBudget = Math.floor((perSection - ownBudget) / subs)
      while (body.length - subStart < subBudget) {
        if (r.chance(0.12))
          push([heading(4, r.pick(TITLES_H4))])
        push(block(r, subject))
      }
    }
  }

  // Frontmatter --------------------------------------------------------
  const fm = ['---', `name: ${name}`, ...yamlDescription(r, description(r, subject, verb))]
  if (r.chance(0.45))
    fm.push(`license: ${r.pick(LICENSES)}`)
  if (r.chance(0.08))
    fm.push(`compatibility: Requires ${r.pick(TOOLS)} and ${r.pick(['Python 3.10+', 'Node.js 20+', 'network access', 'a POSIX shell'])}`)
  if (r.chance(0.3)) {
    const tools = r.sample(ALLOWED, r.int(1, 5))
    fm.push(r.chance(0.7) ? `allowed-tools: ${tools.join(' ')}` : `allowed-tools:\n${tools.map(t => `  - ${t}`).join('\n')}`)
  }
  if (r.chance(0.3)) {
    fm.push('metadata:', `  author: ${r.pick(AUTHORS)}`, `  version: "${r.int(0, 3)}.${r.int(0, 12)}${r.chance(0.5) ? `.${r.int(0, 9)}` : ''}"`)
    if (r.chance(0.4))
      fm.push(`  category: ${r.pick(['documents', 'development', 'data', 'design', 'operations'])}`)
  }
  if (progressive) {
    const always = r.sample(sectionIds, r.int(1, Math.min(2, sectionIds.length)))
    fm.push(r.chance(0.5)
      ? `progressive: { always: [${always.join(', ')}] }`
      : `progressive:\n  always:\n${always.map(id => `    - ${id}`).join('\n')}`)
  }
  fm.push('---')

  return { name, progressive, source: `${[...fm, '', ...body].join('\n')}\n` }
}

/**
 * Words of a 30,000-word vocabulary made of syllables, drawn with Zipf
 * frequencies (s = 1: word k with weight 1 / (k + 1)) from `rng`: the chunk
 * texts of the synthetic knowledge corpora (search.bench.mjs, shards.bench.mjs).
 */
export function zipfWords(rng, size = 30_000) {
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'den', 'mar', 'pol', 'ster', 'tion', 'ing', 'er', 'al']
  const vocabulary = Array.from({ length: size }, (_, i) => {
    let word = ''
    for (let n = i + 17; word.length < 4 || n > 0; n = Math.floor(n / syllables.length))
      word += syllables[n % syllables.length]
    return word
  })
  // Inverse CDF of Zipf (s = 1) over the vocabulary.
  const cdf = new Float64Array(vocabulary.length)
  let sum = 0
  for (let i = 0; i < cdf.length; i++)
    cdf[i] = sum += 1 / (i + 1)
  return () => {
    const x = rng.next() * sum
    let lo = 0
    let hi = cdf.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cdf[mid] < x)
        lo = mid + 1
      else hi = mid
    }
    return vocabulary[lo]
  }
}

/**
 * `count` skills from `seed`, each `{ name, source, progressive }`. Names are
 * unique and valid skill names (the folder name to write them under).
 */
export function generateSkills(count, seed = DEFAULT_SEED) {
  const r = createRng(seed)
  const used = new Set()
  const skills = []
  for (let i = 0; i < count; i++) {
    const [domain, subject] = r.pick(DOMAINS)
    const [action, verb] = r.pick(ACTIONS)
    let name = `${domain}-${action}`
    for (let n = 2; used.has(name); n++)
      name = `${domain}-${action}-${n}`
    used.add(name)
    skills.push(generateSkill(r, name, subject, verb))
  }
  return skills
}

/** Writes `<dir>/<name>/SKILL.md` for `count` skills; returns the skills with their `file`. */
export function writeSkills(dir, count, seed = DEFAULT_SEED) {
  return generateSkills(count, seed).map((skill) => {
    const folder = join(dir, skill.name)
    mkdirSync(folder, { recursive: true })
    const file = join(folder, 'SKILL.md')
    writeFileSync(file, skill.source)
    return { ...skill, file }
  })
}

/** Line-count statistics of a corpus, for the report. */
export function corpusStats(skills) {
  const lines = skills.map(s => s.source.split('\n').length - 1).sort((a, b) => a - b)
  const q = p => lines[Math.min(lines.length - 1, Math.floor(p * lines.length))]
  return {
    count: skills.length,
    progressive: skills.filter(s => s.progressive).length,
    median: q(0.5),
    p10: q(0.1),
    p90: q(0.9),
    max: lines[lines.length - 1],
    over500: lines.filter(n => n > 500).length,
    bytes: skills.reduce((n, s) => n + Buffer.byteLength(s.source), 0),
  }
}

/**
 * Compiles every skill with the package's `compileSkill` and throws, listing the
 * diagnostics, if any has an error. Returns the number of warnings seen.
 */
export function assertCompiles(compileSkill, skills, root = '/bench/skills') {
  const folder = { files: [], kind: () => 'missing' }
  const failures = []
  let warnings = 0
  for (const skill of skills) {
    const file = `${root}/${skill.name}/SKILL.md`
    const compiled = compileSkill({ file, source: skill.source, folder })
    const errors = compiled.diagnostics.filter(d => d.severity === 'error')
    warnings += compiled.diagnostics.length - errors.length
    const expected = skill.progressive ? 'progressive' : 'regular'
    if (errors.length > 0 || compiled.mode !== expected)
      failures.push(`${skill.name} (mode ${compiled.mode}, expected ${expected}):\n${errors.map(d => `  ${d.line}:${d.column} ${d.code}: ${d.message}`).join('\n')}`)
  }
  if (failures.length > 0)
    throw new Error(`Corpus check failed: ${failures.length} of ${skills.length} generated skills do not compile cleanly.\n${failures.slice(0, 10).join('\n')}`)
  return { warnings }
}
