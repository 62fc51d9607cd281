// The static query encoder's table, distilled from the snapshot's own model at
// build time: each kept piece's row is the model's vector of that piece alone;
// a ridge map fitted on the corpus's headings, sentences and windows (pooled
// rows → the model's vectors of the same texts) is folded into the rows, which
// are then fine-tuned on the same pairs, so that a weighted mean of a query's
// rows lands near the model's vector of the query. What each step is worth on
// the guides' labelled sets: bench/RESULTS.md, "Figures behind the defaults".

import type { Embedder } from '../embedder'
import type { LinearMap } from './ridge'
import type { QueryTable } from './table'
import type { PooledPairs, RowTrainingOptions, TrainingPair } from './train'
import type { TrainingTextOptions } from './training'
import type { ModelVocabulary } from './vocabulary'
import { VectorCache, vectorKey } from '../vector-cache'
import { addDots } from './dots'
import { countPieces, DEFAULT_COMMON_PIECES, keptPieces, sifWeights } from './pieces'
import { fitRidge } from './ridge'
import { poolPair, poolPairs, trainRows } from './train'
import { trainingTexts } from './training'

/** Bump when what the cached model vectors mean changes: it starts a new cache. */
const DISTIL_CACHE_VERSION = 1
/** Model inputs per call of the embedder, between two checkpoints of the cache. */
const EMBED_BATCH = 512

/** What a table is distilled from, besides the model. */
export interface QueryTableCorpus {
  /**
   * The corpus's Markdown texts (documents or chunks): their pieces are kept,
   * their headings and sentences are the texts the map is fitted on.
   */
  texts: readonly string[]
  /**
   * Windows the model has embedded already (the snapshot's: token IDs as
   * embedded, with their vectors): more training pairs that cost no model run.
   */
  windows?: readonly TrainingWindow[]
}

/** A model input and the model's vector of it. */
export interface TrainingWindow {
  tokens: readonly number[]
  vector: ArrayLike<number>
}

/** Options of {@link distilQueryTable}. */
export interface DistilOptions {
  /** The model's vocabulary (`loadModelVocabulary`): the table's pieces are its token IDs. */
  vocabulary: ModelVocabulary
  /**
   * Folder of the cache of the model's vectors (one file set per embedder
   * fingerprint): the pieces' rows, which depend on the model only, and the
   * training texts' vectors. Give the model's own cache folder, so that every
   * project using the model pays for each row once.
   */
  cacheDir: string
  /** Pieces kept beside the corpus's own and the single characters (default 5,000). */
  commonPieces?: number
  /** SIF's `a` (default 0.01); `0` weighs every piece 1. */
  sif?: number
  /** How rows are pooled (default `weighted-mean`). */
  pooling?: QueryTable['pooling']
  /** Ridge penalty, relative to the pooled vectors' variance (default 0.01). */
  lambda?: number
  /** Which headings and sentences the map is fitted on. */
  training?: TrainingTextOptions
  /** How the rows are fine-tuned after the map (see `trainRows`). */
  rowTraining?: RowTrainingOptions
  /** A line for people at each step (rows embedded, texts embedded). */
  log?: (line: string) => void
  /** Milliseconds each phase took, as it ends (for benchmarks: see bench/encoder.bench.mjs --phases). */
  timing?: (phase: DistilPhase, ms: number) => void
  /**
   * Asked between steps (phases, batches of the model, passes of the
   * training), after letting pending events in: `true` stops the
   * distillation with a {@link DistilAbandoned}, so that a build that changes
   * made out of date frees the machine within about a second.
   */
  stale?: () => boolean
}

/** Thrown by {@link distilQueryTable} when its `stale` option says so. */
export class DistilAbandoned extends Error {
  override name = 'DistilAbandoned'
  constructor() {
    super('The query table\'s distillation was stopped: what it was made for changed.')
  }
}

/** The phases of a distillation, in order, as {@link DistilOptions.timing} names them. */
export type DistilPhase = 'tokenize' | 'piece rows' | 'text vectors' | 'pairs' | 'ridge' | 'fold' | 'row training'

/**
 * Distils a query table from `embedder` for `corpus` (see `queryTableCorpus`
 * for a built index's). Deterministic: the same model, corpus and options
 * give the same table to the bit. The model runs only for pieces and texts
 * its cache in `cacheDir` lacks (a cold run embeds about 13,000 one-piece
 * inputs and 6,000 sentences for the 147 guides: about a millisecond each on
 * two idle cores).
 */
export async function distilQueryTable(embedder: Embedder, corpus: QueryTableCorpus, options: DistilOptions): Promise<QueryTable> {
  const { vocabulary, commonPieces = DEFAULT_COMMON_PIECES, sif = 0.01, pooling = 'weighted-mean', lambda = 0.01 } = options
  let phaseStart = performance.now()
  // Events (a file watcher's) come in between steps: the steps are synchronous.
  const checkpoint = async () => {
    if (!options.stale)
      return
    await new Promise(resolve => setImmediate(resolve))
    if (options.stale())
      throw new DistilAbandoned()
  }
  const phase = async (name: DistilPhase) => {
    const now = performance.now()
    options.timing?.(name, now - phaseStart)
    await checkpoint()
    phaseStart = performance.now()
  }
  if ((embedder.unitsPerToken ?? 1) !== 1)
    throw new Error('A query table needs an embedder that tokenizes with its model\'s own vocabulary; this one counts code points.')
  const room = embedder.maxTokens - embedder.reservedTokens.query
  const maxPieces = Math.min(vocabulary.tokenizer.maxPieces, room)
  const counts = countPieces(corpus.texts.map(text => embedder.tokenize(text)))
  const ids = keptPieces(vocabulary, counts, commonPieces)
  const rowOf = new Map(ids.map((id, row) => [id, row]))
  const weights = sif > 0 ? sifWeights(ids, counts, sif) : new Float32Array(ids.length).fill(1)

  const texts = trainingTexts(corpus.texts, options.training)
  const textIds = texts.map(text => embedder.tokenize(text).slice(0, room))
  await phase('tokenize')
  const cache = new VectorCache(options.cacheDir, JSON.stringify([embedder.fingerprint, 'query-table', DISTIL_CACHE_VERSION]), embedder.dimensions)
  let rows: Float32Array
  let targets: Float32Array[]
  try {
    rows = flatten(await embedCached(embedder, cache, ids.map(id => [id]), 'rows', options.log, checkpoint), embedder.dimensions)
    await phase('piece rows')
    targets = await embedCached(embedder, cache, textIds, 'training texts', options.log, checkpoint)
  }
  finally {
    try {
      cache.save()
    }
    finally {
      cache.close()
    }
  }
  await phase('text vectors')
  const dimensions = rows.length / Math.max(ids.length, 1)

  // Pairs: each training text's rows, as the runtime finds them, and the model's vector of it.
  const rowsOf = (tokens: readonly number[]) => tokens.slice(0, maxPieces).flatMap(id => rowOf.get(id) ?? [])
  const pairs: TrainingPair[] = textIds.map((tokens, t) => ({ rows: rowsOf(tokens), target: targets[t]! }))
  const textPairs = pairs.length
  for (const window of corpus.windows ?? []) {
    if (window.vector.length === dimensions)
      pairs.push({ rows: rowsOf(window.tokens), target: window.vector })
  }
  const table: QueryTable = {
    model: embedder.fingerprint,
    dimensions,
    tokenizer: { ...vocabulary.tokenizer, maxPieces },
    pooling,
    vocabulary: ids.map(id => vocabulary.pieces[id]!),
    rows,
    weights,
    bias: new Float32Array(dimensions),
    // Queries use what the corpus uses: the files put its frequent pieces in small shards.
    counts: Float32Array.from(ids, id => counts.get(id) ?? 0),
  }
  const pooled = poolPairs(table, pairs, textPairs)
  await phase('pairs')
  const map = fitMap(table, pooled, lambda)
  await phase('ridge')
  if (map) {
    table.rows = foldRows(rows, ids.length, map.weights, dimensions)
    table.bias = Float32Array.from(map.bias)
    await phase('fold')
    await trainRows(table, pooled, { ...options.rowTraining, afterEpoch: checkpoint })
    await phase('row training')
  }
  return table
}

/** The ridge map from pooled rows to the model's vectors, fitted on the pairs; none without pairs. */
function fitMap(table: QueryTable, pairs: PooledPairs, lambda: number): LinearMap | undefined {
  const { dimensions } = table
  const x = new Float64Array(pairs.count * dimensions)
  const pooled = new Float64Array(dimensions)
  for (let p = 0; p < pairs.count; p++) {
    poolPair(pairs, p, table.rows, undefined, pooled)
    x.set(pooled, p * dimensions)
  }
  return pairs.count > 0 ? fitRidge(x, pairs.targets, pairs.count, dimensions, dimensions, lambda) : undefined
}

/** Rows · W: the map folded into the table, so that the runtime only pools and adds the bias. */
function foldRows(rows: Float32Array, count: number, w: Float64Array, dimensions: number): Float32Array {
  const D = dimensions
  // Wᵀ, so that each output is a dot product of a row with a contiguous line; two rows at a time.
  const wt = new Float64Array(D * D)
  for (let i = 0; i < D; i++) {
    for (let o = 0; o < D; o++)
      wt[o * D + i] = w[i * D + o]!
  }
  const out = new Float32Array(rows.length)
  const pair = new Float64Array(2 * D)
  const acc = new Float64Array(2 * D)
  for (let r = 0; r < count; r += 2) {
    const two = r + 1 < count
    pair.set(rows.subarray(r * D, (two ? r + 2 : r + 1) * D))
    acc.fill(0)
    addDots(pair, 0, two ? D : undefined, wt, 0, D, D, D, acc, 0, D)
    out.set(two ? acc : acc.subarray(0, D), r * D)
  }
  return out
}

function flatten(vectors: readonly Float32Array[], dimensions: number): Float32Array {
  const out = new Float32Array(vectors.length * dimensions)
  vectors.forEach((v, i) => out.set(v, i * dimensions))
  return out
}

/** The model's query vectors of token windows, from the cache where it has them; the rest embedded and cached. */
async function embedCached(embedder: Embedder, cache: VectorCache, windows: readonly (readonly number[])[], what: string, log?: (line: string) => void, checkpoint?: () => Promise<void>): Promise<Float32Array[]> {
  const out: (Float32Array | undefined)[] = windows.map(w => cache.get(vectorKey(w)))
  const missing = out.flatMap((v, i) => (v ? [] : [i]))
  if (missing.length > 0)
    log?.(`Distilling the query table: embedding ${missing.length} ${what} (${windows.length - missing.length} cached)`)
  for (let at = 0; at < missing.length; at += EMBED_BATCH) {
    const batch = missing.slice(at, at + EMBED_BATCH)
    const vectors = await embedder.embedTokens(batch.map(i => windows[i]!), 'query')
    batch.forEach((i, k) => {
      if (vectors[k]!.length !== embedder.dimensions && embedder.dimensions > 0)
        throw new Error(`The embedding model answered a ${vectors[k]!.length}-dimensional vector where ${embedder.dimensions} were expected.`)
      out[i] = vectors[k]!
      cache.set(vectorKey(windows[i]!), vectors[k]!)
    })
    cache.checkpoint()
    await checkpoint?.()
  }
  return out as Float32Array[]
}
