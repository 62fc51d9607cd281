// What a built knowledge index gives a query table for free: its documents'
// texts and its windows with the vectors the snapshot already holds (the model
// need not run again for them).

import type { ChunkConfig } from '../config'
import type { Embedder } from '../embedder'
import type { KnowledgeIndex } from '../build'
import type { QueryTableCorpus, TrainingWindow } from './distil'
import { decodeSnapshot } from '../../runtime/knowledge/format/snapshot-reader'
import { chunkContext } from '../build'
import { tokenWindows } from '../windows'

/**
 * The corpus of a table for a built index: its documents' bodies, and its
 * windows cut again as `buildKnowledgeIndex` cut them (same embedder, same
 * chunk settings) with the snapshot's vectors. The windows are left out when
 * they do not line up with the snapshot's rows (another embedder or settings).
 */
export function queryTableCorpus(index: Pick<KnowledgeIndex, 'documents' | 'chunks' | 'snapshot'>, embedder: Embedder, chunk: ChunkConfig): QueryTableCorpus {
  const texts = index.documents.map(d => d.body)
  const snapshot = decodeSnapshot(index.snapshot)
  if (snapshot.encoding !== 'int8' && snapshot.encoding !== 'float32')
    return { texts }
  const options = {
    maxTokens: Math.min(chunk.maxTokens, embedder.maxTokens),
    overlapTokens: chunk.overlapTokens,
    reserved: embedder.reservedTokens.document,
  }
  const tokens: number[][] = []
  for (const c of index.chunks) {
    const document = index.documents[c.document]!
    tokens.push(...tokenWindows(embedder.tokenize(`${chunkContext(document, c)}\n`), embedder.tokenize(c.text), options))
  }
  const D = snapshot.dimensions
  if (tokens.length !== snapshot.chunkCount || D === 0)
    return { texts }
  const windows: TrainingWindow[] = tokens.map((window, row) => {
    const stored = snapshot.vectors.subarray(row * D, (row + 1) * D)
    const scale = snapshot.scales?.[row] ?? 1
    return { tokens: window, vector: Float32Array.from(stored, v => v * scale) }
  })
  return { texts, windows }
}
