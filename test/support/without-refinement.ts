// A snapshot's bytes without its refinement bits (VREF, META.refineBits):
// the int8 ranking an approximate search of its sharded form makes, which
// never reads refinement bits (src/runtime/knowledge/vector/search.ts).

import type { PendingSection } from '../../src/knowledge/snapshot-sections'
import { assemble } from '../../src/knowledge/snapshot-sections'
import { readContainer } from '../../src/runtime/knowledge/format/snapshot-container'

export function withoutRefinement(snapshot: Uint8Array): Uint8Array {
  const { bytes, sections, dimensions, chunkCount, documentCount, flags } = readContainer(snapshot, true, 0xFF)
  const kept: PendingSection[] = []
  for (const [tag, section] of sections) {
    let body = bytes.subarray(section.offset, section.offset + section.length)
    if (tag === 'VREF')
      continue
    if (tag === 'META') {
      const { refineBits: _, ...meta } = JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown>
      body = new TextEncoder().encode(JSON.stringify(meta))
    }
    kept.push({ tag, type: section.type as PendingSection['type'], bytes: body })
  }
  return assemble(dimensions, chunkCount, documentCount, kept, flags)
}
