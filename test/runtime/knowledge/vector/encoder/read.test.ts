import { describe, expect, it } from 'vitest'
import { encodeQueryTable } from '../../../../../src/knowledge/query-table/encode'
import { readQueryTableCore, readQueryTableShard } from '../../../../../src/runtime/knowledge/vector/encoder/read'
import { KnowledgeError } from '../../../../../src/runtime/knowledge/errors'
import { crc32 } from '../../../../../src/runtime/knowledge/format/crc32'
import { seededTable } from '../../../../support/seeded-table'

const files = encodeQueryTable(seededTable(10, 8), { rowsPerShard: 4 })
const core = readQueryTableCore(files.core)

/** The error `read` throws: a KnowledgeError `snapshot-unavailable`, by its message. */
function refusal(read: () => unknown): string {
  try {
    read()
  }
  catch (error) {
    expect(error).toBeInstanceOf(KnowledgeError)
    expect((error as KnowledgeError).code).toBe('snapshot-unavailable')
    return (error as Error).message
  }
  throw new Error('read did not throw')
}

const coreWith = (change: (json: Record<string, unknown>) => void) => {
  const json = JSON.parse(new TextDecoder().decode(files.core))
  change(json)
  return new TextEncoder().encode(JSON.stringify(json))
}

describe('readQueryTableCore', () => {
  it('refuses a core that is not JSON, of another format, or whose fields are missing or disagree, naming the file', () => {
    expect(refusal(() => readQueryTableCore(files.core.subarray(0, 100), 'https://docs.example/kb/query-table.json'))).toBe('Cannot read the query table file https://docs.example/kb/query-table.json: it is not UTF-8 JSON. Rebuild the project, and deploy its whole output folder.')
    expect(refusal(() => readQueryTableCore(Uint8Array.of(0xFF, 0xFE)))).toContain('query-table.json: it is not UTF-8 JSON')
    expect(refusal(() => readQueryTableCore(coreWith(json => json.format = 1)))).toBe('Cannot read the query table file query-table.json: it is in format 1, and this version of unplugin-skill-kit reads format 2. Rebuild the project with the version of unplugin-skill-kit that searches it, and deploy its whole output folder.')
    expect(refusal(() => readQueryTableCore(coreWith(json => (json.bias as number[]).pop())))).toContain('its bias is not 8 numbers')
    expect(refusal(() => readQueryTableCore(coreWith(json => json.dimensions = 1e9)))).toContain('are not a whole number from 1 to 65536')
    expect(refusal(() => readQueryTableCore(coreWith(json => json.pooling = 'max')))).toContain('its pooling "max" is neither')
    // What the file says is quoted, and cut.
    expect(refusal(() => readQueryTableCore(coreWith(json => json.pooling = 'x'.repeat(10_000)))).length).toBeLessThan(300)
    const pieces = (change: (vocabulary: { shared: number[], suffixes: string[] }) => void) => coreWith(json => change(json.vocabulary as { shared: number[], suffixes: string[] }))
    expect(refusal(() => readQueryTableCore(pieces(v => v.suffixes[4] = v.suffixes[3]!)))).toContain('its vocabulary is not a front-coded list of unique, non-empty pieces, sorted within each group')
    expect(refusal(() => readQueryTableCore(pieces(v => v.shared[1] = 99)))).toContain('front-coded list')
    expect(refusal(() => readQueryTableCore(pieces(v => v.suffixes.pop())))).toContain('front-coded list')
    expect(refusal(() => readQueryTableCore(coreWith(json => json.vocabulary = ['p0', 'p1'])))).toContain('front-coded list')
    expect(refusal(() => readQueryTableCore(coreWith(json => json.shards = 2)))).toContain('it does not count the 3 shards its 10 pieces fill')
    expect(refusal(() => readQueryTableCore(coreWith(json => json.groups = [[10, 0]])))).toContain('its groups are not a list of [pieces, rows a shard] pairs of positive whole numbers')
    expect(refusal(() => readQueryTableCore(coreWith(json => json.groups = [[9, 4]])))).toContain('its groups hold 9 pieces where its vocabulary has 10')
    // Two groups: each sorted, but a piece repeated across them.
    const twice = coreWith((json) => {
      json.groups = [[5, 4], [5, 4]]
      const v = json.vocabulary as { shared: number[], suffixes: string[] }
      const listed: string[] = []
      v.suffixes.forEach((suffix, i) => listed.push((listed[i - 1] ?? '').slice(0, v.shared[i]) + suffix))
      listed[5] = listed[0]!
      json.vocabulary = { shared: listed.map(() => 0), suffixes: listed }
    })
    expect(refusal(() => readQueryTableCore(twice))).toContain('front-coded list')
    expect(refusal(() => readQueryTableCore(coreWith(json => json.build = -1)))).toContain('its build is not a CRC-32')
    expect(refusal(() => readQueryTableCore(coreWith(json => delete (json.tokenizer as Record<string, unknown>).maxPieces)))).toContain('its tokenizer settings are missing or invalid')
    expect(refusal(() => readQueryTableCore(new TextEncoder().encode('[1, 2]')))).toContain('it is not a JSON object')
  })
})

describe('readQueryTableShard', () => {
  it('refuses a truncated, damaged or foreign shard, naming the file and what to do (a shard of another build as snapshot-mismatch)', () => {
    const shard = files.shards[1]!
    expect(refusal(() => readQueryTableShard(shard.subarray(0, 30), core, 1, '/kb/query-table-1.bin'))).toBe('Cannot read the query table file /kb/query-table-1.bin: it has 30 bytes where shard 1 of its core has 92: the core and its shards come from different builds, or the shard was cut short in transfer. Deploy the build\'s whole output folder again, so that all of its files match.')
    const flipped = Uint8Array.from(shard)
    flipped[50]! ^= 1
    expect(refusal(() => readQueryTableShard(flipped, core, 1))).toMatch(/^Cannot read the query table file query-table-1\.bin: its CRC-32 is [0-9a-f]{8} where its header says [0-9a-f]{8}: it was damaged in transfer\. Deploy/)
    const other = encodeQueryTable(seededTable(10, 8, 2), { rowsPerShard: 4 })
    expect(() => readQueryTableShard(other.shards[1]!, core, 1)).toThrow(expect.objectContaining({
      code: 'snapshot-mismatch',
      message: expect.stringMatching(/^The query table file query-table-1\.bin belongs to build [0-9a-f]{8} of the query table, and its core to build [0-9a-f]{8}: they come from different builds\. Deploy the build's whole output folder again, so that all of its files match\.$/),
    }))
    // Shard 0 in the place of shard 1 (same length, same build).
    expect(refusal(() => readQueryTableShard(files.shards[0]!, core, 1))).toContain('query-table-1.bin: its header is not that of shard 1 (rows 4 to 7)')
    expect(refusal(() => readQueryTableShard(shard, core, 7))).toContain('its core counts 3 shards, not shard 7')
    expect(refusal(() => readQueryTableShard(new TextEncoder().encode('x'.repeat(92)), core, 1))).toContain('it is not a query table shard in format 2')
  })

  it('refuses a shard whose rows hold what no writer writes, even with a right CRC-32', () => {
    const nan = Uint8Array.from(files.shards[1]!)
    const dv = new DataView(nan.buffer)
    dv.setFloat32(28, Number.NaN, true)
    dv.setUint32(8, crc32(nan, 12), true)
    expect(refusal(() => readQueryTableShard(nan, core, 1))).toContain('row 4 has scale NaN')
  })

  it('reads a shard from an ArrayBuffer or a view at an odd offset alike', () => {
    const shard = files.shards[2]!
    const padded = new Uint8Array(shard.length + 3)
    padded.set(shard, 3)
    const a = readQueryTableShard(shard.slice().buffer, core, 2)
    const b = readQueryTableShard(padded.subarray(3), core, 2)
    expect(b).toEqual(a)
    expect(a.rowCount).toBe(2)
    expect(a.firstRow).toBe(8)
  })
})
