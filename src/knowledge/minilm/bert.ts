// The ONNX graph of a BERT encoder (Hugging Face BertModel layout: inputs input_ids,
// attention_mask, token_type_ids as int64 [batch, sequence]; output last_hidden_state
// [batch, sequence, hidden]), in two flavours:
//
//   fp32: float weights, MatMul + Add.
//   q8:   Xenova-style dynamic quantization: DynamicQuantizeLinear on the activations,
//         MatMulInteger against uint8 weights, Cast, Mul by the two scales. Weights keep an
//         affine uint8 form (value = min + scale × q). ONNX zero points are integers, so the
//         weight zero point is rounded and the leftover constant c = min + scale × zp is
//         added back as c × rowsum(x): the q8 graph uses the stored 8-bit weights exactly,
//         and its only extra error is the activation quantization. The word embedding table
//         is stored as uint8 too (Gather, then Cast/Mul/Add on the gathered rows only).
//
// DynamicQuantizeLinear picks one scale for the whole activation tensor, i.e. for the whole
// batch: a sequence's vector then depends on what else is in its batch (cosine down to 0.986
// between batch sizes 1 and 8 on MiniLM), and the embedder runs such models one sequence at a
// time. `activations: 'per-row'` quantizes each token row on its own instead (ReduceMin/Max,
// Round, Clip, Cast, and a zero-point correction from precomputed column sums): batch-
// invariant and closer to fp32 (cosine 0.9996 vs 0.995), but on 2 cores no faster than fp32,
// while per-tensor q8 is about 1.3x faster. Per-tensor stays the default (what Xenova ships).

import type { Message } from './onnx'
import { DataType, GraphBuilder, modelProto } from './onnx'

/** Affine uint8 weights: value = min + scale × q. */
export interface QuantizedData {
  q: Uint8Array
  min: number
  scale: number
}

/** A weight: float values, or the affine uint8 form. `name` is where it came from, for messages. */
export type Weight = { name?: string, dims: number[], data: Float32Array, quant?: undefined } | { name?: string, dims: number[], quant: QuantizedData, data?: undefined }

export interface Dense { kernel: Weight, bias: Weight }
export interface LayerNormWeights { gamma: Weight, beta: Weight }

export interface BertLayer {
  query: Dense
  key: Dense
  value: Dense
  attentionOutput: Dense
  attentionLayerNorm: LayerNormWeights
  intermediate: Dense
  output: Dense
  outputLayerNorm: LayerNormWeights
}

export interface BertWeights {
  wordEmbeddings: Weight
  positionEmbeddings: Weight
  tokenTypeEmbeddings: Weight
  embeddingsLayerNorm: LayerNormWeights
  layers: BertLayer[]
}

/** The config.json keys the graph depends on (Hugging Face names); any others are kept as they are. */
export interface BertConfig {
  hidden_size: number
  num_hidden_layers: number
  num_attention_heads: number
  intermediate_size: number
  vocab_size: number
  max_position_embeddings: number
  type_vocab_size: number
  layer_norm_eps?: number
  [key: string]: unknown
}

export interface BertModelOptions {
  dtype?: 'fp32' | 'q8'
  activations?: 'per-tensor' | 'per-row'
  /** What masked-out attention scores get (added to them). */
  maskValue?: number
  docString?: string
  metadata?: Record<string, unknown>
  /** Which dense layers q8 quantizes (all by default), by prefix such as `encoder.layer.0.attention.self.query`. */
  quantize?: (prefix: string) => boolean
}

/** Float32 values of a weight (dequantized in float64, rounded once, as TF.js does). */
export function floatData(w: Weight): Float32Array {
  if (w.data)
    return w.data
  const { q, min, scale } = w.quant
  const out = new Float32Array(q.length)
  for (let i = 0; i < q.length; i++)
    out[i] = q[i]! * scale + min
  return out
}

/** Affine uint8 form of a weight; float weights are quantized per tensor over [min, max]. */
export function quantData(w: Weight): QuantizedData {
  if (w.quant)
    return w.quant
  let min = Infinity
  let max = -Infinity
  for (const v of w.data) {
    if (v < min)
      min = v
    if (v > max)
      max = v
  }
  const scale = max > min ? (max - min) / 255 : 1
  const q = new Uint8Array(w.data.length)
  for (let i = 0; i < q.length; i++)
    q[i] = Math.max(0, Math.min(255, Math.round((w.data[i]! - min) / scale)))
  return { q, min, scale }
}

function checkDims(name: string, w: Weight | undefined, dims: readonly number[]): asserts w is Weight {
  if (!w || w.dims.length !== dims.length || w.dims.some((d, i) => d !== dims[i]))
    throw new Error(`BERT weight ${name}: expected [${dims.join(', ')}], got ${w ? `[${w.dims.join(', ')}]` : 'nothing'}`)
}

/** An activation's quantization, shared by the dense layers that read it. */
interface QuantizedActivation {
  quantized: string
  xScale: string
  xZero: string
  rowSum: string | undefined
}

/** The ONNX model of a BERT encoder with these weights. */
export function bertModel(config: BertConfig, weights: BertWeights, { dtype = 'fp32', activations = 'per-tensor', maskValue = -10000, docString, metadata, quantize = () => true }: BertModelOptions = {}): Message {
  const H = config.hidden_size
  const heads = config.num_attention_heads
  const headSize = H / heads
  const I = config.intermediate_size
  const eps = config.layer_norm_eps ?? 1e-12
  if (!Number.isInteger(headSize))
    throw new Error(`hidden_size ${H} is not divisible by ${heads} heads`)
  if (weights.layers.length !== config.num_hidden_layers)
    throw new Error(`${weights.layers.length} layers of weights for num_hidden_layers ${config.num_hidden_layers}`)

  const g = new GraphBuilder('bert')
  const ids = g.input('input_ids', DataType.INT64, ['batch_size', 'sequence_length'])
  const mask = g.input('attention_mask', DataType.INT64, ['batch_size', 'sequence_length'])
  const types = g.input('token_type_ids', DataType.INT64, ['batch_size', 'sequence_length'])

  const floatWeight = (name: string, w: Weight, dims: readonly number[]) => {
    checkDims(name, w, dims)
    return g.initializer(name, dims, floatData(w))
  }

  // Constants shared by all layers.
  const one = g.float('const_one', 1)
  const maskFill = g.float('const_mask_value', maskValue)
  const half = g.float('const_half', 0.5)
  const invSqrt2 = g.float('const_inv_sqrt2', Math.SQRT1_2)
  const attnScale = g.float('const_attention_scale', 1 / Math.sqrt(headSize))
  const headsShape = g.int64('const_heads_shape', [0, 0, heads, headSize])
  const hiddenShape = g.int64('const_hidden_shape', [0, 0, H])

  const cache = new Map<string, QuantizedActivation>() // per activation: its quantization and row sums
  let rowQuantConstants: [string, string, string] | undefined
  let lastAxis: string | undefined
  const dense = (prefix: string, x: string, w: Dense, inDim: number, outDim: number): string => {
    checkDims(`${prefix}.weight`, w.kernel, [inDim, outDim])
    checkDims(`${prefix}.bias`, w.bias, [outDim])
    const bias = g.initializer(`${prefix}.bias`, [outDim], floatData(w.bias))
    let y: string
    if (dtype === 'q8' && quantize(prefix)) {
      const { q, min, scale } = quantData(w.kernel)
      const zp = Math.max(0, Math.min(255, Math.round(-min / scale)))
      const leftover = min + scale * zp
      const wq = g.initializer(`${prefix}.weight_quantized`, [inDim, outDim], q)
      const wScale = g.float(`${prefix}.weight_scale`, scale)
      const wZero = g.initializer(`${prefix}.weight_zero_point`, [], Uint8Array.of(zp))
      let xq = cache.get(x)
      if (activations === 'per-row') {
        // Each token row gets its own scale and zero point, so a sequence's vector does not
        // depend on the other sequences (or the padding) of its batch.
        if (!xq) {
          const [zero, c255, tiny] = rowQuantConstants ??= [g.float('const_zero', 0), g.float('const_255', 255), g.float('const_tiny', 1e-30)]
          const lo = g.node('Min', [g.node('ReduceMin', [x], { axes: [-1], keepdims: 1, name: `${x}_rowmin` }), zero], { name: `${x}_lo` })
          const hi = g.node('Max', [g.node('ReduceMax', [x], { axes: [-1], keepdims: 1, name: `${x}_rowmax` }), zero], { name: `${x}_hi` })
          const xScale = g.node('Max', [g.node('Div', [g.node('Sub', [hi, lo], { name: `${x}_range` }), c255], { name: `${x}_scale_raw` }), tiny], { name: `${x}_scale` })
          const xZero = g.node('Round', [g.node('Div', [g.node('Neg', [lo], { name: `${x}_neglo` }), xScale], { name: `${x}_zero_raw` })], { name: `${x}_zero` })
          const scaled = g.node('Round', [g.node('Div', [x, xScale], { name: `${x}_div` })], { name: `${x}_round` })
          const clipped = g.node('Clip', [g.node('Add', [scaled, xZero], { name: `${x}_shift` }), zero, c255], { name: `${x}_clip` })
          const quantized = g.node('Cast', [clipped], { to: DataType.UINT8, name: `${x}_quant` })
          xq = { quantized, xScale, xZero, rowSum: undefined }
          cache.set(x, xq)
        }
        const columnSums = new Float32Array(outDim)
        for (let k = 0; k < inDim; k++) {
          for (let n = 0; n < outDim; n++)
            columnSums[n]! += q[k * outDim + n]! - zp
        }
        const colSum = g.initializer(`${prefix}.weight_column_sums`, [outDim], columnSums)
        const mm = g.node('MatMulInteger', [xq.quantized, wq, '', wZero], { name: `${prefix}/MatMulInteger` })
        const cast = g.node('Cast', [mm], { to: DataType.FLOAT, name: `${prefix}/Cast` })
        const centered = g.node('Sub', [cast, g.node('Mul', [xq.xZero, colSum], { name: `${prefix}/zero_correction` })], { name: `${prefix}/centered` })
        const scales = g.node('Mul', [xq.xScale, wScale], { name: `${prefix}/scales` })
        y = g.node('Mul', [centered, scales], { name: `${prefix}/MatMul` })
      }
      else {
        if (!xq) {
          const [quantized, xScale, xZero] = g.nodeOutputs('DynamicQuantizeLinear', [x], { outputs: 3, name: `${x}_quant` }) as [string, string, string]
          xq = { quantized, xScale, xZero, rowSum: undefined }
          cache.set(x, xq)
        }
        const mm = g.node('MatMulInteger', [xq.quantized, wq, xq.xZero, wZero], { name: `${prefix}/MatMulInteger` })
        const cast = g.node('Cast', [mm], { to: DataType.FLOAT, name: `${prefix}/Cast` })
        const scales = g.node('Mul', [xq.xScale, wScale], { name: `${prefix}/scales` })
        y = g.node('Mul', [cast, scales], { name: `${prefix}/MatMul` })
      }
      if (Math.fround(leftover) !== 0) {
        lastAxis ??= g.int64('const_last_axis', [-1])
        xq.rowSum ??= g.node('ReduceSum', [x, lastAxis], { keepdims: 1, name: `${x}_rowsum` })
        const c = g.float(`${prefix}.weight_offset`, leftover)
        y = g.node('Add', [y, g.node('Mul', [xq.rowSum, c], { name: `${prefix}/offset` })], { name: `${prefix}/offset_add` })
      }
    }
    else {
      const wf = g.initializer(`${prefix}.weight`, [inDim, outDim], floatData(w.kernel))
      y = g.node('MatMul', [x, wf], { name: `${prefix}/MatMul` })
    }
    return g.node('Add', [y, bias], { name: `${prefix}/BiasAdd` })
  }

  const layerNorm = (prefix: string, x: string, ln: LayerNormWeights) => {
    const gamma = floatWeight(`${prefix}.weight`, ln.gamma, [H])
    const beta = floatWeight(`${prefix}.bias`, ln.beta, [H])
    return g.node('LayerNormalization', [x, gamma, beta], { axis: -1, epsilon: eps, name: `${prefix}/LayerNorm` })
  }

  // Embeddings: word + position (rows 0..S-1) + token type, then LayerNorm.
  checkDims('embeddings.word_embeddings', weights.wordEmbeddings, [config.vocab_size, H])
  let words: string
  if (dtype === 'q8') {
    const { q, min, scale } = quantData(weights.wordEmbeddings)
    const table = g.initializer('embeddings.word_embeddings.weight_quantized', [config.vocab_size, H], q)
    const rows = g.node('Gather', [table, ids], { axis: 0, name: 'embeddings/word/Gather' })
    const cast = g.node('Cast', [rows], { to: DataType.FLOAT, name: 'embeddings/word/Cast' })
    const scaled = g.node('Mul', [cast, g.float('embeddings.word_embeddings.scale', scale)], { name: 'embeddings/word/scale' })
    words = g.node('Add', [scaled, g.float('embeddings.word_embeddings.min', min)], { name: 'embeddings/word/min' })
  }
  else {
    const table = floatWeight('embeddings.word_embeddings.weight', weights.wordEmbeddings, [config.vocab_size, H])
    words = g.node('Gather', [table, ids], { axis: 0, name: 'embeddings/word/Gather' })
  }
  const positionTable = floatWeight('embeddings.position_embeddings.weight', weights.positionEmbeddings, [config.max_position_embeddings, H])
  const idsShape = g.node('Shape', [ids], { name: 'embeddings/Shape' })
  const seqLen = g.node('Slice', [idsShape, g.int64('const_1d_one', [1]), g.int64('const_1d_two', [2])], { name: 'embeddings/seq_len' })
  const positions = g.node('Slice', [positionTable, g.int64('const_1d_zero', [0]), seqLen, g.int64('const_1d_axis0', [0])], { name: 'embeddings/position/Slice' })
  const typeTable = floatWeight('embeddings.token_type_embeddings.weight', weights.tokenTypeEmbeddings, [config.type_vocab_size, H])
  const typeRows = g.node('Gather', [typeTable, types], { axis: 0, name: 'embeddings/token_type/Gather' })
  const sum1 = g.node('Add', [words, positions], { name: 'embeddings/add_position' })
  const sum2 = g.node('Add', [sum1, typeRows], { name: 'embeddings/add_token_type' })
  let hidden = layerNorm('embeddings.LayerNorm', sum2, weights.embeddingsLayerNorm)

  // Additive attention mask, [batch, 1, 1, sequence]: (1 - mask) × maskValue.
  const mask4 = g.node('Unsqueeze', [mask, g.int64('const_mask_axes', [1, 2])], { name: 'mask/Unsqueeze' })
  const maskFloat = g.node('Cast', [mask4], { to: DataType.FLOAT, name: 'mask/Cast' })
  const inverted = g.node('Sub', [one, maskFloat], { name: 'mask/Sub' })
  const additive = g.node('Mul', [inverted, maskFill], { name: 'mask/Mul' })

  weights.layers.forEach((layer, i) => {
    const p = `encoder.layer.${i}`
    const q = dense(`${p}.attention.self.query`, hidden, layer.query, H, H)
    const k = dense(`${p}.attention.self.key`, hidden, layer.key, H, H)
    const v = dense(`${p}.attention.self.value`, hidden, layer.value, H, H)
    const split = (x: string, name: string, perm: number[]) => g.node('Transpose', [g.node('Reshape', [x, headsShape], { name: `${p}/${name}/Reshape` })], { perm, name: `${p}/${name}/Transpose` })
    const qh = split(q, 'query', [0, 2, 1, 3])
    const kh = split(k, 'key', [0, 2, 3, 1])
    const vh = split(v, 'value', [0, 2, 1, 3])
    const scores = g.node('MatMul', [qh, kh], { name: `${p}/scores` })
    const scaled = g.node('Mul', [scores, attnScale], { name: `${p}/scores_scaled` })
    const masked = g.node('Add', [scaled, additive], { name: `${p}/scores_masked` })
    const probs = g.node('Softmax', [masked], { axis: -1, name: `${p}/Softmax` })
    const context = g.node('MatMul', [probs, vh], { name: `${p}/context` })
    const merged = g.node('Reshape', [g.node('Transpose', [context], { perm: [0, 2, 1, 3], name: `${p}/context/Transpose` }), hiddenShape], { name: `${p}/context/Reshape` })
    const attnOut = dense(`${p}.attention.output.dense`, merged, layer.attentionOutput, H, H)
    const attnRes = g.node('Add', [attnOut, hidden], { name: `${p}/attention/residual` })
    const attnNorm = layerNorm(`${p}.attention.output.LayerNorm`, attnRes, layer.attentionLayerNorm)

    // erf GELU, in TF's order: (0.5 × x) × (1 + erf(x / √2)).
    const inter = dense(`${p}.intermediate.dense`, attnNorm, layer.intermediate, H, I)
    const halfX = g.node('Mul', [inter, half], { name: `${p}/gelu/half` })
    const erf = g.node('Erf', [g.node('Mul', [inter, invSqrt2], { name: `${p}/gelu/scale` })], { name: `${p}/gelu/Erf` })
    const gelu = g.node('Mul', [halfX, g.node('Add', [erf, one], { name: `${p}/gelu/add` })], { name: `${p}/gelu` })

    const out = dense(`${p}.output.dense`, gelu, layer.output, I, H)
    const outRes = g.node('Add', [out, attnNorm], { name: `${p}/output/residual` })
    const last = i === weights.layers.length - 1
    hidden = last
      ? g.node('LayerNormalization', [outRes, floatWeight(`${p}.output.LayerNorm.weight`, layer.outputLayerNorm.gamma, [H]), floatWeight(`${p}.output.LayerNorm.bias`, layer.outputLayerNorm.beta, [H])], { axis: -1, epsilon: eps, name: `${p}.output.LayerNorm/LayerNorm`, outputs: ['last_hidden_state'] })
      : layerNorm(`${p}.output.LayerNorm`, outRes, layer.outputLayerNorm)
  })

  g.output('last_hidden_state', DataType.FLOAT, ['batch_size', 'sequence_length', H])
  return modelProto(g, { docString, metadata: { dtype, ...(dtype === 'q8' ? { activations } : {}), ...metadata } })
}
