// Knowledge index build on the real corpus: the 147 Modern Web Guidance guides with
// all-MiniLM-L6-v2 (q8, rebuilt offline into .cache/models), in one process:
//
//   ours         buildKnowledgeIndex(guides) with an empty vector cache: load, chunk,
//                tokenize, cut windows, embed, write the cache, encode the snapshot
//   seed         the Semantic Skill Kit's way of embedding: Transformers.js
//                pipeline('feature-extraction'), one text per call, { pooling: 'mean',
//                normalize: true }, no cache, on the same windows (decoded to text). Only
//                its embedding is timed (its chunking and I/O are not), so the ratio
//                flatters the seed. Goal: ours / seed ≤ 0.6
//   incremental  the guides copied into a temporary folder with the cache the full build
//                left, one paragraph of one guide changed, the folder rebuilt with the
//                cache. Goal: the rebuild takes ≤ 5 % of ours (the full build of the round)
//
// Model loading is not timed in either (reported apart). Rounds alternate which of ours and
// seed goes first; medians count. `ours` is split into phases by timing the embedder's
// tokenize and embedTokens calls (the rest: reading, chunking, windows, cache, snapshot).
//
//   node bench/build.bench.mjs [--rounds 3] [--dtype q8] [--json]

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildMiniLM } from '../scripts/models/minilm.mjs'
import { guidesDir, loadKnowledgeModules, modelsDir } from './knowledge.mjs'
import { arg, emitResult, fmtMs, isMain, median, numberArg } from './util.mjs'

export const FULL_GOAL = 0.6
export const INCREMENTAL_GOAL = 0.05

/** Wraps an embedder so that its tokenize and embedTokens calls are timed. */
function timed(embedder) {
  const spent = { tokenize: 0, embed: 0, tokenizeCalls: 0, embedded: 0 }
  const wrapper = Object.create(embedder)
  wrapper.tokenize = (text) => {
    const start = performance.now()
    const ids = embedder.tokenize(text)
    spent.tokenize += performance.now() - start
    spent.tokenizeCalls++
    return ids
  }
  wrapper.embedTokens = async (windows, kind) => {
    const start = performance.now()
    const vectors = await embedder.embedTokens(windows, kind)
    spent.embed += performance.now() - start
    spent.embedded += windows.length
    return vectors
  }
  return { wrapper, spent, reset: () => Object.assign(spent, { tokenize: 0, embed: 0, tokenizeCalls: 0, embedded: 0 }) }
}

/** The texts the seed would embed: the build's windows, decoded. */
function windowTexts(K, embedder, tokenizer, dir, chunking) {
  const folder = K.loadKnowledgeFolder(dir)
  const chunks = folder.documents.flatMap((d, i) => K.chunkDocument(d, i))
  const options = { maxTokens: Math.min(chunking.maxTokens, embedder.maxTokens), overlapTokens: chunking.overlapTokens, reserved: embedder.reservedTokens.document }
  return chunks.flatMap((chunk) => {
    const context = embedder.tokenize(`${K.chunkContext(folder.documents[chunk.document], chunk)}\n`)
    return K.tokenWindows(context, embedder.tokenize(chunk.text), options).map(w => tokenizer.decode(w))
  })
}

/** Changes one paragraph of one guide (the first prose paragraph after its first `## ` heading). */
function editOneGuide(dir) {
  const file = join(dir, 'performance', 'optimize-image-priority.md')
  const source = readFileSync(file, 'utf8')
  const lines = source.split('\n')
  const heading = lines.findIndex(l => l.startsWith('## '))
  const paragraph = lines.findIndex((l, i) => i > heading && /^[A-Z]/.test(l))
  lines[paragraph] = `${lines[paragraph]} (Edited: measure the change with a field trial before rolling it out.)`
  writeFileSync(file, lines.join('\n'))
  return `performance/optimize-image-priority, line ${paragraph + 1}`
}

export async function run({ rounds = 3, dtype = 'q8', log = console.log } = {}) {
  await buildMiniLM(modelsDir, { log })
  const K = await loadKnowledgeModules('build-bench')
  const chunk = K.DEFAULT_CHUNK
  const maxTokens = K.DEFAULT_MODEL.maxTokens
  const tmp = mkdtempSync(join(tmpdir(), 'skill-kit-build-bench-'))
  const loadStart = performance.now()
  const embedder = await K.createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype, maxTokens })
  const loadMs = performance.now() - loadStart
  const { pipeline, AutoTokenizer } = await import('@huggingface/transformers')
  const pipeStart = performance.now()
  const extractor = await pipeline('feature-extraction', K.DEFAULT_EMBEDDING_MODEL, { dtype, revision: K.DEFAULT_EMBEDDING_REVISION, local_files_only: true, device: 'cpu' })
  const pipelineLoadMs = performance.now() - pipeStart
  const tokenizer = await AutoTokenizer.from_pretrained(K.DEFAULT_EMBEDDING_MODEL, { local_files_only: true })
  const { wrapper, spent, reset } = timed(embedder)
  try {
    const guides = join(tmp, 'guides')
    cpSync(guidesDir(), guides, { recursive: true })
    const texts = windowTexts(K, embedder, tokenizer, guides, chunk)
    log(`${texts.length} windows of at most ${Math.min(chunk.maxTokens, embedder.maxTokens)} tokens (overlap ${chunk.overlapTokens}), dtype ${dtype}, embedder batch size ${embedder.batchSize}; model load: embedder ${fmtMs(loadMs)}, pipeline ${fmtMs(pipelineLoadMs)}`)

    // Warm-up of both (first runs allocate).
    await embedder.embed(texts.slice(0, 4))
    for (const t of texts.slice(0, 4))
      await extractor(t, { pooling: 'mean', normalize: true })

    const times = { ours: [], seed: [], incremental: [], phases: [] }
    let lastStats
    let edited
    for (let round = 0; round < rounds; round++) {
      const methods = {
        ours: async () => {
          const cacheDir = join(tmp, `cache-full-${round}`)
          reset()
          globalThis.gc?.()
          const start = performance.now()
          const index = await K.buildKnowledgeIndex(guides, { embedder: wrapper, chunk, cacheDir })
          const ms = performance.now() - start
          if (!index.snapshot)
            throw new Error(`The guides do not build: ${JSON.stringify(index.diagnostics)}`)
          lastStats = index.stats
          times.phases.push({ total: ms, tokenize: spent.tokenize, embed: spent.embed, other: ms - spent.tokenize - spent.embed, tokenizeCalls: spent.tokenizeCalls })
          return ms
        },
        seed: async () => {
          globalThis.gc?.()
          const start = performance.now()
          for (const t of texts)
            await extractor(t, { pooling: 'mean', normalize: true })
          return performance.now() - start
        },
      }
      const order = round % 2 === 0 ? ['ours', 'seed'] : ['seed', 'ours']
      const spentRound = {}
      for (const name of order)
        spentRound[name] = await methods[name]()
      times.ours.push(spentRound.ours)
      times.seed.push(spentRound.seed)

      // Incremental: a copy of the guides and of the cache the full build left, one paragraph
      // edited, rebuilt (vectors are keyed by content, so the copy finds the cached ones).
      const copy = join(tmp, `edit-${round}`)
      const cacheDir = join(tmp, `cache-edit-${round}`)
      cpSync(guides, copy, { recursive: true })
      cpSync(join(tmp, `cache-full-${round}`), cacheDir, { recursive: true })
      rmSync(join(tmp, `cache-full-${round}`), { recursive: true, force: true })
      edited = editOneGuide(copy)
      reset()
      globalThis.gc?.()
      const start = performance.now()
      const rebuilt = await K.buildKnowledgeIndex(copy, { embedder: wrapper, chunk, cacheDir })
      const incrementalMs = performance.now() - start
      times.incremental.push({ ms: incrementalMs, share: incrementalMs / spentRound.ours, embedded: rebuilt.stats.embedded, tokenize: spent.tokenize, embed: spent.embed })
      rmSync(copy, { recursive: true, force: true })
      rmSync(cacheDir, { recursive: true, force: true })
      log(`round ${round + 1}: ours ${fmtMs(spentRound.ours)} (tokenize ${fmtMs(times.phases.at(-1).tokenize)}, embed ${fmtMs(times.phases.at(-1).embed)}, other ${fmtMs(times.phases.at(-1).other)}), seed ${fmtMs(spentRound.seed)}, ratio ${(spentRound.ours / spentRound.seed).toFixed(2)}; incremental ${fmtMs(incrementalMs)} (${rebuilt.stats.embedded} windows embedded; tokenize ${fmtMs(spent.tokenize)}, embed ${fmtMs(spent.embed)}) = ${(incrementalMs / spentRound.ours * 100).toFixed(1)} %`)
    }
    const medianMs = { ours: median(times.ours), seed: median(times.seed), incremental: median(times.incremental.map(r => r.ms)) }
    const phase = k => median(times.phases.map(p => p[k]))
    return {
      windows: texts.length,
      stats: lastStats,
      dtype,
      batchSize: embedder.batchSize,
      chunk,
      rounds,
      loadMs: { embedder: loadMs, pipeline: pipelineLoadMs },
      medianMs,
      phasesMs: { tokenize: phase('tokenize'), embed: phase('embed'), other: phase('other'), tokenizeCalls: phase('tokenizeCalls') },
      incremental: { edited, share: median(times.incremental.map(r => r.share)), embedded: times.incremental.at(-1).embedded, tokenizeMs: median(times.incremental.map(r => r.tokenize)), embedMs: median(times.incremental.map(r => r.embed)) },
      ratio: medianMs.ours / medianMs.seed,
      goal: { full: FULL_GOAL, incremental: INCREMENTAL_GOAL },
    }
  }
  finally {
    await embedder.dispose()
    await extractor.dispose()
    rmSync(tmp, { recursive: true, force: true })
  }
}

if (isMain(import.meta)) {
  const result = await run({ rounds: numberArg('rounds', 3), dtype: arg('dtype', 'q8') })
  const m = result.medianMs
  const p = result.phasesMs
  console.log(`\nmedian of ${result.rounds}: ours ${fmtMs(m.ours)} (${(result.windows / m.ours * 1000).toFixed(1)} windows/s), seed ${fmtMs(m.seed)} (${(result.windows / m.seed * 1000).toFixed(1)} windows/s)`)
  console.log(`  ours by phase: embed ${fmtMs(p.embed)} (${(p.embed / m.ours * 100).toFixed(0)} %), tokenize ${fmtMs(p.tokenize)} (${p.tokenizeCalls} calls, ${(p.tokenize / m.ours * 100).toFixed(0)} %), other ${fmtMs(p.other)} (${(p.other / m.ours * 100).toFixed(0)} %)`)
  console.log(`full build, ours / seed   ${result.ratio.toFixed(2)}  (goal ≤ ${FULL_GOAL}) ${result.ratio <= FULL_GOAL ? 'ok' : 'MISSED'}`)
  console.log(`incremental, one paragraph of ${result.incremental.edited}: ${fmtMs(m.incremental)} = ${(result.incremental.share * 100).toFixed(1)} % of a full build (goal ≤ ${INCREMENTAL_GOAL * 100} %) ${result.incremental.share <= INCREMENTAL_GOAL ? 'ok' : 'MISSED'}; ${result.incremental.embedded} windows embedded, tokenize ${fmtMs(result.incremental.tokenizeMs)}, embed ${fmtMs(result.incremental.embedMs)}`)
  emitResult(result)
}
