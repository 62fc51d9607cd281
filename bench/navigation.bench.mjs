// Navigation: does an agent that reads the offline router's pages find the document that
// answers a question? Issue 31. A deterministic "agent" starts at SKILL.md (read for free:
// it is the skill's entry, loaded on activation) and reads, one at a time, the link whose
// text (its label, what follows it on the line and its Tasks line) best matches the
// question, among every link of every page read so far (best first, ties in reading
// order). A read is an index page or a document; the question succeeds within N reads when
// a relevant document is among the first N. Two agents score links: `lexical`, the sum of the
// inverse document frequencies (over the corpus's documents) of the question's terms the
// link's text holds (the runtime's tokenizer and stemmer, stopwords out); `vector`, the cosine
// of the question's and the link text's all-MiniLM-L6-v2 vectors (the model vector search uses).
//
// Routers compared, on the same documents:
//   today     the offline router as it was before issue 31 (src/routing of BASELINE,
//             extracted from git into .cache/bench and bundled from there)
//   new       the offline router of this checkout (src/routing)
//   new+vectors  the same, given each document's vector from the corpus's base (documentVectors
//             of the snapshot the vector column searches; the stripped guides' base is built
//             from their bodies under opaque names, so that their IDs do not tell the folder)
//   catalog   the catalog alone: SKILL.md links only to indexes/catalog.md (pages by path)
//   cards     every card of the new router's topic pages (title, summary, Tasks, Covers) in
//             one SKILL.md, with no token bound: what the cards alone are worth, were the
//             topics always chosen right
//   vector    the reference: vector search's ranked documents (all-MiniLM-L6-v2 q8, chunks
//             ranked by searchVectors, threshold 0, first chunk of each document); "within
//             N reads" is the relevant document in the first N, recall@5 within 5
//
// Corpora:
//   guides           the 147 Modern Web Guidance guides, a folder per category (what the
//                    routers group by when documents name no category)
//   guides-stripped  the same documents, folders flattened (`css/foo.md` → `css--foo.md`):
//                    no category, folder or tag, like most real docs
//   markdownlint     node_modules/markdownlint/doc, 57 pages, no frontmatter, no folders
//   undici           node_modules/undici/docs/docs, 46 pages, no frontmatter, two folders
// Questions: the guides' developer questions (bench/retrieval/queries.json) for both guides
// corpora; bench/navigation/markdownlint.json and undici.json written by hand for this
// benchmark. Every set is split by the fixed rule of the retrieval benchmark (FNV-1a of the
// query, even = tune, odd = report): choices are made on tune, report is the figure.
//
//   node bench/navigation.bench.mjs [--show-misses] [--json] [--corpus <name>]

import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, posix } from 'node:path'
import { buildMiniLM } from '../scripts/models/minilm.mjs'
import { benchCache, bundleSource, guidesDir, modelsDir, root } from './knowledge.mjs'
import { half, loadSet } from './retrieval.bench.mjs'
import { arg, emitResult, isMain } from './util.mjs'

/** The commit whose offline router is "today's": main before issue 31. */
export const BASELINE = '490b39095c26ca4eda53366753c408e2b6e41f55'
/** Read budgets reported. */
export const BUDGETS = [3, 5]
const PAGE_SIZE = 8
const MAX_ENTRY_TOKENS = 2_000

export const CORPORA = {
  'guides': { dir: () => guidesDir(), set: 'bench/retrieval/queries.json' },
  'guides-stripped': { dir: () => guidesDir(), set: 'bench/retrieval/queries.json', strip: true },
  'markdownlint': { dir: () => join(root, 'node_modules/markdownlint/doc'), set: 'bench/navigation/markdownlint.json' },
  'undici': { dir: () => join(root, 'node_modules/undici/docs/docs'), set: 'bench/navigation/undici.json' },
}

/** The baseline's src/ (routing and what it imports), extracted once from git. */
function baselineSource() {
  const dir = join(benchCache, `navigation-baseline-${BASELINE.slice(0, 12)}`)
  if (!existsSync(join(dir, 'src/routing/route.ts'))) {
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const tar = execFileSync('git', ['archive', BASELINE, 'src'], { cwd: root, maxBuffer: 1 << 28 })
    execFileSync('tar', ['-x', '-C', dir], { input: tar })
  }
  return dir
}

async function loadModules() {
  const base = baselineSource()
  const rel = p => posix.relative(root, p).split('\\').join('/')
  return bundleSource('navigation-bench', [
    `export { routeDocuments } from './src/routing/route'`,
    `export { routeDocuments as routeDocumentsToday } from './${rel(join(base, 'src/routing/route'))}'`,
    `export { loadKnowledgeFolder } from './src/knowledge/load-folder'`,
    `export { buildKnowledgeIndex } from './src/knowledge/build'`,
    `export { createTransformersEmbedder } from './src/knowledge/embedder'`,
    `export { DEFAULT_CHUNK, DEFAULT_MODEL } from './src/knowledge/config'`,
    `export { decodeSnapshot } from './src/runtime/knowledge/format/snapshot-reader'`,
    `export { searchVectors } from './src/runtime/knowledge/vector/search'`,
    `export { documentVectors } from './src/routing/vector-topics'`,
    `export { queryTerms, tokenize } from './src/runtime/knowledge/lexical/tokens'`,
    '',
  ].join('\n'))
}

/** A corpus's documents, flattened when `strip` (no folder, category or tag left). */
function corpusDocuments(M, name) {
  const corpus = CORPORA[name]
  const folder = M.loadKnowledgeFolder(corpus.dir())
  const errors = folder.diagnostics.filter(d => d.severity === 'error')
  if (errors.length)
    throw new Error(`${name}: ${errors.length} documents do not load: ${JSON.stringify(errors[0])}`)
  const documents = corpus.strip
    ? folder.documents.map(d => ({ ...d, path: d.path.replace(/\//g, '--'), category: undefined, categories: [], tags: [] }))
    : folder.documents
  return { documents, digest: folder.digest }
}

const LINK_ITEM = /^( *)- \[((?:\\.|[^\]\\])*)\]\(([^)]+)\)(.*)$/

/**
 * Each list item's link on a page, nested items too: target resolved from `from`, text = the
 * item's line and its own indented lines (Tasks, Covers), not the items nested under it.
 */
function links(text, from) {
  const out = []
  const lines = text.split('\n')
  lines.forEach((line, i) => {
    const match = LINK_ITEM.exec(line)
    if (!match)
      return
    // The item's own indented lines (Tasks, Covers): what a reader sees of it.
    const indent = match[1].length
    let tasks = ''
    for (let j = i + 1; lines[j] !== undefined && /^ +/.exec(lines[j])?.[0].length > indent && !LINK_ITEM.test(lines[j]); j++)
      tasks += ` ${lines[j].trim()}`
    const target = posix.normalize(posix.join(posix.dirname(from), match[3].split('/').map(decodeURIComponent).join('/')))
    out.push({ target, text: `${match[2]} ${match[4]} ${tasks}`.replace(/\\/g, '') })
  })
  return out
}

/**
 * The agent: best-first over the links seen so far. Returns the 1-based read at which a
 * relevant document was read, or 0 within `budget` reads.
 */
function navigate(site, relevantPaths, scoreText, budget) {
  const frontier = []
  const seen = new Map([['SKILL.md', undefined]])
  let order = 0
  // A link seen again (a document listed by title in SKILL.md, then with its card on its
  // topic page) is judged by the best text the agent has seen of it.
  const discover = (page) => {
    for (const link of links(site[page], page)) {
      const score = scoreText(link.text)
      if (seen.has(link.target)) {
        const known = seen.get(link.target)
        if (known)
          known.score = Math.max(known.score, score)
        continue
      }
      const entry = { ...link, score, order: order++ }
      seen.set(link.target, entry)
      frontier.push(entry)
    }
  }
  discover('SKILL.md')
  for (let read = 1; read <= budget && frontier.length > 0; read++) {
    frontier.sort((a, b) => b.score - a.score || a.order - b.order)
    const next = frontier.shift()
    if (next.target.startsWith('references/')) {
      if (relevantPaths.has(next.target.slice('references/'.length)))
        return read
    }
    else if (site[next.target] !== undefined) {
      discover(next.target)
    }
  }
  return 0
}

/** Every document entry of the topic pages (its line and indented lines), linked from the root, as one SKILL.md. */
function allCards(routes) {
  const entries = new Set()
  for (const text of Object.values(routes.pages)) {
    const lines = text.split('\n')
    lines.forEach((line, i) => {
      if (!line.startsWith('- [') || !line.includes('](../references/'))
        return
      let entry = line.replace('](../references/', '](references/')
      for (let j = i + 1; lines[j]?.startsWith('  '); j++)
        entry += `\n${lines[j]}`
      entries.add(entry)
    })
  }
  return { ...routes.pages, 'SKILL.md': `# Every card\n\n${[...entries].join('\n')}\n` }
}

/** The routed skill as one map of files; the catalog-alone variant links SKILL.md to the catalog only. */
function siteOf(routes, catalogOnly = false) {
  const site = { ...routes.pages, ...routes.catalog }
  site['SKILL.md'] = catalogOnly ? '# Catalog only\n\n- [Every document, by path](indexes/catalog.md)\n' : routes.skill
  return site
}

/** IDF of each term over the documents' bodies. */
function idfOf(M, documents) {
  const df = new Map()
  for (const d of documents) {
    for (const term of new Set(M.tokenize(`${d.title} ${d.body}`)))
      df.set(term, (df.get(term) ?? 0) + 1)
  }
  return term => Math.log(1 + documents.length / (df.get(term) ?? 0.5))
}

function lexicalScorer(M, idf, query) {
  const terms = M.queryTerms(query)
  return (text) => {
    const have = new Set(M.tokenize(text))
    return terms.reduce((sum, term) => sum + (have.has(term) ? idf(term) : 0), 0)
  }
}

/** { within3, within5, readsPerSuccess } of 1-based hit positions (0: miss). */
function summarise(positions) {
  const n = positions.length || 1
  const hits = positions.filter(p => p > 0 && p <= 5)
  return {
    within3: positions.filter(p => p > 0 && p <= 3).length / n,
    within5: hits.length / n,
    readsPerSuccess: hits.length ? hits.reduce((a, b) => a + b, 0) / hits.length : 0,
  }
}

async function vectorRankings(M, embedder, name, dir, queries) {
  const index = await M.buildKnowledgeIndex(dir, { embedder, chunk: M.DEFAULT_CHUNK, cacheDir: join(benchCache, 'navigation-cache'), encoding: 'int8' })
  if (!index.snapshot)
    throw new Error(`${name} does not build: ${JSON.stringify(index.diagnostics.slice(0, 2))}`)
  const snapshot = M.decodeSnapshot(index.snapshot)
  const queryVectors = await embedder.embed(queries.map(q => q.query), 'query')
  return { rankings: queryVectors.map(v => M.searchVectors(snapshot, v, { topK: 10, threshold: 0 }).map(r => r.id)), queryVectors, snapshot }
}

/**
 * The stripped corpus's base, built from its bodies under opaque names (`doc-000.md` …): each
 * chunk's embedded text starts with its document's ID, and the guides' IDs name their folder
 * (`css/…`), which the stripped corpus must not know. Returns its snapshot with the real IDs.
 */
async function strippedSnapshot(M, embedder, documents) {
  const dir = join(benchCache, 'navigation-stripped')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const sorted = [...documents].sort((a, b) => (a.id < b.id ? -1 : 1))
  const opaque = i => `doc-${String(i).padStart(3, '0')}`
  sorted.forEach((d, i) => writeFileSync(join(dir, `${opaque(i)}.md`), d.body))
  const index = await M.buildKnowledgeIndex(dir, { embedder, chunk: M.DEFAULT_CHUNK, cacheDir: join(benchCache, 'navigation-cache'), encoding: 'int8' })
  if (!index.snapshot)
    throw new Error(`the stripped guides do not build: ${JSON.stringify(index.diagnostics.slice(0, 2))}`)
  const snapshot = M.decodeSnapshot(index.snapshot)
  const real = new Map(sorted.map((d, i) => [opaque(i), d.id]))
  return { ...snapshot, documents: snapshot.documents.map(d => ({ ...d, id: real.get(d.id) })) }
}

/** Every link text of the sites, embedded once (as documents: what a link describes). */
async function embedLinks(embedder, sites) {
  const texts = [...new Set(sites.flatMap(site => Object.entries(site).flatMap(([page, text]) => links(text, page).map(link => link.text))))].sort()
  const vectors = await embedder.embed(texts, 'document')
  return new Map(texts.map((text, i) => [text, vectors[i]]))
}

function dot(a, b) {
  let sum = 0
  for (let i = 0; i < a.length; i++)
    sum += a[i] * b[i]
  return sum
}

export async function run({ log = console.log, only } = {}) {
  await buildMiniLM(modelsDir, { log })
  const M = await loadModules()
  const embedder = await M.createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype: 'q8', maxTokens: M.DEFAULT_MODEL.maxTokens })
  const result = {}
  try {
    for (const name of Object.keys(CORPORA).filter(n => !only || n === only)) {
      const { documents } = corpusDocuments(M, name)
      const ids = new Set(documents.map(d => d.id))
      const pathOf = new Map(documents.map(d => [d.id, d.path]))
      const queries = loadSet(CORPORA[name].set, ids)
      const options = { name, description: '', pageSize: PAGE_SIZE, maxEntryTokens: MAX_ENTRY_TOKENS }
      const { rankings: vector, queryVectors, snapshot } = await vectorRankings(M, embedder, name, CORPORA[name].dir(), queries)
      const sites = {
        'today': siteOf(await M.routeDocumentsToday(documents, options)),
        'new': siteOf(await M.routeDocuments(documents, options)),
        'new+vectors': siteOf(await M.routeDocuments(documents, { ...options, vectors: M.documentVectors(CORPORA[name].strip ? await strippedSnapshot(M, embedder, documents) : snapshot) })),
      }
      sites.catalog = siteOf(await M.routeDocuments(documents, options), true)
      sites.cards = allCards(await M.routeDocuments(documents, options))
      const idf = idfOf(M, documents)
      const linkVectors = await embedLinks(embedder, Object.values(sites))
      result[name] = { documents: documents.length, queries: queries.length }
      for (const h of ['tune', 'report']) {
        const subset = queries.map((q, i) => ({ q, i })).filter(({ q }) => half(q.query) === h)
        const row = { questions: subset.length }
        for (const [router, site] of Object.entries(sites)) {
          const relevant = q => new Set(q.relevant.map(id => pathOf.get(id)))
          const positions = subset.map(({ q }) => navigate(site, relevant(q), lexicalScorer(M, idf, q.query), 5))
          row[router] = { ...summarise(positions), misses: subset.filter((_, k) => positions[k] === 0).map(({ q }) => q.query) }
          const byVector = subset.map(({ i }) => navigate(site, relevant(queries[i]), text => dot(queryVectors[i], linkVectors.get(text)), 5))
          row[`${router}, vector agent`] = { ...summarise(byVector), misses: subset.filter((_, k) => byVector[k] === 0).map(({ q }) => q.query) }
        }
        const vectorPositions = subset.map(({ q, i }) => {
          const docs = [...new Set(vector[i])]
          return docs.slice(0, 5).findIndex(id => q.relevant.includes(id)) + 1
        })
        row.vector = { ...summarise(vectorPositions), misses: subset.filter((_, k) => vectorPositions[k] === 0).map(({ q }) => q.query) }
        result[name][h] = row
      }
    }
  }
  finally {
    await embedder.dispose()
  }
  return result
}

const pct = x => (x * 100).toFixed(0).padStart(3)

export function print(result, { log = console.log, misses = false } = {}) {
  const routers = ['today', 'new', 'new+vectors', 'catalog', 'cards']
  const columns = [[...routers, 'vector'], [...routers.map(r => `${r}, vector agent`), 'vector']]
  for (const h of ['report', 'tune']) {
    for (const [c, keys] of columns.entries()) {
      log(`\n${h} half, ${c === 0 ? 'lexical' : 'vector'} agent: success within 3 / 5 reads (%), reads per success; vector: search's top 3 / 5`)
      log(`${'corpus'.padEnd(16)} ${'n'.padStart(3)}  ${[...routers, 'vector'].map(r => r.padStart(17)).join('')}`)
      for (const [name, r] of Object.entries(result)) {
        const row = r[h]
        log(`${name.padEnd(16)} ${String(row.questions).padStart(3)}  ${keys.map(k => `${pct(row[k].within3)} /${pct(row[k].within5)}  ${row[k].readsPerSuccess.toFixed(1)}`.padStart(17)).join('')}`)
      }
    }
  }
  if (misses) {
    for (const [name, r] of Object.entries(result)) {
      for (const router of ['today', 'new', 'new+vectors', 'vector'])
        log(`\n${name} ${router}, report misses:\n  ${r.report[router].misses.join('\n  ')}`)
    }
  }
}

if (isMain(import.meta)) {
  const result = await run({ only: arg('corpus', undefined) })
  print(result, { misses: process.argv.includes('--show-misses') })
  emitResult(result)
}
