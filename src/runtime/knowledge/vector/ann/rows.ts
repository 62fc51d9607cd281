// Which vector shard holds a document's rows, in a sharded snapshot with
// vector cells (written by src/knowledge/snapshot-shards.ts). An approximate
// search reads the rows of a few dozen documents; over HTTP/1.1's six
// connections each shard costs a request, so the writer puts documents a
// query tends to read together into the same shard
// (src/knowledge/vector-row-groups.ts). The centroid shard holds
//   RORD  u16|u32  every document once, in the order the vector shards hold them; empty for id
//                  order (at 100,000 chunks, 10,000 ids added 17 KiB to every vector search)
// and a vector shard's [from, to) is a range of RORD's positions, not of
// chunks: it holds the rows of documents RORD[from], …, RORD[to − 1], each
// document's chunks ascending (SCAL, VECT and VREF alike).

import type { IndexArray } from '../../format/snapshot-layout'
import type { SnapshotContainer } from '../../format/snapshot-container'
import { corrupt, view } from '../../format/snapshot-container'
import { ElementType } from '../../format/snapshot-layout'

/** The documents in the order the vector shards hold them, and each document's position in it. */
export interface RowOrder {
  documents: Uint32Array
  positions: Uint32Array
}

/** Reads RORD from the centroid shard: every one of `documentCount` documents exactly once. */
export function readRowOrder({ bytes, sections }: SnapshotContainer, documentCount: number): RowOrder {
  const rord = sections.get('RORD')
  if (!rord || (rord.type !== ElementType.u16 && rord.type !== ElementType.u32))
    corrupt('its centroid shard lacks its u16 or u32 RORD section (a snapshot of an earlier version: build it again)')
  if (rord.length === 0) {
    const identity = Uint32Array.from({ length: documentCount }, (_, d) => d)
    return { documents: identity, positions: identity }
  }
  const width = rord.type === ElementType.u16 ? 2 : 4
  if (rord.length !== documentCount * width)
    corrupt(`its centroid shard's RORD lists ${rord.length / width} documents, not ${documentCount}`)
  const documents = Uint32Array.from(view(bytes, rord, rord.type, documentCount) as IndexArray)
  const positions = new Uint32Array(documentCount).fill(documentCount)
  for (const [p, d] of documents.entries()) {
    if (d >= documentCount || positions[d] !== documentCount)
      corrupt(`its centroid shard's RORD does not list every document once (document ${d} at ${p})`)
    positions[d] = p
  }
  return { documents, positions }
}

/**
 * The chunks whose rows a vector shard of positions [from, to) holds, in its
 * order: each document's chunks (`offsets` and `chunks` as documentChunks in
 * ../search-refine.ts gives them), document after document.
 */
export function shardChunks(order: RowOrder, offsets: Uint32Array, chunks: Uint32Array, from: number, to: number): Uint32Array {
  const parts = Array.from(order.documents.subarray(from, to), d => chunks.subarray(offsets[d]!, offsets[d + 1]!))
  const out = new Uint32Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
