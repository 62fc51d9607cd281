import type { SnapshotChunkInput, SnapshotInput } from '../../src/knowledge/snapshot'
import type { SnapshotErrorCode } from '../../src/runtime/knowledge/format/snapshot-container'
import { crc32 as zlibCrc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { encodeSnapshot, REFINE_BITS } from '../../src/knowledge/snapshot'
import { buildLexicalIndex } from '../../src/runtime/knowledge/lexical/lexical-index'
import { searchLexical } from '../../src/runtime/knowledge/lexical/lexical'
import { searchVectors } from '../../src/runtime/knowledge/vector/search'
import { chunkHeading, DIRECTORY_ENTRY_BYTES, documentTitle, HEADER_BYTES } from '../../src/runtime/knowledge/format/snapshot-layout'
import { crc32 } from '../../src/runtime/knowledge/format/crc32'
import { decodeSnapshot } from '../../src/runtime/knowledge/format/snapshot-reader'
import { SnapshotError } from '../../src/runtime/knowledge/format/snapshot-container'
import { rng, unitVector } from '../support/random'

const DOCS = [
  { id: 'plants/watering', description: 'Water plants.', category: 'plants', categories: ['plants', 'garden'], tags: ['water'], path: 'plants/watering.md', tokenCount: 120 },
  { id: 'backup', description: 'Restore deleted files.', category: 'backups', categories: ['backups'], tags: ['restore', 'recovery'], path: 'backup.md', tokenCount: 300 },
  { id: 'Zeta', description: 'Capital letters sort first.', category: 'misc', categories: [], tags: [], path: 'Zeta.md', tokenCount: 7 },
]

function input(overrides: Partial<SnapshotInput> = {}, dims = 32, seed = 1): SnapshotInput {
  const random = rng(seed)
  const chunks: SnapshotChunkInput[] = [
    { documentIndex: 0, vector: unitVector(dims, random), heading: ['Watering'], text: 'Water your plants every morning.' },
    { documentIndex: 0, vector: unitVector(dims, random), heading: ['Watering', 'In winter'], text: 'Less water in winter.' },
    { documentIndex: 1, vector: unitVector(dims, random), heading: ['Restore a backup'], text: 'Restore deleted files from the backup archive.' },
    { documentIndex: 1, vector: unitVector(dims, random), text: 'description: Restore deleted files. tags: restore, recovery' },
    { documentIndex: 2, vector: unitVector(dims, random), heading: ['Zeta'], text: 'Zeta.' },
  ]
  return { model: 'Xenova/all-MiniLM-L6-v2@751bff3|q8|chunk:256|v1', documents: DOCS, chunks, ...overrides }
}

function expectSnapshotError(fn: () => unknown, code?: SnapshotErrorCode): SnapshotError {
  try {
    fn()
  }
  catch (error) {
    expect(error).toBeInstanceOf(SnapshotError)
    if (code)
      expect((error as SnapshotError).code).toBe(code)
    return error as SnapshotError
  }
  throw new Error('expected a SnapshotError, but decoding succeeded')
}

/** Rewrites the checksum after a deliberate edit, so that the structural checks are what fails. */
function reseal(bytes: Uint8Array): Uint8Array {
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(12, zlibCrc32(bytes.subarray(16)), true)
  return bytes
}

function directory(bytes: Uint8Array): Map<string, { type: number, offset: number, length: number, entry: number }> {
  const dv = new DataView(bytes.buffer, bytes.byteOffset)
  const map = new Map<string, { type: number, offset: number, length: number, entry: number }>()
  for (let s = 0; s < dv.getUint32(32, true); s++) {
    const at = 40 + s * 16
    map.set(String.fromCharCode(...bytes.subarray(at, at + 4)), { type: dv.getUint32(at + 4, true), offset: dv.getUint32(at + 8, true), length: dv.getUint32(at + 12, true), entry: at })
  }
  return map
}

describe('snapshot format', () => {
  it('round-trips float32 vectors exactly, documents sorted by ID, chunks in order', () => {
    const source = input({ encoding: 'float32' })
    const bytes = encodeSnapshot(source)
    const snap = decodeSnapshot(bytes)
    expect(snap.version).toBe(2)
    expect(snap.model).toBe(source.model)
    expect(snap.encoding).toBe('float32')
    expect(snap.dimensions).toBe(32)
    expect(snap.chunkCount).toBe(5)
    expect(snap.documents.map(d => d.id)).toEqual(['Zeta', 'backup', 'plants/watering']) // UTF-16 code units: capitals first
    expect(snap.documents[2]).toEqual(DOCS[0])
    expect(snap.documents[1]).toEqual(DOCS[1])
    expect([...snap.chunkDocuments]).toEqual([2, 2, 1, 1, 0])
    expect(snap.vectors).toBeInstanceOf(Float32Array)
    expect(snap.scales).toBeNull()
    for (const [c, chunk] of source.chunks.entries())
      expect([...snap.vectors.subarray(c * 32, (c + 1) * 32)]).toEqual([...Float32Array.from(chunk.vector!)])
    expect(chunkHeading(snap, 1)).toEqual(['Watering', 'In winter'])
    expect(chunkHeading(snap, 3)).toEqual([])
    expect(snap.lexical).toBeNull()
  })

  it('round-trips int8 vectors with refinement bits', () => {
    const source = input({ encoding: 'int8' }, 384, 7)
    const snap = decodeSnapshot(encodeSnapshot(source))
    expect(snap.encoding).toBe('int8')
    expect(snap.vectors).toBeInstanceOf(Int8Array)
    const { bits, data } = snap.refinement!
    expect(bits).toBe(REFINE_BITS)
    const rowBytes = 384 * bits / 8
    expect(data).toHaveLength(source.chunks.length * rowBytes)
    const levels = 2 ** bits
    for (const [c, chunk] of source.chunks.entries()) {
      const v = chunk.vector!
      const scale = snap.scales![c]!
      const maxAbs = Math.max(...Array.from(v, Math.abs))
      expect(scale).toBe(Math.fround(maxAbs / 127))
      let dot = 0
      let norm = 0
      for (let i = 0; i < 384; i++) {
        const hi = snap.vectors[c * 384 + i]!
        const bit = c * rowBytes * 8 + i * bits
        const lo = (((data[bit >> 3]! | ((data[(bit >> 3) + 1] ?? 0) << 8)) >> (bit & 7)) & (levels - 1)) - levels / 2
        // The bytes alone are int8 quantisation (within half a step, plus the refinement's own rounding)…
        expect(Math.abs(hi * scale - v[i]!)).toBeLessThanOrEqual(scale / 2 + scale / levels / 2 + 1e-9)
        // … and with the refinement, within half a fine step.
        const fine = (levels * hi + lo) * scale / levels
        expect(Math.abs(fine - v[i]!)).toBeLessThanOrEqual(scale / levels / 2 + 1e-9)
        dot += fine * v[i]!
        norm += fine ** 2
      }
      expect(dot / Math.sqrt(norm)).toBeGreaterThan(0.99999) // the dequantised direction
      expect(Math.max(...snap.vectors.subarray(c * 384, (c + 1) * 384).map(Math.abs))).toBe(127)
    }
  })

  it('rejects a refinement section of the wrong size, and reads a snapshot without one', () => {
    const bytes = encodeSnapshot(input({ encoding: 'int8' }, 32))
    const sections = directory(bytes)
    const vref = sections.get('VREF')!
    expect(vref).toMatchObject({ type: 1, length: 5 * 32 * REFINE_BITS / 8 })
    const at = HEADER_BYTES + [...sections.keys()].indexOf('VREF') * DIRECTORY_ENTRY_BYTES
    const shorter = bytes.slice()
    new DataView(shorter.buffer).setUint32(at + 12, vref.length - 1, true)
    expect(() => decodeSnapshot(shorter, { verify: false })).toThrow(`Corrupt knowledge snapshot: a section holds ${vref.length - 1} bytes where ${vref.length} were expected. Rebuild it.`)
    // A reader that does not know VREF ignores it; this one works without it too (plain int8).
    const renamed = bytes.slice()
    renamed.set([0x58, 0x58, 0x58, 0x58], at)
    expect(decodeSnapshot(renamed, { verify: false }).refinement).toBeNull()
  })

  it('normalises vectors that are not unit-length, and keeps those that are', () => {
    const source = input({ encoding: 'float32' }, 4)
    const chunks = source.chunks.map((chunk, c) => (c === 0 ? { ...chunk, vector: [3, 0, 4, 0] } : chunk))
    const snap = decodeSnapshot(encodeSnapshot({ ...source, chunks }))
    expect([...snap.vectors.subarray(0, 4)]).toEqual([Math.fround(0.6), 0, Math.fround(0.8), 0])
  })

  it('is deterministic: same bytes for the same input, whatever the order of its documents', () => {
    const source = input({ lexical: true })
    const a = encodeSnapshot(source)
    expect(encodeSnapshot(input({ lexical: true }))).toEqual(a)
    const permutation = [2, 0, 1] // new position of each old document
    const documents: typeof DOCS = []
    for (const [i, doc] of DOCS.entries())
      documents[permutation[i]!] = doc
    const chunks = source.chunks.map(chunk => ({ ...chunk, documentIndex: permutation[chunk.documentIndex]! }))
    expect(encodeSnapshot({ ...source, documents, chunks })).toEqual(a)
  })

  it('re-encoding a decoded float32 snapshot gives the same bytes', () => {
    const bytes = encodeSnapshot(input({ encoding: 'float32' }, 384, 3))
    const snap = decodeSnapshot(bytes)
    const chunks = Array.from({ length: snap.chunkCount }, (_, c) => ({
      documentIndex: snap.chunkDocuments[c]!,
      vector: snap.vectors.subarray(c * 384, (c + 1) * 384),
      heading: chunkHeading(snap, c),
    }))
    expect(encodeSnapshot({ model: snap.model, documents: snap.documents, chunks, encoding: 'float32' })).toEqual(bytes)
  })

  it('lays sections out as documented: magic, version, length, CRC-32, aligned typed sections', () => {
    const bytes = encodeSnapshot(input({ lexical: true }))
    const dv = new DataView(bytes.buffer, bytes.byteOffset)
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x53, 0x4B, 0x56, 0x0D, 0x0A, 0x1A, 0x0A])
    expect(dv.getUint16(8, true)).toBe(2)
    expect(dv.getUint32(16, true)).toBe(bytes.length)
    expect(dv.getUint32(12, true)).toBe(zlibCrc32(bytes.subarray(16)))
    expect(crc32(bytes, 16)).toBe(zlibCrc32(bytes.subarray(16)))
    expect([dv.getUint32(20, true), dv.getUint32(24, true), dv.getUint32(28, true)]).toEqual([32, 5, 3])
    const sections = directory(bytes)
    expect([...sections.keys()]).toEqual(['META', 'CDOC', 'HEAD', 'SCAL', 'VECT', 'VREF', 'LTRM', 'LOFF', 'LPST', 'LFRQ', 'LLEN'])
    for (const s of sections.values())
      expect(s.offset % 16).toBe(0)
    const meta = JSON.parse(new TextDecoder().decode(bytes.subarray(sections.get('META')!.offset, sections.get('META')!.offset + sections.get('META')!.length)))
    expect(meta.documents[1]).toEqual(['backup', 'Restore deleted files.', 'backups', ['backups'], ['restore', 'recovery'], 'backup.md', 300])
    expect(meta.headings).toEqual([['Watering'], ['Watering', 'In winter'], ['Restore a backup'], [], ['Zeta']])
    expect(sections.get('VECT')).toMatchObject({ type: 4, length: 5 * 32 })
    expect(sections.get('SCAL')).toMatchObject({ type: 5, length: 5 * 4 })
    expect(sections.get('VREF')).toMatchObject({ type: 1, length: 5 * 32 * REFINE_BITS / 8 })
    expect(sections.get('CDOC')).toMatchObject({ type: 2, length: 5 * 2 })
  })

  it('decodes zero-copy from an aligned buffer, and copies when unaligned', () => {
    const bytes = encodeSnapshot(input({ encoding: 'float32', lexical: true }))
    const snap = decodeSnapshot(bytes)
    expect(snap.vectors.buffer).toBe(bytes.buffer)
    expect(snap.chunkDocuments.buffer).toBe(bytes.buffer)
    const shifted = new Uint8Array(bytes.length + 3)
    shifted.set(bytes, 3)
    const copy = decodeSnapshot(shifted.subarray(3))
    expect(copy.vectors.buffer).not.toBe(shifted.buffer)
    expect(copy).toEqual(snap)
    expect(decodeSnapshot(bytes.buffer)).toEqual(snap)
    expect(decodeSnapshot(Buffer.from(bytes))).toEqual(snap)
  })

  it('stores the lexical index of the chunks, sharing the chunk → document map', () => {
    const source = input({ lexical: true })
    const snap = decodeSnapshot(encodeSnapshot(source))
    // Each chunk's heading path and document ID are indexed with its text (fields).
    const built = buildLexicalIndex(source.chunks.map(c => ({ text: c.text!, documentIndex: c.documentIndex, heading: c.heading ?? [], documentId: source.documents[c.documentIndex]!.id })))
    expect(snap.lexical!.terms).toEqual(built.terms)
    expect([...snap.lexical!.offsets]).toEqual([...built.offsets])
    expect([...snap.lexical!.postings]).toEqual([...built.postings])
    expect([...snap.lexical!.frequencies]).toEqual([...built.frequencies])
    expect([...snap.lexical!.lengths]).toEqual([...built.lengths])
    expect(snap.lexical!.chunkDocuments).toBe(snap.chunkDocuments)
    expect(snap.lexical!.documentCount).toBe(3)
    // A prebuilt index gives the same bytes as `lexical: true`.
    expect(encodeSnapshot({ ...source, lexical: built })).toEqual(encodeSnapshot(source))
  })

  it('encodes an empty knowledge folder', () => {
    const snap = decodeSnapshot(encodeSnapshot({ model: 'm', documents: [], chunks: [], lexical: true }))
    expect(snap).toMatchObject({ dimensions: 0, chunkCount: 0, documents: [], headings: null })
    expect(snap.lexical!.terms).toEqual([])
  })

  it('fills defaults for missing document fields', () => {
    const snap = decodeSnapshot(encodeSnapshot({ model: 'm', documents: [{ id: 'a' }], chunks: [{ documentIndex: 0, vector: [1, 0] }] }))
    expect(snap.documents[0]).toEqual({ id: 'a', description: '', category: '', categories: [], tags: [], path: '', tokenCount: 0 })
  })

  it('stores a title that is not the ID, and reads rows without one (snapshots written before titles)', () => {
    const documents = [{ id: 'a', title: 'Alpha' }, { id: 'b', title: 'b' }, { id: 'c' }]
    const bytes = encodeSnapshot({ model: 'm', documents, chunks: [{ documentIndex: 0, vector: [1, 0] }] })
    const snap = decodeSnapshot(bytes)
    expect(snap.documents.map(d => [d.id, d.title])).toEqual([['a', 'Alpha'], ['b', undefined], ['c', undefined]])
    expect(snap.documents.map(documentTitle)).toEqual(['Alpha', 'b', 'c'])
    // Without titles, the bytes are those of a snapshot written before titles existed.
    const untitled = encodeSnapshot({ model: 'm', documents: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], chunks: [{ documentIndex: 0, vector: [1, 0] }] })
    expect(new TextDecoder().decode(untitled)).toContain('"documents":[["a","","",[],[],"",0],["b","","",[],[],"",0],["c","","",[],[],"",0]]')
    expect(() => encodeSnapshot({ model: 'm', documents: [{ id: 'a', title: 3 as unknown as string }], chunks: [] })).toThrow(/non-string title/)
  })

  it('rejects invalid input', () => {
    const base = input()
    expect(() => encodeSnapshot({ ...base, documents: [...DOCS, { id: 'backup' }] })).toThrow(/not unique/)
    expect(() => encodeSnapshot({ ...base, documents: [{ id: '' }] })).toThrow(/no ID/)
    expect(() => encodeSnapshot({ ...base, chunks: [{ documentIndex: 0, vector: new Array(32).fill(0) }] })).toThrow(/zero vector/)
    expect(() => encodeSnapshot({ ...base, chunks: [{ documentIndex: 0, vector: [Number.NaN, ...new Array(31).fill(1)] }] })).toThrow(/non-finite/)
    expect(() => encodeSnapshot({ ...base, chunks: [...base.chunks, { documentIndex: 0, vector: [1, 0] }] })).toThrow(/dimensions/)
    expect(() => encodeSnapshot({ ...base, chunks: [{ documentIndex: 3, vector: base.chunks[0]!.vector }] })).toThrow(/refers to document 3/)
    expect(() => encodeSnapshot({ ...base, lexical: true, chunks: [{ documentIndex: 0, vector: base.chunks[0]!.vector }] })).toThrow(/no text/)
    expect(() => encodeSnapshot({ ...base, lexical: buildLexicalIndex([{ text: 'x', documentIndex: 0 }]) })).toThrow(/not built from these chunks/)
    expect(() => encodeSnapshot({ ...base, documents: [{ id: 'a', tags: 'x' as unknown as string[] }], chunks: [] })).toThrow(/tags/)
  })
})

describe('snapshot without vectors (built with no model)', () => {
  const source = (): SnapshotInput => {
    const { documents, chunks } = input()
    return { model: '', encoding: 'none', lexical: true, documents, chunks: chunks.map(({ vector: _, ...chunk }) => chunk) }
  }
  const bytes = encodeSnapshot(source())

  it('is flagged in the header, has no vector sections, and keeps documents, headings and the lexical index', () => {
    const dv = new DataView(bytes.buffer, bytes.byteOffset)
    expect(dv.getUint16(8, true)).toBe(2) // the same format version: old readers reject the flag
    expect(dv.getUint16(10, true)).toBe(1)
    expect([...directory(bytes).keys()]).toEqual(['META', 'CDOC', 'HEAD', 'LTRM', 'LOFF', 'LPST', 'LFRQ', 'LLEN'])
    const snap = decodeSnapshot(bytes)
    expect(snap).toMatchObject({ model: '', encoding: 'none', dimensions: 0, chunkCount: 5, scales: null, refinement: null })
    expect(snap.vectors).toHaveLength(0)
    expect(snap.documents.map(d => d.id)).toEqual(['Zeta', 'backup', 'plants/watering'])
    expect(chunkHeading(snap, 1)).toEqual(['Watering', 'In winter'])
    expect(searchLexical(snap, 'winter water')[0]).toMatchObject({ id: 'plants/watering', heading: ['Watering', 'In winter'] })
    expect(() => searchVectors(snap, [1, 0])).toThrow(expect.objectContaining({ name: 'KnowledgeError', code: 'no-vectors', message: 'This snapshot has no vectors (it was built with no model): search it with searchLexical.' }))
  })

  it('needs the lexical index and no vectors', () => {
    expect(() => encodeSnapshot({ ...source(), lexical: false })).toThrow('Cannot encode the knowledge snapshot: a snapshot without vectors needs the lexical index.')
    expect(() => encodeSnapshot({ ...source(), chunks: input().chunks })).toThrow('Cannot encode the knowledge snapshot: chunk 0 has a vector, but the encoding is "none".')
  })

  it('rejects a flag that contradicts the sections, and unknown flags', () => {
    const dv = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset)
    const withVectors = encodeSnapshot(input({ lexical: true }))
    const flagged = withVectors.slice()
    dv(flagged).setUint16(10, 1, true)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(flagged)), 'corrupt').message).toBe('Corrupt knowledge snapshot: it is flagged as having no vectors, yet has 32 dimensions. Rebuild it.')
    dv(flagged).setUint32(20, 0, true)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(flagged)), 'corrupt').message).toBe('Corrupt knowledge snapshot: it is flagged as having no vectors, yet has section SCAL, VECT, VREF. Rebuild it.')
    const unflagged = bytes.slice()
    dv(unflagged).setUint16(10, 0, true)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(unflagged)), 'corrupt').message).toBe('Corrupt knowledge snapshot: section VECT is missing. Rebuild it.')
    const unknown = bytes.slice()
    dv(unknown).setUint16(10, 9, true)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(unknown)), 'corrupt').message).toBe('Corrupt knowledge snapshot: unknown header flags. Rebuild it.')
    // Bit 1 marks the core of a sharded snapshot, which is read with its shards.
    dv(unknown).setUint16(10, 3, true)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(unknown)), 'sharded').message).toBe('This is the core of a sharded knowledge snapshot (the plugin\'s shards option): it is read with its shards by the generated knowledge module, not decoded alone.')
    // Without its lexical index (its sections renamed, as a reader ignores unknown tags), nothing is searchable.
    const bare = bytes.slice()
    for (const tag of ['LTRM', 'LOFF', 'LPST', 'LFRQ', 'LLEN'])
      bare.set([0x58, 0x58, 0x58, tag.charCodeAt(1)], directory(bytes).get(tag)!.entry)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(bare)), 'corrupt').message).toBe('Corrupt knowledge snapshot: it has neither vectors nor a lexical index. Rebuild it.')
  })
})

describe('snapshot errors', () => {
  const bytes = encodeSnapshot(input({ lexical: true }))

  it('fails clearly on every truncation, never returning a partial snapshot', () => {
    for (let length = 0; length < bytes.length; length++) {
      const error = expectSnapshotError(() => decodeSnapshot(bytes.slice(0, length)))
      expect(['not-a-snapshot', 'truncated']).toContain(error.code)
    }
    expect(expectSnapshotError(() => decodeSnapshot(bytes.slice(0, 100))).message).toMatch(`Truncated knowledge snapshot: 100 of ${bytes.length} bytes`)
  })

  it('detects every single flipped bit… of every byte (checksum or header check)', () => {
    for (let i = 0; i < bytes.length; i++) {
      const copy = bytes.slice()
      copy[i]! ^= 1 << (i % 8)
      expectSnapshotError(() => decodeSnapshot(copy))
    }
    const copy = bytes.slice()
    copy[bytes.length - 1]! ^= 0xFF
    expect(expectSnapshotError(() => decodeSnapshot(copy), 'checksum').message).toMatch(/checksum mismatch/)
  })

  it('names what is wrong: magic, version, trailing bytes', () => {
    expectSnapshotError(() => decodeSnapshot(new TextEncoder().encode('{"schema":1,"documents":[]}')), 'not-a-snapshot')
    const future = bytes.slice()
    future[8] = 3
    expect(expectSnapshotError(() => decodeSnapshot(future), 'unsupported-version').message).toBe('Unsupported knowledge snapshot format version 3; this reader reads version 2. Rebuild the snapshot with the same version of unplugin-skill-kit.')
    const old = bytes.slice()
    old[8] = 1
    expect(expectSnapshotError(() => decodeSnapshot(old), 'unsupported-version').message).toBe('Unsupported knowledge snapshot format version 1; this reader reads version 2. Rebuild the snapshot with the same version of unplugin-skill-kit.')
    const longer = new Uint8Array(bytes.length + 1)
    longer.set(bytes)
    expect(expectSnapshotError(() => decodeSnapshot(longer), 'corrupt').message).toMatch(/1 unexpected bytes/)
  })

  it('checks structure even where the checksum matches (or is not verified)', () => {
    const sections = directory(bytes)
    const dv = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset)

    const badDoc = bytes.slice()
    dv(badDoc).setUint16(sections.get('CDOC')!.offset, 7, true)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(badDoc)), 'corrupt').message).toMatch(/CDOC\[0\] = 7 is out of range/)

    const badJson = bytes.slice()
    badJson[sections.get('META')!.offset] = 0x5B // '[' instead of '{'
    expect(expectSnapshotError(() => decodeSnapshot(reseal(badJson)), 'corrupt').message).toMatch(/META/)

    const pastEnd = bytes.slice()
    dv(pastEnd).setUint32(sections.get('VECT')!.entry + 12, bytes.length, true)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(pastEnd)), 'corrupt').message).toMatch(/VECT/)

    const unsorted = bytes.slice()
    const post = sections.get('LPST')!
    const p = dv(unsorted)
    // The first term with two or more postings: swap them.
    const lexical = decodeSnapshot(bytes).lexical!
    const t = lexical.terms.findIndex((_, i) => lexical.offsets[i + 1]! - lexical.offsets[i]! >= 2)
    const at = post.offset + lexical.offsets[t]! * 2
    const first = p.getUint16(at, true)
    p.setUint16(at, p.getUint16(at + 2, true), true)
    p.setUint16(at + 2, first, true)
    expect(expectSnapshotError(() => decodeSnapshot(reseal(unsorted)), 'corrupt').message).toMatch(/not ascending/)

    const zeroScale = bytes.slice()
    dv(zeroScale).setFloat32(sections.get('SCAL')!.offset, 0, true)
    expectSnapshotError(() => decodeSnapshot(zeroScale, { verify: false }), 'corrupt')
  })
})
