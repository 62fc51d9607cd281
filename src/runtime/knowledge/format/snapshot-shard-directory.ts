// The directory of a sharded knowledge snapshot (format: snapshot-shards.ts):
// what each shard holds, as the core (or, with vector cells, the centroid
// shard) lists it, and where shards come from.

import type { SnapshotContainer } from './snapshot-container'
import { KnowledgeError } from '../errors'
import { corrupt, metaOf, SnapshotError, view } from './snapshot-container'
import { ElementType } from './snapshot-layout'

/** What a shard holds. */
export const ShardKind = { lexical: 0, vectors: 1, refinement: 2, cell: 3, centroids: 4 } as const

/** One shard as the core lists it. */
export interface ShardEntry {
  kind: typeof ShardKind[keyof typeof ShardKind]
  /** First term (lexical), chunk (vectors, refinement) or cell. */
  from: number
  /** One past the last. */
  to: number
  byteLength: number
  crc: number
}

/** Values of SDIR before its entries, and per entry. */
export const SDIR_HEAD = 3
export const SDIR_ENTRY = 5
/** Values of a shard's SHRD section. */
export const SHRD_LENGTH = 5

/** Where the shards come from: their bytes, and a name for messages (a URL or a file). */
export interface ShardSource {
  load: (index: number) => Promise<ArrayBufferLike | ArrayBufferView>
  name: (index: number) => string
  /** How many shards the source has, when it knows: a core that lists another number is refused. */
  count?: number
  /** The core's name for messages (a URL or a file), when the source knows it. */
  coreName?: string
}

/**
 * A snapshot file that cannot be decoded (a {@link SnapshotError}: truncated,
 * wrong magic bytes, bad checksum…) as the knowledge base reports it: a
 * KnowledgeError `snapshot-unavailable` naming the file (`what`), with the
 * SnapshotError as its cause. Any other error is returned as it is.
 */
export function unreadableSnapshot(error: unknown, what: string): unknown {
  if (!(error instanceof SnapshotError))
    return error
  return new KnowledgeError('snapshot-unavailable', `Cannot read the ${what}: ${error.message}`, { cause: error })
}

/** The shard directory of a core, or of its centroid shard, which lists the shards after it (its SDIR section). */
export function readDirectory(container: SnapshotContainer): { vectorType: number, snapshotCrc: number, shards: ShardEntry[] } {
  const section = container.sections.get('SDIR')
  if (!section || section.type !== ElementType.u32 || section.length < SDIR_HEAD * 4)
    corrupt('the sharded core or its centroid shard has no u32 SDIR section')
  const head = view(container.bytes, section, ElementType.u32, section.length / 4) as Uint32Array
  const count = head[2]!
  if (head.length !== SDIR_HEAD + count * SDIR_ENTRY)
    corrupt(`its shard directory does not hold ${count} shards`)
  const shards: ShardEntry[] = []
  for (let s = 0; s < count; s++) {
    const at = SDIR_HEAD + s * SDIR_ENTRY
    const [kind, from, to, byteLength, crc] = head.subarray(at, at + SDIR_ENTRY) as unknown as number[]
    if ((kind !== ShardKind.lexical && kind !== ShardKind.vectors && kind !== ShardKind.refinement && kind !== ShardKind.cell && kind !== ShardKind.centroids) || !(from! < to!))
      corrupt(`shard ${s} has an invalid kind or range`)
    shards.push({ kind, from: from!, to: to!, byteLength: byteLength!, crc: crc! })
  }
  return { vectorType: head[0]!, snapshotCrc: head[1]!, shards }
}

/** The CRC-32 of the document table the core's META stands in for (see `coreMeta` of the writer). */
export function documentsCrcOf(core: SnapshotContainer): unknown {
  const meta = metaOf(core)
  return typeof meta === 'object' && meta !== null ? (meta as { documentsCrc?: unknown }).documentsCrc : undefined
}
