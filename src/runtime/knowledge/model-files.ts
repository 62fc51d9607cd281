// The files of a Transformers.js feature-extraction model: what a build
// checks and ships, and what Node checks at run time before loading them.

/** ONNX file suffixes of Transformers.js dtypes (its DEFAULT_DTYPE_SUFFIX_MAPPING). */
const DTYPE_SUFFIX: Record<string, string> = {
  fp32: '',
  fp16: '_fp16',
  int8: '_int8',
  uint8: '_uint8',
  q8: '_quantized',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
}

/** Every dtype there is an ONNX file name for. */
export const MODEL_DTYPES: readonly string[] = Object.keys(DTYPE_SUFFIX)

export const MODEL_TEXT_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const

/** `onnx/model_quantized.onnx` for q8, `onnx/model.onnx` for fp32, … */
export function onnxFileOf(dtype: string): string {
  const suffix = DTYPE_SUFFIX[dtype]
  if (suffix === undefined)
    throw new Error(`Unknown model dtype "${dtype}"; expected one of ${Object.keys(DTYPE_SUFFIX).join(', ')}.`)
  return `onnx/model${suffix}.onnx`
}

/** Every file Transformers.js loads for a model of `dtype`. */
export function modelFilesOf(dtype: string): string[] {
  return [...MODEL_TEXT_FILES, onnxFileOf(dtype)]
}
