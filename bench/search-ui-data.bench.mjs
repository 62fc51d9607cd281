// What the search UI's results cost in bytes on the 147 Modern Web Guidance guides
// (issue 29): where excerpts and sub-results come from, and what titles and page URLs
// add to the knowledge module every page loads.
//
// Excerpt sources, for a typical first search (the search UI's source, lexical, 8 results
// shown: bench/retrieval/short-queries.json, 441 search-box queries): the bytes fetched to
// describe the results, each file gzip -9 as a static host serves it:
//   bodies          the shown documents' body modules (`export default "<Markdown>"`), which
//                   `kb.retrieve` loads: what `searchSource` reads
//   store/document  a passage store of one file per document: its sections' headings and
//                   plain text (the text excerpts are cut from), JSON
//   store/whole     the same store as one file for the folder, fetched once
//   leads/document  a compact store: each section's heading and first 200 characters only
//                   (excerpts of a passage further down could not be cut from it)
// Also the time of `searchSource(kb).search` in Node, bodies in memory (CPU only), the 441
// queries one after another with one source (as a user types: documents read once are kept).
// Core: the module's document metadata (JSON, gzip -9) without and with titles, and with
// the `vitepress` URL mapping.
//
//   node bench/search-ui-data.bench.mjs [--json]

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { bundleSource, guidesDir, root } from './knowledge.mjs'
import { emitResult, isMain, median } from './util.mjs'

const gzip = text => gzipSync(Buffer.from(text), { level: 9 }).length
const kb = bytes => `${(bytes / 1024).toFixed(1)} KB`
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]

async function measure() {
  const K = await bundleSource('search-ui-data', [
    `export { loadKnowledgeFolder } from './src/knowledge/load-folder'`,
    `export { chunkDocument } from './src/knowledge/chunk'`,
    `export { encodeSnapshot } from './src/knowledge/snapshot'`,
    `export { withPageUrls } from './src/knowledge/page-urls'`,
    `export { decodeSnapshot } from './src/runtime/knowledge/format/snapshot-reader'`,
    `export { createKnowledgeBase } from './src/runtime/knowledge/knowledge'`,
    `export { searchSource } from './src/runtime/search-ui/source'`,
    `export { bodySections } from './src/runtime/search-ui/sections'`,
    `export { plainText } from './src/runtime/search-ui/excerpt'`,
    '',
  ].join('\n'))
  const folder = K.loadKnowledgeFolder(guidesDir())
  const chunks = folder.documents.flatMap((d, i) => K.chunkDocument(d, i))
  const bytes = K.encodeSnapshot({
    model: '',
    encoding: 'none',
    lexical: true,
    documents: folder.documents.map(d => ({ id: d.id, title: d.title, description: d.description, category: d.category, categories: d.categories, tags: d.tags, path: d.path, tokenCount: Math.ceil(d.body.length / 4) })),
    chunks: chunks.map(c => ({ documentIndex: c.document, heading: c.title === undefined ? c.context : [...c.context, c.title], text: c.text })),
  })
  const documents = K.decodeSnapshot(bytes).documents
  const bodyOf = new Map(folder.documents.map(d => [d.id, d.body]))
  const bodyModule = new Map(folder.documents.map(d => [d.id, gzip(`export default ${JSON.stringify(d.body)}\n`)]))
  const storeOf = id => JSON.stringify(K.bodySections(bodyOf.get(id)).map(s => [s.heading ?? '', K.plainText(s.text)]))
  const storeFile = new Map(folder.documents.map(d => [d.id, gzip(storeOf(d.id))]))
  const leadsFile = new Map(folder.documents.map(d => [d.id, gzip(JSON.stringify(JSON.parse(storeOf(d.id)).map(([h, t]) => [h, t.slice(0, 200)])))]))
  const wholeStore = gzip(JSON.stringify(Object.fromEntries(folder.documents.map(d => [d.id, JSON.parse(storeOf(d.id))]))))

  const base = K.createKnowledgeBase({
    name: 'guides',
    documents,
    loadSnapshot: async () => bytes,
    bodies: documents.map(d => async () => bodyOf.get(d.id)),
    vectors: false,
  })
  const source = K.searchSource(base)
  const queries = JSON.parse(readFileSync(join(root, 'bench/retrieval/short-queries.json'), 'utf8')).queries.map(q => q.query)
  const perQuery = { bodies: [], storeDocument: [], leadsDocument: [], shown: [], ms: [] }
  const plainSections = new Map(folder.documents.map(d => [d.id, K.bodySections(d.body).map(section => K.plainText(section.text))]))
  /** Shown excerpts with a marked word, and those whose first mark lies past a section's first 200 characters (a leads store could not show it). */
  const beyondLeads = { marked: 0, beyond: 0 }
  for (const query of queries) {
    // Each query counted as a first search: the files of the results it shows, nothing loaded before.
    const start = performance.now()
    const { results } = await source.search(query, { ranking: 'lexical', filters: { categories: [], tags: [] } })
    perQuery.ms.push(performance.now() - start)
    const ids = results.map(r => r.id)
    for (const result of results) {
      const excerpt = result.excerpt
      if (!excerpt || excerpt.marks.length === 0)
        continue
      const text = excerpt.text.replace(/^…|…$/g, '')
      const offset = excerpt.text.startsWith('…') ? 1 : 0
      const section = plainSections.get(result.id).find(plain => plain.includes(text))
      if (section === undefined)
        continue
      beyondLeads.marked++
      if (section.indexOf(text) + excerpt.marks[0][1] - offset > 200)
        beyondLeads.beyond++
    }
    perQuery.shown.push(ids.length)
    perQuery.bodies.push(ids.reduce((sum, id) => sum + bodyModule.get(id), 0))
    perQuery.storeDocument.push(ids.reduce((sum, id) => sum + storeFile.get(id), 0))
    perQuery.leadsDocument.push(ids.reduce((sum, id) => sum + leadsFile.get(id), 0))
  }
  const rows = documents.map(({ url: _, ...d }) => d)
  const untitled = rows.map(({ title: _, ...d }) => d)
  const core = {
    untitled: gzip(JSON.stringify(untitled)),
    titled: gzip(JSON.stringify(rows)),
    withUrls: gzip(JSON.stringify(K.withPageUrls(rows, 'vitepress', 'url'))),
    titledRaw: Buffer.byteLength(JSON.stringify(rows)) - Buffer.byteLength(JSON.stringify(untitled)),
  }
  return {
    documents: documents.length,
    queries: queries.length,
    shownMedian: median(perQuery.shown),
    ms: { median: median(perQuery.ms), p90: percentile(perQuery.ms, 0.9) },
    bodies: { median: median(perQuery.bodies), p90: percentile(perQuery.bodies, 0.9), perDocument: median([...bodyModule.values()]) },
    storeDocument: { median: median(perQuery.storeDocument), p90: percentile(perQuery.storeDocument, 0.9), perDocument: median([...storeFile.values()]) },
    storeWhole: wholeStore,
    beyondLeads,
    leadsDocument: { median: median(perQuery.leadsDocument), p90: percentile(perQuery.leadsDocument, 0.9), perDocument: median([...leadsFile.values()]) },
    core,
  }
}

if (isMain(import.meta)) {
  const r = await measure()
  console.log(`${r.documents} guides, ${r.queries} first searches (lexical, ${r.shownMedian} results shown, median)`)
  console.log(`searchSource.search in Node (lexical search, then excerpts and sub-results of the shown results): ${r.ms.median.toFixed(1)} ms median, ${r.ms.p90.toFixed(1)} ms p90`)
  console.log(`excerpt source        median     p90    per document (median)`)
  console.log(`bodies (kb.retrieve)  ${kb(r.bodies.median).padStart(8)}  ${kb(r.bodies.p90).padStart(8)}  ${kb(r.bodies.perDocument)}`)
  console.log(`store, per document   ${kb(r.storeDocument.median).padStart(8)}  ${kb(r.storeDocument.p90).padStart(8)}  ${kb(r.storeDocument.perDocument)}`)
  console.log(`leads, per document   ${kb(r.leadsDocument.median).padStart(8)}  ${kb(r.leadsDocument.p90).padStart(8)}  ${kb(r.leadsDocument.perDocument)}`)
  console.log(`store, whole          ${kb(r.storeWhole).padStart(8)}  (one file, every search)`)
  console.log(`excerpts whose first marked word is past its section's first 200 characters: ${r.beyondLeads.beyond} of ${r.beyondLeads.marked} (${(100 * r.beyondLeads.beyond / r.beyondLeads.marked).toFixed(0)} %)`)
  console.log(`module metadata gzip: ${r.core.untitled} B untitled, ${r.core.titled} B with titles (+${r.core.titled - r.core.untitled} B gzip, +${r.core.titledRaw} B raw), ${r.core.withUrls} B with vitepress URLs (+${r.core.withUrls - r.core.titled} B)`)
  emitResult(r)
}
