// Lexical (BM25) retrieval with no model: how questions and long prompts rank and pass
// the default threshold, compared with the short queries they wrap. No model is loaded:
// the indexes are built with `embedder: null` ("model": false), as a lexical-only
// knowledge base is.
//
// Corpora: the 147 Modern Web Guidance guides, and the two test fixtures
// (test/fixtures/knowledge/home, test/fixtures/knowledge-app/docs/knowledge).
//
// Query sets, each query labelled with the document IDs that answer it:
//   questions     bench/retrieval/questions.json: 30 needs, each asked three ways: `short`
//                 (keywords, "recover deleted files"), `question` ("How can I recover deleted
//                 files?") and `prompt` (a task prompt of 40–70 words around the need)
//   dev           bench/retrieval/queries.json by kind (keyword, paraphrase, long)
//   descriptions  Google's use-case descriptions of the guides (see retrieval.bench.mjs)
//
// For each set: top-1, recall@5 and MRR@10 with threshold 0 (ranking only) and with the
// default lexical threshold (an empty result is a miss). For `questions`, also the score
// of the relevant document in each form relative to its score for the short form (median
// and range): the threshold means the same for short and long queries when it is near 1.
// And what the threshold still cuts: each need searched in the corpora that do not answer
// it (a guide's need in the two fixtures, a fixture's need in the guides), the share of
// searches that return nothing at the default threshold.
//
//   node bench/lexical.bench.mjs [--show-misses] [--json]

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { guidesDir, loadKnowledgeModules, root } from './knowledge.mjs'
import { descriptionQueries } from './retrieval.bench.mjs'
import { emitResult, isMain, median, rankingMetrics } from './util.mjs'

const FORMS = ['short', 'question', 'prompt']

function scoreSet(K, snapshots, queries, threshold) {
  const rankings = queries.map(q => K.searchLexical(snapshots[q.corpus], q.query, { topK: 10, threshold }).map(r => r.id))
  return { queries: queries.length, ...rankingMetrics(rankings, queries) }
}

/** The best score of any relevant document for a query, threshold 0 (0 when none matches). */
function relevantScore(K, snapshot, query, relevant) {
  const hits = K.searchLexical(snapshot, query, { topK: snapshot.documents.length || 1, threshold: 0 })
  return Math.max(0, ...hits.filter(h => relevant.includes(h.id)).map(h => h.score))
}

export async function run() {
  const K = await loadKnowledgeModules('lexical-bench')
  const build = async (dir) => {
    const index = await K.buildKnowledgeIndex(dir, { embedder: null, chunk: K.DEFAULT_CHUNK, cacheDir: join(root, '.cache/bench/lexical-unused') })
    if (!index.snapshot)
      throw new Error(`${dir} does not build: ${JSON.stringify(index.diagnostics)}`)
    return K.decodeSnapshot(index.snapshot)
  }
  const snapshots = {
    guides: await build(guidesDir()),
    home: await build(join(root, 'test/fixtures/knowledge/home')),
    docs: await build(join(root, 'test/fixtures/knowledge-app/docs/knowledge')),
  }
  const guideIds = new Set(snapshots.guides.documents.map(d => d.id))
  const questions = JSON.parse(readFileSync(join(root, 'bench/retrieval/questions.json'), 'utf8'))
  const dev = JSON.parse(readFileSync(join(root, 'bench/retrieval/queries.json'), 'utf8'))
  const sets = {}
  for (const form of FORMS)
    sets[`questions: ${form}`] = questions.map(q => ({ corpus: q.corpus, query: q[form], relevant: q.relevant }))
  for (const kind of ['keyword', 'paraphrase', 'long'])
    sets[`dev: ${kind}`] = dev.filter(q => q.kind === kind).map(q => ({ corpus: 'guides', query: q.query, relevant: q.relevant }))
  sets.descriptions = descriptionQueries(guideIds).map(q => ({ corpus: 'guides', ...q }))

  const quality = {}
  for (const [name, queries] of Object.entries(sets))
    quality[name] = { 'threshold 0': scoreSet(K, snapshots, queries, 0), 'default': scoreSet(K, snapshots, queries, K.LEXICAL_THRESHOLD) }

  const stability = {}
  for (const form of FORMS.slice(1)) {
    const ratios = questions.map((q) => {
      const base = relevantScore(K, snapshots[q.corpus], q.short, q.relevant)
      return base > 0 ? relevantScore(K, snapshots[q.corpus], q[form], q.relevant) / base : Number.NaN
    }).filter(r => !Number.isNaN(r))
    stability[`${form} / short`] = { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), n: ratios.length }
  }
  const elsewhere = {}
  for (const form of FORMS) {
    const empty = questions.flatMap(q => Object.keys(snapshots)
      .filter(corpus => corpus !== q.corpus && (corpus === 'guides' || q.corpus === 'guides'))
      .map(corpus => K.searchLexical(snapshots[corpus], q[form], { threshold: K.LEXICAL_THRESHOLD }).length === 0))
    elsewhere[form] = { empty: empty.filter(Boolean).length / empty.length, n: empty.length }
  }
  return { threshold: K.LEXICAL_THRESHOLD, documents: snapshots.guides.documents.length, chunks: snapshots.guides.chunkCount, quality, stability, elsewhere }
}

const pct = x => `${(x * 100).toFixed(1)} %`

if (isMain(import.meta)) {
  const result = await run()
  console.log(`lexical only (no model): ${result.documents} guides, ${result.chunks} chunks; default threshold ${result.threshold}`)
  console.log(`\nset                       n    threshold 0: top-1  recall@5  MRR@10 | default: top-1  recall@5  MRR@10`)
  for (const [name, q] of Object.entries(result.quality)) {
    const a = q['threshold 0']
    const b = q.default
    console.log(`${name.padEnd(24)} ${String(a.queries).padStart(3)}   ${pct(a.top1).padStart(17)} ${pct(a.recall5).padStart(9)} ${a.mrr10.toFixed(3).padStart(7)} | ${pct(b.top1).padStart(14)} ${pct(b.recall5).padStart(9)} ${b.mrr10.toFixed(3).padStart(7)}`)
  }
  console.log('\nscore of the relevant document, relative to the short form (threshold 0):')
  for (const [name, s] of Object.entries(result.stability))
    console.log(`  ${name}: median ${s.median.toFixed(2)}, range ${s.min.toFixed(2)}–${s.max.toFixed(2)} (${s.n} needs)`)
  console.log('\nsearched where the answer is not: share of empty results at the default threshold:')
  for (const [form, e] of Object.entries(result.elsewhere))
    console.log(`  ${form}: ${pct(e.empty)} of ${e.n}`)
  if (process.argv.includes('--show-misses')) {
    for (const [name, q] of Object.entries(result.quality)) {
      if (!name.startsWith('questions'))
        continue
      console.log(`\nmisses (not in top 5), ${name}, default threshold:`)
      for (const m of q.default.misses)
        console.log(`  "${m.query}" → want ${m.relevant.join(' | ')}; got ${m.got.join(', ') || 'nothing'}`)
    }
  }
  for (const q of Object.values(result.quality)) {
    for (const s of Object.values(q))
      delete s.misses
  }
  emitResult(result)
}
