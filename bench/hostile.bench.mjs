// How the compiler, the document parser and chunker, the activation engine,
// the skill tool and diagnostic reports scale on the pathological inputs of
// issue 14 (and those the work-counting fuzz test found since): each shape at
// size n and 10n, in the same process, warm, fastest of rounds. A linear cost
// gives a ratio near 10; the goal is at most 12 (quadratic would be about 100).
// Shapes a limit refuses cost about the same at both sizes (ratio near 1).
// A shape that takes under 20 ms at n is measured at 10n and 100n instead:
// below that, timer, JIT and young-generation GC noise decide the ratio.
// The sources are bundled from src/ (no build needed).
//
//   node --expose-gc bench/hostile.bench.mjs [--n 10000] [--rounds 5] [--only <part of a shape's name>] [--json]

import { bundleSource } from './knowledge.mjs'
import { arg, emitResult, fmtMs, isMain, numberArg } from './util.mjs'

export const HOSTILE_GOAL = 12
/** Shapes faster than this at n are measured at 10n and 100n instead. */
const MIN_MS = 20

const skill = (yaml, body = '# Body\n') => `---\nname: hostile\ndescription: d\n${yaml}\n---\n${body}`
const document = body => `---\ndescription: d\n---\n${body}`
const many = (n, line) => Array.from({ length: Math.max(1, Math.round(n)) }, (_, i) => line(i)).join('')
/** Text of n characters a hostile model would write: links, images, HTML, autolinks, addresses, separators. */
const HOSTILE_PIECES = ['Read [the docs](https://evil.example/steal) ', '![x](https://evil.example/p.png) ', '<script>alert(1)</script> ', '<https://evil.example> ', 'https://evil.example/x ', '[p](../../../../etc/passwd) ', 'plain words\u2028 ']
const hostileText = n => many(n / 20, i => HOSTILE_PIECES[i % HOSTILE_PIECES.length]).slice(0, n)

/** Each shape: a function of n giving the call to time. */
function shapes({ compileSkill, createActivation, createSkillTool, parseKnowledgeDocument, chunkDocument, offlineCard, DiagnosticBag, formatReport, inertText, escapeMarkdown, layoutRoutedSkill, createServerEmbedder, excerptForMessage, quoteForMessage, bodySections, headingAnchors, plainHeading, plainText, textWords, queryMarks, excerptOf }, registry) {
  const folder = { files: [], kind: () => 'missing' }
  const compile = source => () => compileSkill({ file: '/x/hostile/SKILL.md', source, folder }, { onInvalid: 'fallback' })
  // Parsed, then (when it parses) chunked and carded, as a build and the routing do.
  const knowledge = source => () => {
    const parsed = parseKnowledgeDocument('hostile.md', source, new DiagnosticBag('/kb/hostile.md'))
    if (parsed) {
      chunkDocument(parsed, 0)
      offlineCard(parsed)
    }
  }
  // A search result's body as the search UI reads it (src/runtime/search-ui): cut at its headings, each heading
  // anchored, each section as plain text and words, excerpted for a query.
  const searchResult = body => () => {
    const sections = bodySections(body)
    headingAnchors(sections.filter(s => s.heading !== undefined).map(s => s.heading), 'vitepress')
    const query = queryMarks('dialog animate a')
    for (const section of sections) {
      plainHeading(section.heading ?? '')
      const plain = plainText(section.text)
      excerptOf(plain, textWords(plain), query, 160)
    }
  }
  return {
    // Skills
    'skill: heading "## a", n spaces, "b"': n => compile(skill('progressive: {}', `## a${' '.repeat(n)}b\n`)),
    'skill: heading "## " and n "{#"': n => compile(skill('progressive: {}', `## ${'{#'.repeat(n)}\n`)),
    'skill: table row with n spaces': n => compile(skill('', `| a |${' '.repeat(n)}| b |\n| --- | --- |\n| x${' '.repeat(n)}y |\n`)),
    'skill: n/10 headings without IDs': n => compile(skill('progressive: {}', many(n / 10, i => `## H${i}\n\ntext\n`))),
    'skill: n/10 unknown frontmatter keys': n => compile(skill(many(n / 10, i => `k${i}: v\n`))),
    'skill: n/100 aliases next to n/10 values': n => compile(skill(`v: [${Array.from({ length: n / 10 }, () => 'x').join(', ')}]\n${many(n / 100, i => `a${i}: &a${i} x\nb${i}: *a${i}\n`)}`)),
    'skill: n/20 self-referencing aliases': n => compile(skill(many(n / 20, i => `k${i}: &a${i} [*a${i}]\n`))),
    'skill: list of n/10 items with comments': n => compile(skill(`list:\n${'  - x # c\n'.repeat(n / 10)}`)),
    'skill: flow nesting n deep (refused at 64 levels)': n => compile(skill(`x: ${'['.repeat(n)}`)),
    'skill: n/3 "{a:" nested (refused at 64 levels)': n => compile(skill(`x: ${'{a:'.repeat(n / 3)}`)),
    // Each level indents once more, so n characters nest about √(2n) levels deep.
    'skill: block mappings nested, n characters (refused)': n => compile(skill(many(Math.sqrt(2 * n), i => `${' '.repeat(i)}a:\n`))),
    'skill: a topic of n characters, a glob of n/2 "a*"': n => compile(skill(`context_trigger:\n  topics: ["${many(n / 6, i => `w${i} `).slice(0, n)}"]\n  paths: ["${'a*'.repeat(n / 4)}"]`)),
    'skill: n/20 unknown always IDs, n/20 sections': n => compile(skill(`progressive:\n  always: [${many(n / 20, i => `x${i}, `)}x]`, many(n / 20, i => `## H${i} {#h${i}}\n`))),
    'skill: n/20 headings without IDs between sections': n => compile(skill('progressive: {}', `## A {#a}\n\n${many(n / 20, i => `## x${i}\ntext\n`)}`)),
    'skill: n/20 resources listed twice': n => compile(skill(`resources: [${many(n / 20, i => `r${i % (n / 40)}.txt, `)}r]`)),
    // Knowledge documents
    'document: heading with n spaces, chunked': n => knowledge(document(`# a${' '.repeat(n)}b\n\ntext\n`)),
    'document: n/2 "_a", chunked and carded': n => knowledge(document(`# E\n\n${'_a'.repeat(n / 2)}\n`)),
    'document: n/4 "[a](", chunked and carded': n => knowledge(document(`# L\n\n${'[a]('.repeat(n / 4)}\n`)),
    'document: n/4 quote lines, chunked': n => knowledge(document(`# Q\n\n${'> a\n'.repeat(n / 4)}`)),
    'document: n/2 quotes nested (refused at 32)': n => knowledge(document(`# Q\n\n${'> '.repeat(n / 2)}a\n`)),
    'document: list items nested, n characters (refused)': n => knowledge(document(`# L\n\n${many(Math.sqrt(n), i => `${' '.repeat(2 * i)}- a\n`)}`)),
    'document: frontmatter flow nesting n deep (refused)': n => knowledge(`---\nx: ${'['.repeat(n)}\n---\n# A\n`),
    // The search UI's results
    'search UI: heading "# a", n spaces, "b"': n => searchResult(`# a${' '.repeat(n)}b\n\ntext\n`),
    'search UI: n/2 "*a", n/2 "_a", n/2 "[a", n/2 "<a" lines': n => searchResult(`# E\n\n${'*a'.repeat(n / 2)}\n${'_a'.repeat(n / 2)}\n${'[a'.repeat(n / 2)}\n${'<a'.repeat(n / 2)}\n`),
    'search UI: "dialog" n/7 times': n => searchResult(`# D\n\n${'dialog '.repeat(n / 7)}\n`),
    'search UI: n/10 headings of one name': n => searchResult(many(n / 10, () => '## Same\n\ntext\n')),
    // The activation engine and the skill tool
    'tool: read_section with an n-character heading (refused over 1,000)': (n) => {
      const tool = createSkillTool(registry)
      return () => tool.execute({ action: 'read_section', skill: 'hostile', heading: `a${' '.repeat(n)}b` })
    },
    'activation: 100 skills of 100 punctuation topics, an n-character message': (n) => {
      const skills = Array.from({ length: 100 }, (_, s) => ({ name: `s${s}`, description: 'd', triggers: { paths: [], projects: [], alwaysActive: false, topics: Array.from({ length: 100 }, (_, i) => `+${'-'.repeat(i % 7)}${i % 3 ? '' : i}`) } }))
      const message = '+-'.repeat(n / 2)
      return () => createActivation(skills, { log: () => {} }).observeMessage(message)
    },
    'activation: 100 skills sharing 100 topics, an n-character message': (n) => {
      const skills = Array.from({ length: 100 }, (_, s) => ({ name: `s${s}`, description: 'd', triggers: { paths: [], projects: [], alwaysActive: false, topics: Array.from({ length: 100 }, (_, i) => `+-${i} database`) } }))
      const message = '+- database '.repeat(n / 12)
      return () => createActivation(skills, { log: () => {} }).observeMessage(message)
    },
    'activation: hostile globs, n/100 paths of 100 characters': (n) => {
      const skills = Array.from({ length: 100 }, (_, s) => ({ name: `s${s}`, description: 'd', triggers: { topics: [], projects: [], alwaysActive: false, paths: ['a*a*a*a*a*a*a*b', `**/x${s}*y*z`, '*.sql'] } }))
      const paths = Array.from({ length: n / 100 }, (_, i) => `/repo/${'a'.repeat(80)}/x${i}.ts`)
      return () => createActivation(skills, { log: () => {}, cwd: '/repo' }).observePaths(paths)
    },
    // What a routing model or an embedding server says (issue 25)
    'model text: n characters of links, images, HTML and addresses, made plain': n => () => escapeMarkdown(inertText(hostileText(n))),
    'model text: a routed layout of n/100 cards, hostile in every field': (n) => {
      const cards = Array.from({ length: n / 100 }, (_, i) => ({ id: `d${i}`, path: `docs/d${i}.md`, title: hostileText(100), summary: hostileText(350), tasks: [hostileText(200), hostileText(200)], tokens: 100 }))
      const groups = Array.from({ length: Math.ceil(cards.length / 20) }, (_, g) => ({ title: hostileText(60), ids: cards.slice(g * 20, g * 20 + 20).map(card => card.id) }))
      return () => layoutRoutedSkill({ name: 'hostile', description: 'd', cards, groups, pageSize: 20, maxEntryTokens: 200, summarize: async pages => pages.map(() => hostileText(350)) })
    },
    'server answer: n/100 vectors under shuffled indexes, checked': (n) => {
      const count = Math.max(1, n / 100)
      const data = Array.from({ length: count }, (_, i) => ({ index: count - 1 - i, embedding: Array.from({ length: 16 }, (_, d) => ((i + d) % 7) - 3) }))
      const body = JSON.stringify({ data })
      const fetch = async () => new Response(body, { headers: { 'content-type': 'application/json' } })
      const server = { baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'HOSTILE_KEY', batchSize: count, maxBatchTokens: 1e9, concurrency: 1, timeoutMs: 10_000, retryBudgetMs: 0 }
      const texts = Array.from({ length: count }, (_, i) => `t${i}`)
      const embedder = createServerEmbedder({ model: 'm', server, maxTokens: 256, cacheDir: '/nonexistent', revision: 'main', env: {}, http: { fetch } })
      return async () => (await embedder).embed(texts)
    },
    'server text: n characters holding the key n/100 times, quoted in a message': (n) => {
      const key = 'sk-hostile-0123456789'
      const text = many(n / 100, i => `${key}${'x'.repeat(80 - key.length - 2)}${i % 10} `)
      return () => [excerptForMessage(text, key), quoteForMessage(text, key)]
    },
    // Reports (skill-kit validate, the CLI's diagnostics, bundler messages)
    'report: code frames of n/10 warnings in one file': (n) => {
      const source = skill(many(n / 10, i => `k${i}: v\n`))
      const diagnostics = Array.from({ length: n / 10 }, (_, i) => ({ file: '/x/SKILL.md', line: 4 + i, column: 1, severity: 'warning', code: 'field-unknown', message: 'm' }))
      return () => formatReport(diagnostics, { source })
    },
  }
}

/** The fastest of `rounds` runs: on a shared machine, other processes only ever add time. */
async function time(run, rounds) {
  const times = []
  for (let i = 0; i < rounds; i++) {
    globalThis.gc?.()
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  return Math.min(...times)
}

export async function runHostileBench({ n = 10_000, rounds = 5, only, log = console.log } = {}) {
  const modules = await bundleSource('hostile', `
    export { compileSkill } from './src/skill/compile'
    export { createActivation, createSkillTool } from './src/runtime'
    export { parseKnowledgeDocument } from './src/knowledge/document'
    export { chunkDocument } from './src/knowledge/chunk'
    export { offlineCard } from './src/routing/card'
    export { DiagnosticBag, formatReport } from './src/core/diagnostics'
    export { escapeMarkdown, inertText } from './src/routing/plain-text'
    export { layoutRoutedSkill } from './src/routing/layout'
    export { createServerEmbedder } from './src/knowledge/server-embedder'
    export { excerptForMessage, quoteForMessage } from './src/runtime/redact'
    export { bodySections } from './src/runtime/search-ui/sections'
    export { headingAnchors, plainHeading } from './src/runtime/search-ui/anchors'
    export { excerptOf, plainText, queryMarks, textWords } from './src/runtime/search-ui/excerpt'
  `)
  // The tool refuses an over-long heading before it loads anything: one listed skill is enough.
  const registry = [{ name: 'hostile', description: 'd', mode: 'progressive', triggers: null, sections: [], load: async () => { throw new Error('not loaded') } }]
  const rows = []
  for (const [shape, make] of Object.entries(shapes(modules, registry))) {
    if (only && !shape.includes(only))
      continue
    // A few milliseconds are mostly timer, JIT and young-generation GC: a shape
    // that fast at n is measured at 10n and 100n instead. Not larger: inputs of
    // megabytes cross into other memory regimes, and marked overflows on 10 MB.
    let size = n
    let small = make(size)
    await time(small, 2)
    while (await time(small, 3) < MIN_MS && size < 10 * n) {
      size *= 10
      small = make(size)
      await time(small, 2)
    }
    const large = make(10 * size)
    await time(large, 1)
    const a = await time(small, rounds)
    const b = await time(large, rounds)
    // Shapes a limit refuses stay under a millisecond: the ratio of such a pair says nothing.
    const ratio = b / Math.max(a, 0.5)
    rows.push({ shape, size, n: fmtMs(a), tenN: fmtMs(b), ratio: Number(ratio.toFixed(1)) })
    log(`${shape.padEnd(72)} n ${String(size).padStart(7)} ${fmtMs(a).padStart(9)}   10n ${fmtMs(b).padStart(9)}   ratio ${ratio.toFixed(1)}${ratio > HOSTILE_GOAL ? '  (over the goal)' : ''}`)
  }
  return { n, rows }
}

if (isMain(import.meta)) {
  const result = await runHostileBench({ n: numberArg('n', 10_000), rounds: numberArg('rounds', 5), only: arg('only') })
  emitResult(result)
}
