// A prepared model folder (copied from a machine that could download it, or a clone of
// the model's repository), checked and installed into a project's model folder, where
// `locateModelFiles` finds it: `<cacheDir>/<model id>/`.

import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { copyFile, mkdir, readdir } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { replaceDirAtomic } from '../core/atomic'
import { MODEL_DTYPES, MODEL_TEXT_FILES, onnxFileOf } from './embedder-files'

const isFolder = (path: string) => existsSync(path) && statSync(path).isDirectory()

/**
 * The folder under `from` that holds the model's files: `from` itself or its
 * `<model id>/`, either possibly as Transformers.js' download cache
 * (`<revision>/` inside). The first with a config.json; else the `<model id>/`
 * folder if there is one, else `from`, so the check names what is missing.
 */
export function findModelFolder(from: string, model: string, revision: string): string {
  const own = join(from, ...model.split('/'))
  const candidates = [from, join(from, revision), own, join(own, revision)]
  return candidates.find(dir => existsSync(join(dir, 'config.json'))) ?? (isFolder(own) ? own : from)
}

/**
 * What is wrong with a model folder for `dtype`, one line per file, all at
 * once: config.json (JSON with the embedding size), tokenizer.json,
 * tokenizer_config.json (JSON) and the dtype's ONNX file. Empty when it is fine.
 */
export function checkModelFolder(dir: string, dtype: string): string[] {
  const problems: string[] = []
  const json = (file: string): unknown => {
    const path = join(dir, file)
    if (!existsSync(path)) {
      problems.push(`${file} is missing`)
      return undefined
    }
    try {
      return JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as unknown
    }
    catch (error) {
      problems.push(`${file} is not valid JSON (${(error as Error).message})`)
      return undefined
    }
  }
  for (const file of MODEL_TEXT_FILES) {
    const value = json(file)
    if (file !== 'config.json' || value === undefined)
      continue
    const config = (value && typeof value === 'object' ? value : {}) as Record<string, unknown>
    const size = config.hidden_size ?? config.d_model ?? config.dim
    if (!Number.isInteger(size) || (size as number) <= 0)
      problems.push('config.json has no hidden_size (nor d_model or dim): it is not the configuration of an embedding model')
  }
  const onnx = onnxFileOf(dtype)
  const path = join(dir, onnx)
  if (!existsSync(path)) {
    const present = MODEL_DTYPES.filter(d => d !== dtype && existsSync(join(dir, onnxFileOf(d))))
    const others = present.length === 0
      ? 'the folder has no ONNX weights at all'
      : `the folder has ${present.map(d => `${d} (${onnxFileOf(d)})`).join(', ')}: set "model.dtype" to ${present.join(' or ')}, or add the ${dtype} file`
    problems.push(`${onnx} (the ${dtype} weights "model.dtype" asks for) is missing; ${others}`)
  }
  else if (!isOnnxModel(path)) {
    problems.push(`${onnx} is not an ONNX model`)
  }
  return problems
}

/** An ONNX ModelProto starts with its ir_version field (field 1, varint: byte 0x08). */
function isOnnxModel(path: string): boolean {
  if (!statSync(path).isFile() || statSync(path).size < 16)
    return false
  const head = Buffer.alloc(1)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, head, 0, 1, 0)
  }
  finally {
    closeSync(fd)
  }
  return head[0] === 0x08
}

/** The files a model needs for `dtype`, relative to its folder: the text files, the ONNX file and its external data files, if any. */
async function neededFiles(dir: string, dtype: string): Promise<string[]> {
  const onnx = onnxFileOf(dtype)
  const data = (await readdir(join(dir, dirname(onnx))))
    .filter(name => name.startsWith(`${basename(onnx)}_data`))
    .map(name => `${dirname(onnx)}/${name}`)
  return [...MODEL_TEXT_FILES, onnx, ...data]
}

/**
 * Installs the model of `source` (checked with {@link checkModelFolder}) as
 * `target` (`<cacheDir>/<model id>`): its needed files are copied into a
 * temporary folder beside the target, which then replaces it whole, so the
 * target never holds half a model. A source inside the target is already
 * installed. Resolves with the files copied (none when already in place).
 */
export async function installModelFolder(source: string, target: string, dtype: string): Promise<string[]> {
  const inside = relative(resolve(target), resolve(source))
  if (inside === '' || !(inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)))
    return []
  const files = await neededFiles(source, dtype)
  await replaceDirAtomic(target, async (temporary) => {
    for (const file of files) {
      await mkdir(dirname(join(temporary, file)), { recursive: true })
      await copyFile(join(source, file), join(temporary, file))
    }
  })
  return files
}
