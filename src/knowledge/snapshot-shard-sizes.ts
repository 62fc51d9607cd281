// The default sizes of a sharded snapshot's shards and cells (the plugin's
// shards option; see snapshot-shards.ts), and why each is what it is
// (figures: bench/RESULTS.md, "Figures behind the defaults").

import type { RowGroups } from './vector-row-groups'

/** The largest lexical shards made by default: at 100k chunks, smaller than 64 KiB cuts a short query's first lexical bytes for as many files (bench/shards.bench.mjs). */
export const DEFAULT_LEXICAL_SHARD_BYTES = 16 * 1024
/** The smallest lexical shards made by default: the guides' first `auto` result fetches the fewest lexical bytes with 2 KiB (bench/cells.bench.mjs). */
export const MIN_LEXICAL_SHARD_BYTES = 2 * 1024
/** Lexical shards the default size aims at: each is an entry of 20 bytes in the core's directory, which every search fetches. */
export const LEXICAL_SHARD_COUNT = 128

/**
 * The default bytes of postings per lexical shard, for `postingBytes` bytes
 * of postings in all: about {@link LEXICAL_SHARD_COUNT} shards, from
 * {@link MIN_LEXICAL_SHARD_BYTES} to {@link DEFAULT_LEXICAL_SHARD_BYTES}. A
 * query fetches a shard a term whatever their size, so smaller shards are
 * fewer bytes for as many requests, until the core's directory of them costs
 * more: large snapshots (100,000 chunks) keep 16 KiB.
 */
export function lexicalShardBytesFor(postingBytes: number): number {
  return Math.min(DEFAULT_LEXICAL_SHARD_BYTES, Math.max(MIN_LEXICAL_SHARD_BYTES, Math.ceil(postingBytes / LEXICAL_SHARD_COUNT)))
}

/** Bytes of vectors per vector shard, by default. */
export const DEFAULT_VECTOR_SHARD_BYTES = 1024 * 1024
/** Bytes of refinement bits per shard: at 100k chunks, 64 KiB keeps the core's shard directory small for little more before the first vector result than 16 KiB (bench/shards.bench.mjs). */
export const DEFAULT_REFINEMENT_SHARD_BYTES = 64 * 1024

/**
 * Below this many chunks, exact search is the default. A first pass over
 * 1-bit codes reads a chunk for an eighth of its int8 row, so cells pay from
 * far fewer chunks than when they held rows: at 1,000 chunks
 * (bench/shards.bench.mjs) the first `auto` result fetches a fraction of
 * exact search's bytes, for one more round trip (cells are fetched once the
 * query is embedded, vector shards while it is).
 */
export const ANN_MIN_CHUNKS = 1000
/**
 * Cells an approximate search reads by default: on real embeddings
 * (bench/cells.bench.mjs), reading fewer lost some of the exact top 5
 * whatever was rescored, and with codes reading more cells costs little.
 */
export const DEFAULT_PROBE = 8
/** Bits a component of the cells' first-pass codes has, by default: on the guides, 1 bit with more documents rescored beat 2 bits (bench/cells.bench.mjs). */
export const DEFAULT_CODE_BITS = 1
/**
 * Documents per result an approximate search scores exactly, by default, of
 * at least ten results (the vector side's top ten make a fused search's
 * weight), where it reads some of the cells: with 2, a synthetic corpus
 * (test/runtime/knowledge/vector/ann/) lost too much of the exact top 5.
 */
export const DEFAULT_RESCORE = 4
/**
 * The same where a search reads every cell (small snapshots). With vector
 * shards of documents read together, every document of a shard fetched is
 * scored too, so 1.5 keeps nearly every exact top 5 of the guides' queries in
 * half the row requests 2 took (bench/RESULTS.md, "The playground's rows in
 * fewer requests").
 */
export const ALL_CELLS_RESCORE = 1.5
/** Chunks a cell holds at least, by default. */
export const MIN_CELL_CHUNKS = 250
/** Range shards of an approximate snapshot serve the rows (and their refinement bits) of a few documents a search rescores, so they are small. */
export const ANN_VECTOR_SHARD_BYTES = 4 * 1024
/**
 * The same where a search reads every cell: a few documents read together a
 * shard ({@link ALL_CELLS_ROW_GROUPS}), so that a query's rows come in a few
 * requests (HTTP/1.1 asks six at a time). Where a search reads some cells
 * (large snapshots), larger shards cost more bytes and splitting time than
 * the requests they save (bench/RESULTS.md, "The playground's rows in fewer requests").
 */
export const ALL_CELLS_VECTOR_SHARD_BYTES = 12 * 1024
/** How an approximate snapshot groups documents into vector shards by default: in id order, each a shard at the default size. */
export const DEFAULT_ROW_GROUPS: RowGroups = 'adjacent'
/** The same where a search reads every cell: the documents queries read together share a shard. */
export const ALL_CELLS_ROW_GROUPS: RowGroups = 'similar'

/**
 * The default number of cells for `chunkCount` chunks: 2√n, which balances
 * the centroids' bytes (n cells) against the codes of the cells a query reads
 * (n / cells each), but no
 * more than one per {@link MIN_CELL_CHUNKS} chunks; none below {@link ANN_MIN_CHUNKS};
 * and one where a search would read every cell anyway (no more than `probe`):
 * the same codes in one request instead of several (the guides: 8 requests of
 * about 14 KB, which held up the query table's rows on HTTP/1.1's six connections).
 */
export function cellCountFor(chunkCount: number, probe = DEFAULT_PROBE): number {
  if (chunkCount < ANN_MIN_CHUNKS)
    return 0
  const count = Math.max(1, Math.round(Math.min(2 * Math.sqrt(chunkCount), chunkCount / MIN_CELL_CHUNKS)))
  return count <= probe ? 1 : count
}
