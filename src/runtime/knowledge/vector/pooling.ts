// Sentence embedding from a BERT-style model's output, shared by the build-time
// embedder and the run-time query embedder so that both make the same vectors.

/** The special tokens a tokenizer puts around one sequence ([CLS] … [SEP] for BERT). */
export interface SequenceFrame {
  head: number[]
  tail: number[]
}

/** The part of a Transformers.js tokenizer this module reads. */
export interface EncodingTokenizer {
  encode: (text: string, options: { add_special_tokens: boolean }) => number[]
}

/** Reads the special tokens around a sequence off the tokenizer's own template; `undefined` when it has none it can tell. */
export function sequenceFrame(tokenizer: EncodingTokenizer): SequenceFrame | undefined {
  const probe = 'a'
  const plain = tokenizer.encode(probe, { add_special_tokens: false })
  const framed = tokenizer.encode(probe, { add_special_tokens: true })
  const at = framed.findIndex((_, i) => plain.every((id, k) => framed[i + k] === id))
  if (plain.length === 0 || at < 0)
    return undefined
  return { head: framed.slice(0, at), tail: framed.slice(at + plain.length) }
}

/** Lone surrogates become U+FFFD (String.prototype.toWellFormed, which ES2023 types lack). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Any value as text a tokenizer accepts: never throws on odd input. */
export function wellFormed(text: unknown): string {
  return (typeof text === 'string' ? text : String(text ?? '')).replace(LONE_SURROGATE, '\uFFFD')
}

/**
 * Mean of each sequence's hidden states over its attended tokens, L2-normalized: what
 * sentence-transformers' MiniLM (and its TF.js graph) does. Accumulates in float64.
 *
 * @param hidden last_hidden_state, [batch, sequence, dimensions] row-major
 * @param lengths attended tokens of each sequence (the rest is padding at the end)
 */
export function meanPoolNormalize(hidden: Float32Array, batch: number, sequence: number, dimensions: number, lengths: readonly number[]): Float32Array[] {
  const out: Float32Array[] = []
  const sum = new Float64Array(dimensions)
  for (let b = 0; b < batch; b++) {
    sum.fill(0)
    const n = lengths[b]!
    let offset = b * sequence * dimensions
    for (let s = 0; s < n; s++, offset += dimensions) {
      for (let d = 0; d < dimensions; d++)
        sum[d]! += hidden[offset + d]!
    }
    const count = Math.max(n, 1e-9)
    let norm = 0
    for (let d = 0; d < dimensions; d++) {
      sum[d] = sum[d]! / count
      norm += sum[d]! * sum[d]!
    }
    const scale = 1 / Math.sqrt(Math.max(norm, 1e-12))
    const vector = new Float32Array(dimensions)
    for (let d = 0; d < dimensions; d++)
      vector[d] = sum[d]! * scale
    out.push(vector)
  }
  return out
}

/** Why a vector an embedding server sent cannot be searched by. */
export type VectorProblem =
  /** A string, `null` (how JSON writes NaN), an object: not a number at all. */
  | { problem: 'not-a-number', value: unknown }
  /** A number no 32-bit float holds (1e39; 1e999, which JSON parsing reads as Infinity): the vector would hold Infinity. */
  | { problem: 'out-of-range', value: number }
  | { problem: 'zero' }

/**
 * `values` (a vector as an embedding server sends it) scaled to unit length,
 * as cosine similarity needs: TEI and OpenAI normalize, Ollama and vLLM may
 * not. A value that is not a number, or that a 32-bit float cannot hold
 * (vectors are stored as Float32Array, where it would become Infinity), or
 * a vector of zeros (no direction), is the problem instead.
 */
export function unitVector(values: readonly unknown[]): Float32Array | VectorProblem {
  const vector = new Float32Array(values.length)
  let norm = 0
  for (let d = 0; d < values.length; d++) {
    const value = values[d]
    if (typeof value !== 'number' || Number.isNaN(value))
      return { problem: 'not-a-number', value }
    if (!Number.isFinite(Math.fround(value)))
      return { problem: 'out-of-range', value }
    vector[d] = value
    norm += value * value
  }
  if (norm === 0)
    return { problem: 'zero' }
  const scale = 1 / Math.sqrt(norm)
  for (let d = 0; d < vector.length; d++)
    vector[d] = vector[d]! * scale
  return vector
}
