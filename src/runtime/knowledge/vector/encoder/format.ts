// The query table's files: what a static query encoder reads (written by
// `src/knowledge/query-table/encode.ts`). A query's vector is a pooled sum of a
// few rows of a table distilled from the snapshot's model, so no transformer
// runs where queries are embedded; the rows are split into small shards, so a
// query fetches only the shards of its own tokens.
//
// Core (`query-table.json`, UTF-8 JSON, keys in the order below):
//   format        QUERY_TABLE_FORMAT
//   model         the fingerprint of the model the table was distilled from (the snapshot's)
//   dimensions    D, the length of a row and of the snapshot's vectors
//   tokenizer     how a query is cut into the table's pieces (see QueryTableTokenizer)
//   pooling       'mean' (sum of weight · row over the n pieces found, / n) or
//                 'weighted-mean' (/ the sum of their weights; a sum of 0 pools to 0)
//   bias          D numbers added after pooling
//   groups        [[n, R], ...]: the rows in runs, run g being the next n rows,
//                 cut into shards of R rows (its last shard the rest), the
//                 shards numbered on from the run before's (frequent pieces
//                 come first, in small shards: a query fetches less)
//   shards        the number of shards, the sum of ceil(n / R)
//   build         CRC-32 of every shard's rows, in order: each shard carries it, so a
//                 shard of another build is refused (the core lists nothing per
//                 shard, which would cost more than the rows a query fetches)
//   vocabulary    the pieces, row i being piece i, unique, sorted by UTF-16 code
//                 units within each run of `groups`, front-coded (a third smaller gzipped than a list of them):
//                 {"shared": [...], "suffixes": [...]}, piece i being the first
//                 shared[i] UTF-16 units of piece i − 1 (never half a surrogate
//                 pair), then suffixes[i]
// The bias's numbers are float32 values written with at most 9 significant
// digits, which read back (Math.fround) to the same float32.
// A query's vector: normalise(pool(rows of its pieces) + bias); pieces not in
// the vocabulary are skipped; no piece found gives the zero vector.
//
// Shard (`query-table-<s>.bin`, little-endian):
//   magic 'SKQT', u32 format, u32 CRC-32 of the bytes after it (from offset 12),
//   u32 build, u32 shard index, u32 first row, u32 row count,
//   then per row: f32 scale, f32 weight, D × i8 (row value = scale × i8;
//   scale = max |value| / 127, 0 for a row of zeros). A shard holds its run's
//   R rows, the run's last one the rest: its length is 28 + rows × (8 + D).

/** Bump when the files' layout or meaning changes. */
export const QUERY_TABLE_FORMAT = 2
/** Magic bytes of a shard. */
export const QUERY_TABLE_MAGIC = 'SKQT'
/** Bytes before a shard's rows. */
export const QUERY_TABLE_SHARD_HEADER = 28

/** How a query is cut into pieces: BERT's basic tokenizer, then WordPiece over `vocabulary`. */
export interface QueryTableTokenizer {
  lowercase: boolean
  stripAccents: boolean
  /** Prefix of a piece that continues a word (`##`). */
  continuingPrefix: string
  /** A longer word is one unknown piece (skipped). */
  maxCharsPerWord: number
  /** Pieces read from one query at most (its first ones, unknown pieces included, as the model's input is cut). */
  maxPieces: number
  /**
   * Pieces matched whole in the query before it is normalised, as BERT's
   * `[CLS]`, `[SEP]`, `[MASK]` are (the tokenizer's added tokens); absent: none.
   */
  specialTokens?: string[]
}

/** The pieces as the core file holds them (see the layout above). */
export interface FrontCodedPieces {
  shared: number[]
  suffixes: string[]
}

/** The core file, parsed (its vocabulary decoded). */
export interface QueryTableCore {
  format: number
  model: string
  dimensions: number
  tokenizer: QueryTableTokenizer
  pooling: 'mean' | 'weighted-mean'
  bias: number[]
  /** The runs of rows and their rows a shard (see the layout above). */
  groups: { pieces: number, rowsPerShard: number }[]
  shards: number
  build: number
  vocabulary: string[]
}
