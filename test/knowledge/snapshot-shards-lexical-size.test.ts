// The default size of lexical shards follows the postings' size: small
// snapshots get small shards (a query fetches a shard a term, so fewer
// bytes), large ones keep 16 KiB (the core's directory lists every shard).

import type { SnapshotChunkInput } from '../../src/knowledge/snapshot'
import { describe, expect, it } from 'vitest'
import { encodeSnapshot } from '../../src/knowledge/snapshot'
import { DEFAULT_LEXICAL_SHARD_BYTES, lexicalShardBytesFor, MIN_LEXICAL_SHARD_BYTES } from '../../src/knowledge/snapshot-shard-sizes'
import { encodeShardedSnapshot } from '../../src/knowledge/snapshot-shards'

/** 600 chunks of 30 words from a vocabulary of 3,000 (seeded): about 40 KiB of postings. */
function snapshot(): Uint8Array {
  let seed = 7
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
  const words = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}q`)
  const chunks: SnapshotChunkInput[] = Array.from({ length: 600 }, (_, c) => ({
    documentIndex: Math.floor(c / 6),
    heading: [`Section ${c}`],
    text: Array.from({ length: 30 }, () => words[Math.floor(next() ** 2 * words.length)]).join(' '),
  }))
  const documents = Array.from({ length: 100 }, (_, d) => ({ id: `doc-${d}`, description: `Document ${d}` }))
  return encodeSnapshot({ model: '', encoding: 'none', documents, chunks, lexical: true })
}

describe('default lexical shard size', () => {
  it('is about 1/128 of the postings, from 2 to 16 KiB', () => {
    expect(lexicalShardBytesFor(40 * 1024)).toBe(MIN_LEXICAL_SHARD_BYTES)
    expect(lexicalShardBytesFor(128 * 3000)).toBe(3000)
    expect(lexicalShardBytesFor(30 * 1024 * 1024)).toBe(DEFAULT_LEXICAL_SHARD_BYTES)
  })

  it('shards a small snapshot\'s postings 2 KiB at a time, byte for byte as asked explicitly', () => {
    const bytes = snapshot()
    const files = encodeShardedSnapshot(bytes)
    const explicit = encodeShardedSnapshot(bytes, { lexicalBytes: 2048 })
    expect(files.shards.length).toBe(explicit.shards.length)
    expect(Buffer.from(files.core).equals(Buffer.from(explicit.core))).toBe(true)
    files.shards.forEach((shard, i) => expect(Buffer.from(shard).equals(Buffer.from(explicit.shards[i]!))).toBe(true))
    // Every shard of this snapshot is lexical: smaller shards are more of them.
    expect(files.shards.length).toBeGreaterThan(3 * encodeShardedSnapshot(bytes, { lexicalBytes: DEFAULT_LEXICAL_SHARD_BYTES }).shards.length)
  })
})
