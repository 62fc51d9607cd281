// The Embedder contract, on the seeded tiny BERT (built into a temp folder, offline), and
// the embedder's pure helpers.

import type { TransformersEmbedder } from '../../src/knowledge/embedder'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { createTransformersEmbedder, meanPoolNormalize, planBatches } from '../../src/knowledge/embedder'
import { inspectFile, locateModelFiles, onnxFileOf } from '../../src/knowledge/embedder-files'

const norm = (v: Float32Array) => Math.hypot(...v)

describe('planBatches', () => {
  it('sorts longest first, caps batch size and padded tokens, and covers every input once', () => {
    const lengths = [5, 40, 7, 40, 3, 12, 12, 100]
    const batches = planBatches(lengths, 3, 120)
    expect(batches.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i))
    expect(batches.flat().map(i => lengths[i])).toEqual([...lengths].sort((a, b) => b - a))
    for (const batch of batches) {
      expect(batch.length).toBeLessThanOrEqual(3)
      expect(Math.max(...batch.map(i => lengths[i]!)) * batch.length).toBeLessThanOrEqual(Math.max(120, lengths[batch[0]!]!))
    }
    expect(batches[0]).toEqual([7]) // 100 × 2 > 120
    expect(planBatches([], 8)).toEqual([])
    expect(planBatches([4, 4, 4], 1)).toEqual([[0], [1], [2]])
  })
})

describe('meanPoolNormalize', () => {
  it('averages the attended tokens only and normalizes', () => {
    // batch 2, sequence 3, dimensions 2; the second row has one padding token.
    const hidden = Float32Array.from([1, 0, 3, 0, 100, 100, 0, 2, 0, 4, -50, 7])
    const [a, b] = meanPoolNormalize(hidden, 2, 3, 2, [3, 2])
    expect(Array.from(a!)).toEqual([Math.fround(104 / 3 / Math.hypot(104 / 3, 100 / 3)), Math.fround(100 / 3 / Math.hypot(104 / 3, 100 / 3))])
    expect(Array.from(b!)).toEqual([0, 1])
    const [zero] = meanPoolNormalize(new Float32Array(4), 1, 2, 2, [2])
    expect(Array.from(zero!)).toEqual([0, 0])
  })
})

describe('model files', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'skill-kit-files-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('names the ONNX file of each dtype', () => {
    expect(onnxFileOf('q8')).toBe('onnx/model_quantized.onnx')
    expect(onnxFileOf('fp32')).toBe('onnx/model.onnx')
    expect(onnxFileOf('q4f16')).toBe('onnx/model_q4f16.onnx')
    expect(() => onnxFileOf('q7')).toThrow(/Unknown model dtype "q7"/)
  })

  it('prefers the download cache of the revision, like Transformers.js, then the local folder', () => {
    const local = join(dir, 'org', 'm')
    const download = join(local, 'rev1')
    mkdirSync(join(local, 'onnx'), { recursive: true })
    mkdirSync(join(download, 'onnx'), { recursive: true })
    for (const f of ['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx'])
      writeFileSync(join(local, f), '{}')
    writeFileSync(join(download, 'onnx/model_quantized.onnx'), '{}')
    const found = locateModelFiles(dir, 'org/m', 'rev1', 'q8')
    expect(found.localDir).toBe(local)
    expect(found.found['onnx/model_quantized.onnx']).toBe(join(download, 'onnx/model_quantized.onnx'))
    expect(found.found['config.json']).toBe(join(local, 'config.json'))
    expect(found.missing).toEqual(['tokenizer_config.json'])
  })

  it('hashes a file and finds strings across read chunks', async () => {
    const file = join(dir, 'big.bin')
    const bytes = Buffer.alloc(200_000, 7)
    bytes.write('DynamicQuantizeLinear', 65_530) // straddles the first 64 KiB read
    writeFileSync(file, bytes)
    const { sha256, contains } = await inspectFile(file, ['DynamicQuantizeLinear', 'MatMulInteger'])
    expect(sha256).toMatch(/^[0-9a-f]{64}$/)
    expect([...contains]).toEqual(['DynamicQuantizeLinear'])
  })
})

describe('the Transformers.js embedder (tiny BERT)', () => {
  let dir: string
  let fp32: TransformersEmbedder
  let q8: TransformersEmbedder
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skill-kit-embedder-'))
    await buildTinyModel(dir)
    fp32 = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: dir, offline: true, dtype: 'fp32' })
    q8 = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: dir, offline: true })
  }, 60_000)
  afterAll(async () => {
    await fp32?.dispose()
    await q8?.dispose()
    rmSync(dir, { recursive: true, force: true })
  })

  const texts = [
    'a',
    'Dark mode: prefers-color-scheme and the color-scheme property.',
    'hello world',
    'The quick brown fox jumps over the lazy dog. '.repeat(5),
    'form',
    'keyboard focus order in a navigation drawer',
  ]

  for (const dtype of ['fp32', 'q8']) {
    it(`returns vectors in input order, each independent of its batch (${dtype})`, async () => {
      const embedder = dtype === 'fp32' ? fp32 : q8
      const together = await embedder.embed(texts)
      for (const [i, text] of texts.entries())
        expect((await embedder.embed([text]))[0], text).toEqual(together[i])
      expect(await embedder.embed([...texts].reverse())).toEqual([...together].reverse())
    })
  }

  it('never throws on odd text', async () => {
    const odd = ['', ' ', '😀🎉', '\u0000\u0007\u200B', 'lone \uD800 surrogate', '東京 naïve café', '\n\n\t', 'x'.repeat(100_000), 'word '.repeat(20_000)]
    const vectors = await fp32.embed(odd)
    expect(vectors).toHaveLength(odd.length)
    for (const v of vectors) {
      expect(v.every(Number.isFinite)).toBe(true)
      expect(norm(v)).toBeCloseTo(1, 5)
    }
    expect(fp32.tokenize('')).toEqual([])
  })

  it('cuts text beyond maxTokens: embedding it equals embedding its first window', async () => {
    const long = 'search the knowledge folder for every guide about forms and focus '.repeat(30)
    const ids = fp32.tokenize(long)
    const room = fp32.maxTokens - fp32.reservedTokens.document
    expect(ids.length).toBeGreaterThan(room)
    expect((await fp32.embed([long]))[0]).toEqual((await fp32.embedTokens([ids.slice(0, room)]))[0])
  })

  it('rejects windows that do not fit or hold foreign IDs', async () => {
    const room = fp32.maxTokens - fp32.reservedTokens.document
    await expect(fp32.embedTokens([[5], new Array(room + 1).fill(5)])).rejects.toThrow(/window 1 has 127 tokens.*at most 126/)
    await expect(fp32.embedTokens([[5, -1]])).rejects.toThrow(/not a token ID/)
    await expect(fp32.embedTokens([[5, 1e9]])).rejects.toThrow(/not a token ID/)
    expect(await fp32.embedTokens([])).toEqual([])
    expect((await fp32.embedTokens([[]]))[0]).toEqual((await fp32.embed(['']))[0])
  })

  it('adds prefixes around windows and reserves their tokens; they change the fingerprint', async () => {
    const prefixed = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: dir, offline: true, dtype: 'fp32', queryPrefix: 'query: ', documentPrefix: 'passage: ', maxTokens: 64 })
    try {
      expect(prefixed.maxTokens).toBe(64)
      expect(prefixed.reservedTokens).toEqual({ document: 2 + prefixed.tokenize('passage: ').length, query: 2 + prefixed.tokenize('query: ').length })
      expect(prefixed.fingerprint).not.toBe(fp32.fingerprint)
      const text = 'dark mode'
      const [asQuery] = await prefixed.embed([text], 'query')
      expect(asQuery).toEqual((await fp32.embed(['query: dark mode']))[0])
      expect((await prefixed.embedTokens([prefixed.tokenize(text)], 'document'))[0]).toEqual((await fp32.embed(['passage: dark mode']))[0])
      const room = prefixed.maxTokens - prefixed.reservedTokens.document
      await expect(prefixed.embedTokens([new Array(room + 1).fill(5)])).rejects.toThrow(RangeError)
    }
    finally {
      await prefixed.dispose()
    }
  })

  it('caps maxTokens at the model limit and keys the fingerprint on model, dtype and limit', async () => {
    const big = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: dir, offline: true, dtype: 'fp32', maxTokens: 10_000 })
    expect(big.maxTokens).toBe(128)
    expect(big.fingerprint).toBe(fp32.fingerprint)
    await big.dispose()
    expect(q8.fingerprint).not.toBe(fp32.fingerprint)
    expect(fp32.fingerprint).toMatch(/^skill-kit-test\/tiny-bert@751bff37182d\/fp32\/[0-9a-f]{24}$/)
    await expect(createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: dir, offline: true, maxTokens: 2 })).rejects.toThrow(/maxTokens/)
  })

  it('serves concurrent calls and refuses work after dispose', async () => {
    const embedder = await createTransformersEmbedder({ model: TINY_MODEL_ID, cacheDir: dir, offline: true, dtype: 'fp32' })
    const results = await Promise.all(texts.map(t => embedder.embed([t])))
    expect(results.map(r => r[0])).toEqual(await fp32.embed(texts))
    await embedder.dispose()
    await expect(embedder.embed(['x'])).rejects.toThrow(/disposed/)
  })
})
