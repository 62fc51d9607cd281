// Reads a sharded knowledge snapshot: a small core fetched first, and shards
// fetched as searches need them (written by `src/knowledge/snapshot-shards.ts`).
// Modelled on Pagefind's chunked index: a lexical search loads only the
// slices of postings its terms need; vector search loads every vector shard,
// in parallel, while the query model loads, and then the refinement bits of
// the few documents near its cut only (int8). A core with vector cells
// (vector/ann/cells.ts) makes vector search approximate: once the query is embedded,
// it loads the cells nearest it (low-bit codes of their chunks; all of them,
// with the centroids, where a search reads every cell), then the rows
// of the documents their codes rank highest and of those lexical search ranks
// highest, and ranks those only (vector/ann/candidates.ts), then the refinement bits of the few near its cut, until every row is in
// (loadVectors, loadAll), when it is exact again.
//
// The core is a snapshot file (see snapshot-reader.ts) flagged SHARDED_CORE:
// CDOC, HEAD, LTRM and LLEN as in a whole snapshot; META without its document
// table, which the knowledge module carries already, but with its CRC-32
// ("documentsCrc", of the table's JSON) to check the module's against; each
// term's document frequency in place of LOFF (so BM25, typo correction and
// joined words work from the core alone); no LPST, LFRQ, SCAL, VECT or VREF.
// Its own sections:
//   LDFV  u8   per term, its posting count as an unsigned LEB128 varint (LOFF is their running sum)
//   SDIR  u32  [VECT element type (0 with NO_VECTORS), CRC-32 of the whole snapshot, shard count S,
//              then per shard: kind (0 lexical, 1 vectors, 2 refinement, 3 cell, 4 centroids), from, to,
//              byte length, CRC-32 of the shard file]; with vector cells, the shards up to the centroid
//              shard only, whose own SDIR lists the others (a search that needs them fetches it first)
//   ACFG  u32  the vector cells, optional (see vector/ann/cells.ts)
// A lexical shard holds the postings of terms [from, to); a vector or
// refinement shard the rows of chunks [from, to) (with vector cells, those of
// documents [from, to) of the row order, vector/ann/rows.ts: a search reads a document's rows whole, and where it
// reads every cell each vector shard has a refinement shard of the same documents); a cell shard cells
// [from, to) (one), its chunks listed in it; the centroid shard the centroids
// of cells [from, to) (all; ann/cells.ts). Each shard is a snapshot
// file flagged SHARD with
//   SHRD  u32  [CRC-32 of the whole snapshot, shard index, kind, from, to]
// and the slices: LPST and LFRQ (lexical); SCAL (int8) and VECT (vectors); VREF
// (refinement, int8 snapshots with refinement bits only; with vector cells where a search reads some, in the
// vector shards instead); CROW, CSTP and
// CCOD (cell); ACSC, SDIR and ACEN (centroids).
//
// The reader fills full-size typed arrays as shards arrive, so the ordinary
// `Snapshot` it returns is searched by the ordinary search functions, and
// ranks exactly as the whole snapshot does once the shards a search reads are
// in. A shard whose CRC-32 is not the one the core lists (another build's, or
// damaged) is refused with a KnowledgeError, never searched; so is a damaged
// core or shard (`snapshot-unavailable`, the SnapshotError as its cause), so
// that callers handle one documented error.

import type { Snapshot, SnapshotDocument } from './snapshot-layout'
import type { SnapshotContainer } from './snapshot-container'
import { createCandidateIndex, setCandidateIndex } from '../vector/ann/candidates'
import type { CellCodes } from '../vector/ann/cells'
import { fillCentroids, readCell, readPartition } from '../vector/ann/cells'
import type { RowOrder } from '../vector/ann/rows'
import { readRowOrder, shardChunks } from '../vector/ann/rows'
import type { ShardEntry, ShardSource } from './snapshot-shard-directory'
import { KnowledgeError } from '../errors'
import { documentsCrcOf, readDirectory, ShardKind, SHRD_LENGTH, unreadableSnapshot } from './snapshot-shard-directory'
import { scoredTerms } from '../lexical/searched-terms'
import { documentChunks } from '../ranking/search-refine'
import { bytesOf, corrupt, readContainer, view } from './snapshot-container'
import { decodeContainer } from './snapshot-reader'
import { fillDocumentRefinement, fillDocumentRows, fillPostings, fillRefinement, fillVectorRange } from './shard-fill'
import { crc32 } from './crc32'
import { documentRow, ElementType, FLAG_NO_VECTORS, FLAG_SHARD, FLAG_SHARDED_CORE } from './snapshot-layout'


export { SDIR_ENTRY, SDIR_HEAD, ShardKind, SHRD_LENGTH, unreadableSnapshot } from './snapshot-shard-directory'
export type { ShardEntry, ShardSource } from './snapshot-shard-directory'

/** A sharded snapshot being loaded: its snapshot answers a search once that search's shards are in. */
export interface ShardedSnapshot {
  /** The snapshot; postings and vectors are zero until their shards are in. */
  readonly snapshot: Snapshot
  /** The shards the core lists; with vector cells, those the centroid shard lists follow once it is in. */
  readonly shards: readonly ShardEntry[]
  /** Loads the lexical shards holding the postings a lexical search of `query` reads. */
  loadLexical: (query: string) => Promise<void>
  /**
   * Loads every vector shard (in parallel): the vectors, without the refinement bits that {@link ranked} loads as needed.
   * With vector cells, their centroids, and asks for every cell when a search reads every cell (probe ≥ cells);
   * otherwise which cells a search reads depends on its query, so {@link ranked} loads them.
   */
  loadVectorRows: () => Promise<void>
  /** Loads every vector and refinement shard: any vector search is exact from then on. */
  loadVectors: () => Promise<void>
  /**
   * Runs `rank`, a search of {@link snapshot} once the shards it reads are in
   * ({@link loadLexical}, {@link loadVectorRows}), and again after loading the
   * refinement bits it wanted, if any: the result is the whole snapshot's.
   */
  ranked: <T>(rank: () => T) => Promise<T>
  /** Loads every shard: the complete snapshot. */
  loadAll: () => Promise<Snapshot>
}


/**
 * Opens the core of a sharded snapshot (its bytes), with the documents its
 * knowledge module lists (the core holds only their CRC-32); shards are
 * loaded from `source` as searches need them, each once (again after a
 * failure). Throws a KnowledgeError: `snapshot-unavailable` for a core or
 * shard that is not intact, `snapshot-mismatch` for documents or shards of
 * another build.
 */
export function openShardedSnapshot(coreBytes: ArrayBufferLike | ArrayBufferView, documents: readonly SnapshotDocument[], source: ShardSource): ShardedSnapshot {
  try {
    return openCore(coreBytes, documents, source)
  }
  catch (error) {
    throw unreadableSnapshot(error, `knowledge snapshot core${source.coreName ? ` ${source.coreName}` : ''}`)
  }
}

function openCore(coreBytes: ArrayBufferLike | ArrayBufferView, documents: readonly SnapshotDocument[], source: ShardSource): ShardedSnapshot {
  const core = readContainer(coreBytes, true, FLAG_NO_VECTORS | FLAG_SHARDED_CORE)
  if ((core.flags & FLAG_SHARDED_CORE) === 0)
    corrupt('it is not the core of a sharded snapshot')
  const { vectorType, snapshotCrc, shards } = readDirectory(core)
  const withVectors = (core.flags & FLAG_NO_VECTORS) === 0
  const table = new TextEncoder().encode(JSON.stringify(documents.map(documentRow)))
  if (documents.length !== core.documentCount || crc32(table) !== documentsCrcOf(core))
    throw new KnowledgeError('snapshot-mismatch', `The knowledge snapshot core does not list the ${documents.length} documents its module does: they come from different builds. Deploy the build's whole output folder again, so that all of its files match.`)
  const snapshot = decodeContainer(core, { sharded: { vectorType, documents: [...documents] } })
  const lexical = snapshot.lexical
  // With vector cells, the core lists the shards up to the centroid shard, which lists the others (vector searches only need them).
  const partition = withVectors ? readPartition(core) : null
  const total = partition ? partition.shardCount : shards.length
  if (source.count !== undefined && source.count !== total)
    throw new KnowledgeError('snapshot-mismatch', `The knowledge snapshot core lists ${total} shards where its module names ${source.count}: they come from different builds. Deploy the build's whole output folder again, so that all of its files match.`)
  /**
   * With cells where a search reads some of them, a row's refinement bits come in its vector shard, and an
   * approximate search refines its candidates' scores; where it reads every cell, they have shards of their own,
   * which only exact search reads (see the writer).
   */
  const bitsWithRows = partition !== null && partition.probe < partition.count
  /** Whether every shard is listed: always without cells, once the centroid shard is in with them. */
  let listed = !partition
  /** With cells, the documents in the order the vector shards hold them (vector/ann/rows.ts), once the centroid shard is in. */
  let rowOrder: RowOrder | undefined
  // Every term, chunk and cell is in exactly one shard of its kind, in order.
  const checkTiling = () => {
    const ends = [0, 0, 0, 0, 0]
    for (const shard of shards) {
      if (shard.from !== ends[shard.kind] || (shard.kind === ShardKind.cell && shard.to !== shard.from + 1))
        corrupt('its shards do not tile the terms, chunks and cells')
      ends[shard.kind] = shard.to
    }
    const rows = (here: boolean) => listed && here ? snapshot.chunkCount : 0
    // With cells, vector shards tile the positions of the row order, a document each.
    const documentRows = (here: boolean) => listed && here ? snapshot.documents.length : 0
    if (ends[ShardKind.lexical] !== (lexical?.terms.length ?? 0) || ends[ShardKind.vectors] !== (partition ? documentRows(withVectors) : rows(withVectors)) || ends[ShardKind.refinement] !== (partition ? documentRows : rows)(snapshot.refinement !== null && !bitsWithRows)
      || ends[ShardKind.cell] !== (listed ? partition?.count ?? 0 : 0) || ends[ShardKind.centroids] !== (partition?.count ?? 0) || (listed && shards.length !== total))
      corrupt('its shards do not tile the terms, chunks and cells')
  }
  const indexesOf = (kind: ShardEntry['kind']) => shards.flatMap((shard, i) => shard.kind === kind ? [i] : [])
  let lexicalShards: number[], vectorShards: number[], refinementShards: number[], cellShards: number[]
  const reindex = () => {
    checkTiling()
    ;[lexicalShards, vectorShards, refinementShards, cellShards] = [ShardKind.lexical, ShardKind.vectors, ShardKind.refinement, ShardKind.cell].map(indexesOf) as [number[], number[], number[], number[]]
  }
  reindex()
  const centroidShard = indexesOf(ShardKind.centroids)[0]!
  const loading = new Map<number, Promise<void>>()
  /** Shard files asked for before the directory lists them (the cells, with the centroid shard): each is read once, by {@link load}. */
  const early = new Map<number, ReturnType<ShardSource['load']>>()
  const fetchShard = (index: number): ReturnType<ShardSource['load']> => {
    const asked = early.get(index)
    early.delete(index)
    return asked ?? source.load(index)
  }
  /** Shards filled, by kind: once all of a kind are in, searches await nothing. */
  const filled = [0, 0, 0, 0, 0]
  /** Whether each shard is filled. */
  const loaded = new Uint8Array(total)
  const load = (index: number): Promise<void> => {
    let promise = loading.get(index)
    if (!promise) {
      promise = fetchShard(index).then((bytes) => {
        const { kind } = shards[index]!
        try {
          fill(index, bytesOf(bytes))
        }
        catch (error) {
          throw unreadableSnapshot(error, `knowledge snapshot shard ${source.name(index)}`)
        }
        loaded[index] = 1
        // Once every refinement shard is in (or every vector shard, where they hold the bits), searches have no bits left to ask for.
        const bitsIn = bitsWithRows ? ShardKind.vectors : ShardKind.refinement
        if (++filled[kind]! === (bitsWithRows ? vectorShards : refinementShards).length && kind === bitsIn && listed)
          delete snapshot.refinement?.pending
        // Once every row is in, vector search is exact again.
        if (listed && partition && filled[ShardKind.vectors] === vectorShards.length)
          setCandidateIndex(snapshot, undefined)
      })
      promise.catch(() => loading.delete(index))
      loading.set(index, promise)
    }
    return promise
  }

  /** Checks shard `index` against the core and copies its slices into the snapshot's arrays. */
  const fill = (index: number, bytes: Uint8Array): void => {
    const entry = shards[index]!
    const actual = bytes.length >= 16 ? crc32(bytes, 16) : 0
    if (bytes.length !== entry.byteLength || actual !== entry.crc) {
      throw new KnowledgeError('snapshot-mismatch', `The knowledge snapshot shard ${source.name(index)} does not belong to its core (${bytes.length} bytes with CRC-32 ${hex(actual)}; the core lists ${entry.byteLength} bytes with ${hex(entry.crc)}): the core and its shards come from different builds, or the shard was damaged in transfer. Deploy the build's whole output folder again, so that all of its files match.`)
    }
    const shard = readContainer(bytes, false, FLAG_SHARD)
    const shrd = shard.sections.get('SHRD')
    if (!shrd || shrd.type !== ElementType.u32)
      corrupt(`shard ${index} has no u32 SHRD section`)
    const [crc, at, kind, from, to] = view(bytes, shrd, ElementType.u32, SHRD_LENGTH) as Uint32Array
    if (crc !== snapshotCrc || at !== index || kind !== entry.kind || from !== entry.from || to !== entry.to)
      corrupt(`shard ${index} is not the one its core lists`)
    if (entry.kind === ShardKind.lexical)
      fillPostings(snapshot, shard, entry)
    else if (entry.kind === ShardKind.vectors)
      fillVectors(shard, entry)
    else if (entry.kind === ShardKind.cell)
      cells[entry.from] = readCell(partition!, shard, entry.from, snapshot.chunkCount)
    else if (entry.kind === ShardKind.centroids)
      fillCentroidShard(shard, index)
    else if (partition)
      fillDocumentRefinement(snapshot, shard, documentRowsOf(entry))
    else fillRefinement(snapshot, shard, entry)
  }

  /** The centroids, and the directory of the shards after them. */
  const fillCentroidShard = (shard: SnapshotContainer, index: number): void => {
    const rest = readDirectory(shard)
    if (rest.vectorType !== vectorType || rest.snapshotCrc !== snapshotCrc || index + 1 + rest.shards.length !== total)
      corrupt('its centroid shard lists the shards of another snapshot')
    if (snapshot.refinement && !bitsWithRows && !rest.shards.some(entry => entry.kind === ShardKind.refinement))
      corrupt('its centroid shard lists no refinement shards (a snapshot of an earlier version, whose vector shards held the bits: build it again)')
    fillCentroids(partition!, shard)
    rowOrder = readRowOrder(shard, snapshot.documents.length)
    shards.push(...rest.shards)
    listed = true
    reindex()
  }

  /** With cells, the chunks whose rows a vector or refinement shard holds, in its order. */
  const documentRowsOf = ({ from, to }: ShardEntry) => {
    const { offsets, chunks } = documentChunks(snapshot)
    return shardChunks(rowOrder!, offsets, chunks, from, to)
  }

  const fillVectors = (shard: SnapshotContainer, entry: ShardEntry): void => {
    if (!partition)
      return fillVectorRange(snapshot, vectorType, shard, entry.from, entry.to)
    for (const c of fillDocumentRows(snapshot, vectorType, shard, documentRowsOf(entry), bitsWithRows))
      rowLoaded![c] = 1
  }

  /** The shard of `kinds` (in order) whose range holds `at`: the last that starts at or before it. */
  const shardAt = (kinds: readonly number[], at: number): number => {
    let lo = 0
    let hi = kinds.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (shards[kinds[mid]!]!.from <= at)
        lo = mid
      else hi = mid - 1
    }
    return kinds[lo]!
  }

  // Refinement bits are fetched for the chunks a search rescores: until all are in, searches say which they want.
  /** The vector shard holding chunk `c`'s row: with cells, its document's, by the document's position in the row order. */
  const vectorShardOf = (c: number): number => shardAt(vectorShards, partition ? rowOrder!.positions[snapshot.chunkDocuments[c]!]! : c)
  /** The shard holding chunk `c`'s refinement bits: with cells, its document's (its vector shard, where that holds the bits), by the document's position in the row order. */
  const refinementShardOf = (c: number): number => bitsWithRows ? vectorShardOf(c) : shardAt(refinementShards, partition ? rowOrder!.positions[snapshot.chunkDocuments[c]!]! : c)
  if (snapshot.refinement && (refinementShards!.length > 0 || !listed))
    snapshot.refinement.pending = { missing: chunk => !listed || loaded[refinementShardOf(chunk)] === 0, wanted: new Set() }
  // With vector cells, searches read the candidates their query selects until every row is in.
  const rowLoaded = partition ? new Uint8Array(snapshot.chunkCount) : undefined
  const cells: (CellCodes | undefined)[] = []
  /** Cell and vector shards an approximate search asked for. */
  const cellsWanted = new Set<number>()
  if (partition) {
    setCandidateIndex(snapshot, createCandidateIndex({
      snapshot,
      partition,
      refines: bitsWithRows,
      cell: j => cells[j],
      rowLoaded: c => rowLoaded![c] === 1,
      wantCentroids: () => cellsWanted.add(centroidShard),
      wantCell: j => cellsWanted.add(cellShards[j]!),
      wantRow: c => cellsWanted.add(vectorShardOf(c)),
      rowGroup: (d) => {
        const { from, to } = shards[shardAt(vectorShards, rowOrder!.positions[d]!)]!
        return rowOrder!.documents.subarray(from, to)
      },
    }))
  }
  const loadVectorRows = async (): Promise<void> => {
    if (partition) {
      // A search that reads every cell reads them whatever its query: they are asked for with the centroids, not a
      // round trip after the embedding, and not awaited (the search that reads them awaits them; a failed one is asked for again).
      // The cells are the directory's last shards, so their files are asked for before the centroid shard lists them.
      const everyCell = partition.probe >= partition.count
      if (everyCell && !listed) {
        for (let index = total - partition.count; index < total; index++) {
          if (!loading.has(index) && !early.has(index)) {
            const asked = source.load(index)
            asked.catch(() => {})
            early.set(index, asked)
          }
        }
      }
      await load(centroidShard)
      if (everyCell)
        cellShards.forEach(i => load(i).catch(() => {}))
      return
    }
    if (filled[ShardKind.vectors] !== vectorShards.length)
      await Promise.all(vectorShards.map(load))
  }

  /** Every listed shard of the kinds given, or of all, once the centroid shard (if any) has listed them all. */
  const loadListed = async (kinds?: readonly number[]): Promise<void> => {
    if (!listed)
      await load(centroidShard)
    await Promise.all(shards.flatMap((shard, i) => kinds === undefined || kinds.includes(shard.kind) ? [load(i)] : []))
  }

  return {
    snapshot,
    shards,
    async loadLexical(query) {
      if (!lexical || filled[ShardKind.lexical] === lexicalShards.length)
        return
      const needed = new Set(scoredTerms(lexical, query).map(t => shardAt(lexicalShards, t)))
      await Promise.all([...needed].map(load))
    },
    loadVectorRows,
    async loadVectors() {
      await loadListed([ShardKind.vectors, ShardKind.refinement])
    },
    async ranked(rank) {
      // Which chunks a search rescores depends on what it read before, never on refinement bits, so a second run wants nothing more.
      for (;;) {
        const result = rank()
        const pending = snapshot.refinement?.pending
        if (cellsWanted.size > 0) {
          // An approximate search ran without its candidates' rows: its refinement wishes are moot.
          const shardsWanted = [...cellsWanted]
          cellsWanted.clear()
          pending?.wanted.clear()
          await Promise.all(shardsWanted.map(load))
          continue
        }
        if (!pending || pending.wanted.size === 0)
          return result
        const wanted = new Set([...pending.wanted].map(refinementShardOf))
        pending.wanted.clear()
        await Promise.all([...wanted].map(load))
      }
    },
    async loadAll() {
      await loadListed()
      return snapshot
    },
  }
}

const hex = (crc: number) => crc.toString(16).padStart(8, '0')
