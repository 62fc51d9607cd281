import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { encodeQueryTable } from '../../../src/knowledge/query-table/encode'
import { staticQueryEmbedder } from '../../../src/runtime/knowledge/vector/encoder/static-embedder'
import { readQueryTableCore, readQueryTableShard } from '../../../src/runtime/knowledge/vector/encoder/read'
import { crc32 } from '../../../src/runtime/knowledge/format/crc32'
import { seededTable } from '../../support/seeded-table'

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex').slice(0, 16)

describe('encodeQueryTable', () => {
  it('gives byte-identical files for the same table, whatever the order of its pieces, of its tokenizer settings, or the arrays holding it', () => {
    const table = seededTable(21, 12)
    const a = encodeQueryTable(table, { rowsPerShard: 4 })
    const { tokenizer } = table
    // The same table, its pieces listed in reverse.
    const order = table.vocabulary.map((_, i) => table.vocabulary.length - 1 - i)
    const b = encodeQueryTable({
      ...table,
      tokenizer: { specialTokens: tokenizer.specialTokens, maxPieces: tokenizer.maxPieces, maxCharsPerWord: tokenizer.maxCharsPerWord, continuingPrefix: tokenizer.continuingPrefix, stripAccents: tokenizer.stripAccents, lowercase: tokenizer.lowercase },
      vocabulary: order.map(i => table.vocabulary[i]!),
      rows: Float32Array.from(order.flatMap(i => [...table.rows.subarray(i * 12, (i + 1) * 12)])),
      weights: Float32Array.from(order, i => table.weights[i]!),
      bias: Float32Array.from(table.bias),
    }, { rowsPerShard: 4 })
    expect(a.shards).toHaveLength(6)
    expect(Buffer.from(b.core).equals(Buffer.from(a.core))).toBe(true)
    expect(b.shards.map(sha)).toEqual(a.shards.map(sha))
    // Another table gives other files.
    expect(sha(encodeQueryTable(seededTable(21, 12, 2), { rowsPerShard: 4 }).shards[1]!)).not.toBe(sha(a.shards[1]!))
  })

  it('writes the core\'s keys in the format\'s order, its pieces sorted, and each shard\'s header and rows as format.ts lays them out', () => {
    const table = seededTable(5, 4)
    const { core, shards } = encodeQueryTable(table, { rowsPerShard: 2 })
    const json = JSON.parse(new TextDecoder().decode(core))
    expect(Object.keys(json)).toEqual(['format', 'model', 'dimensions', 'tokenizer', 'pooling', 'bias', 'groups', 'shards', 'build', 'vocabulary'])
    expect(Object.keys(json.tokenizer)).toEqual(['lowercase', 'stripAccents', 'continuingPrefix', 'maxCharsPerWord', 'maxPieces', 'specialTokens'])
    // The pieces sorted (##p1, ##p3, p0, p2, p4), front-coded.
    expect(json.vocabulary).toEqual({ shared: [0, 3, 0, 1, 1], suffixes: ['##p1', '3', 'p0', '2', '4'] })
    expect(json.groups).toEqual([[5, 2]])
    expect(json.shards).toBe(3)
    expect(shards.map(s => s.length)).toEqual([28 + 2 * 12, 28 + 2 * 12, 28 + 12])
    const last = shards[2]!
    const dv = new DataView(last.buffer)
    expect(new TextDecoder().decode(last.subarray(0, 4))).toBe('SKQT')
    expect(dv.getUint32(4, true)).toBe(2)
    expect(dv.getUint32(8, true)).toBe(crc32(last, 12))
    expect(dv.getUint32(12, true)).toBe(json.build)
    expect([4, 5, 6].map(k => dv.getUint32(k * 4, true))).toEqual([2, 4, 1])
    // Row 4 is p4, the table's row 4.
    const row = table.rows.subarray(16, 20)
    const scale = Math.fround(Math.max(...row.map(Math.abs)) / 127)
    expect(dv.getFloat32(28, true)).toBe(scale)
    expect(dv.getFloat32(32, true)).toBe(table.weights[4])
    expect([...new Int8Array(last.buffer, 36, 4)]).toEqual([...row].map(v => Math.round(v / scale)))
    // The largest value is ±127.
    expect(Math.max(...new Int8Array(last.buffer, 36, 4).map(Math.abs))).toBe(127)
    // The build is the CRC-32 of every row, in order.
    expect(json.build).toBe(crc32(Buffer.concat(shards.map(s => s.subarray(28)))))
  })

  it('round-trips through the reader: the same vocabulary, settings, weights and bias, each value within half its scale', () => {
    const table = seededTable(37, 16)
    const { core, shards } = encodeQueryTable(table, { rowsPerShard: 8 })
    const read = readQueryTableCore(core)
    expect(read).toMatchObject({ model: table.model, dimensions: 16, tokenizer: table.tokenizer, pooling: 'weighted-mean', groups: [{ pieces: 37, rowsPerShard: 8 }], vocabulary: [...table.vocabulary].sort() })
    expect(Float32Array.from(read.bias)).toEqual(table.bias)
    expect(read.shards).toBe(5)
    for (const [s, bytes] of shards.entries()) {
      const shard = readQueryTableShard(bytes, read, s)
      expect(shard.firstRow).toBe(s * 8)
      expect(shard.rowCount).toBe(s < 4 ? 8 : 5)
      for (let r = 0; r < shard.rowCount; r++) {
        const row = table.vocabulary.indexOf(read.vocabulary[shard.firstRow + r]!)
        expect(shard.weights[r]).toBe(table.weights[row])
        for (let k = 0; k < 16; k++)
          expect(Math.abs(shard.scales[r]! * shard.values[r * 16 + k]! - table.rows[row * 16 + k]!)).toBeLessThanOrEqual(shard.scales[r]! / 2 + 1e-7)
      }
    }
    // The row of zeros has scale 0 and zero values.
    const zero = read.vocabulary.indexOf('p0')
    const shard = readQueryTableShard(shards[Math.floor(zero / 8)]!, read, Math.floor(zero / 8))
    expect(shard.scales[zero % 8]).toBe(0)
    expect([...shard.values.subarray(zero % 8 * 16, zero % 8 * 16 + 16)].every(v => v === 0)).toBe(true)
  })

  it('front-codes pieces of any script, never sharing half a surrogate pair', () => {
    const pieces = ['\u{1F600}', '\u{1F601}', '\u{1F601}x', '中文', '中国', '##é', '##éa', 'a']
    const table = { ...seededTable(pieces.length, 2), vocabulary: pieces }
    const { core } = encodeQueryTable(table)
    const json = JSON.parse(new TextDecoder().decode(core))
    const sorted = [...pieces].sort()
    const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
    expect(json.vocabulary.suffixes.filter((suffix: string) => loneSurrogate.test(suffix))).toEqual([])
    expect(json.vocabulary.shared).toEqual([0, 3, 0, 0, 1, 0, 0, 2])
    expect(sorted[2]).toBe('a')
    expect(readQueryTableCore(core).vocabulary).toEqual(sorted)
  })

  it('writes the bias with no more digits than a float32 needs', () => {
    const table = { ...seededTable(3, 4), bias: Float32Array.of(0.1, -0.25, 1 / 3, 0) }
    const json = JSON.parse(new TextDecoder().decode(encodeQueryTable(table).core))
    expect(json.bias).toEqual([0.1, -0.25, 0.33333334, 0])
    expect(Float32Array.from(json.bias)).toEqual(table.bias)
  })

  it('refuses a table whose parts disagree, naming what', () => {
    const table = seededTable(4, 3)
    expect(() => encodeQueryTable({ ...table, weights: new Float32Array(3) })).toThrow('4 pieces × 3 dimensions has 12 row values, 3 weights and 3 bias values')
    expect(() => encodeQueryTable({ ...table, vocabulary: ['a', 'b', 'a', 'c'] })).toThrow('unique')
    expect(() => encodeQueryTable({ ...table, bias: Float32Array.of(0, Number.NaN, 0) })).toThrow('bias values must be finite')
    expect(() => encodeQueryTable(table, { rowsPerShard: 0 })).toThrow('rowsPerShard must be a positive whole number, not 0')
  })
})

describe('the layout of a query table\'s shards', () => {
  /** 3,000 pieces, used by the corpus as a Zipf law would have it: piece i (in seeded order) about 3,000 / (i + 1) times. */
  function zipfTable() {
    const table = seededTable(3000, 4)
    const order = table.vocabulary.map((_, i) => i).sort((a, b) => ((a * 7919) % 3001) - ((b * 7919) % 3001))
    const counts = new Float32Array(3000)
    order.forEach((row, rank) => counts[row] = Math.floor(3000 / (rank + 1)))
    return { ...table, counts }
  }
  const piecesOf = (core: Uint8Array) => {
    const { vocabulary, groups } = readQueryTableCore(core)
    return { vocabulary, groups }
  }

  it('writes at most 1,000 shards by default, and at most maxShards', () => {
    const table = zipfTable()
    expect(encodeQueryTable(table).shards.length).toBeLessThanOrEqual(1000)
    expect(encodeQueryTable(table).shards.length).toBeGreaterThan(500)
    for (const maxShards of [1, 7, 50, 400])
      expect(encodeQueryTable(table, { maxShards }).shards.length, String(maxShards)).toBeLessThanOrEqual(maxShards)
    // Without counts every piece is alike: one group.
    const { counts: _, ...plain } = table
    expect(piecesOf(encodeQueryTable(plain, { maxShards: 100 }).core).groups).toEqual([{ pieces: 3000, rowsPerShard: 32 }])
  })

  it('puts the pieces the corpus uses most in the smallest shards, each group sorted, and byte-identical whatever the pieces\' order', () => {
    const table = zipfTable()
    const files = encodeQueryTable(table, { maxShards: 200 })
    const { vocabulary, groups } = piecesOf(files.core)
    expect(groups.length).toBeGreaterThan(2)
    // Rows a shard only grow from group to group, and the most used pieces come first.
    expect(groups.map(g => g.rowsPerShard)).toEqual([...groups.map(g => g.rowsPerShard)].sort((a, b) => a - b))
    const countOf = (piece: string) => table.counts[table.vocabulary.indexOf(piece)]!
    let at = 0
    for (const group of groups) {
      const run = vocabulary.slice(at, at + group.pieces)
      expect(run).toEqual([...run].sort())
      const next = vocabulary.slice(at + group.pieces)
      if (next.length > 0)
        expect(Math.min(...run.map(countOf)), String(at)).toBeGreaterThanOrEqual(Math.max(...next.map(countOf)))
      at += group.pieces
    }
    const reversed = table.vocabulary.map((_, i) => 2999 - i)
    const again = encodeQueryTable({
      ...table,
      vocabulary: reversed.map(i => table.vocabulary[i]!),
      rows: Float32Array.from(reversed.flatMap(i => [...table.rows.subarray(i * 4, i * 4 + 4)])),
      weights: Float32Array.from(reversed, i => table.weights[i]!),
      counts: Float32Array.from(reversed, i => table.counts[i]!),
    }, { maxShards: 200 })
    expect(sha(again.core)).toBe(sha(files.core))
    expect(again.shards.map(sha)).toEqual(files.shards.map(sha))
  })

  it('embeds every query as the same rows a shard for every piece do, fetching fewer bytes for queries of frequent pieces', async () => {
    const table = zipfTable()
    const grouped = encodeQueryTable(table, { maxShards: 200 })
    const uniform = encodeQueryTable(table, { rowsPerShard: 15 })
    expect(uniform.shards.length).toBe(200)
    const fetched = { grouped: 0, uniform: 0 }
    const embedder = (files: typeof grouped, which: keyof typeof fetched) => staticQueryEmbedder({ core: async () => files.core, shard: async (s) => {
      fetched[which] += files.shards[s]!.length
      return files.shards[s]!
    } })
    const a = embedder(grouped, 'grouped')
    const b = embedder(uniform, 'uniform')
    // Queries of the corpus's words: the pieces it uses most, more often.
    const byUse = table.vocabulary.map((piece, i) => [piece, table.counts[i]!] as const).sort((x, y) => y[1] - x[1])
    for (let q = 0; q < 40; q++) {
      const query = [q % 10, (q * 3) % 40, (q * 11) % 200].map(i => byUse[i]![0].replace(/^##/, '')).join(' ')
      expect(Array.from(await a(query)), query).toEqual(Array.from(await b(query)))
    }
    expect(fetched.grouped).toBeLessThan(fetched.uniform / 2)
  })
})
