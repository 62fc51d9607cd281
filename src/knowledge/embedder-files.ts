// Where an embedding model's files are on disk, checked before Transformers.js is even
// imported, so that an offline build with no model fails in milliseconds with a message
// that says what to do.

import { createHash } from 'node:crypto'
import { createReadStream, existsSync } from 'node:fs'
import { join } from 'node:path'
import { modelFilesOf } from '../runtime/knowledge/model-files'

export { MODEL_DTYPES, MODEL_TEXT_FILES, onnxFileOf } from '../runtime/knowledge/model-files'

export interface ModelFiles {
  /** `<cacheDir>/<model>`: where a prepared (`skill-kit model`) or converted model lives. */
  localDir: string
  /** `<cacheDir>/<model>/<revision>`: where Transformers.js keeps what it downloads for a pinned revision. */
  downloadDir: string
  /** Path of each needed file, as Transformers.js will pick it (download cache first, then local). */
  found: Record<string, string>
  /** Needed files found in neither place. */
  missing: string[]
}

/** Finds the files Transformers.js will load for `model` in `cacheDir` (used as both its cacheDir and localModelPath). */
export function locateModelFiles(cacheDir: string, model: string, revision: string, dtype: string): ModelFiles {
  const localDir = join(cacheDir, ...model.split('/'))
  const downloadDir = revision === 'main' ? localDir : join(localDir, revision)
  const found: Record<string, string> = {}
  const missing: string[] = []
  for (const file of modelFilesOf(dtype)) {
    const path = [join(downloadDir, file), join(localDir, file)].find(p => existsSync(p))
    if (path)
      found[file] = path
    else missing.push(file)
  }
  return { localDir, downloadDir, found, missing }
}

/** The model `skill-kit model --rebuild` can make without network, and the dtypes it writes. */
export const REBUILDABLE_MODEL = { id: 'Xenova/all-MiniLM-L6-v2', dtypes: ['q8', 'fp32'] } as const

/** Whether `skill-kit model --rebuild` can make this model. */
export function isRebuildable(model: string, dtype: string): boolean {
  return model === REBUILDABLE_MODEL.id && (REBUILDABLE_MODEL.dtypes as readonly string[]).includes(dtype)
}

/** A model whose files are missing while the network may not be used. */
export class ModelNotAvailableError extends Error {
  override name = 'ModelNotAvailableError'
  /**
   * @param folder where the files were looked for
   * @param command the command that prepares the model for this project (`skill-kit model --project …`)
   */
  constructor(readonly model: string, readonly folder: string, readonly missing: readonly string[], readonly command = 'skill-kit model') {
    super(`The embedding model ${model} is not available offline: ${folder} lacks ${missing.join(', ')}. `
      + `Run "${command}" to put it there (it downloads the model; see "skill-kit model --help" for ways without network).`)
  }
}

/**
 * SHA-256 (hex) of a file, streamed, and which of `needles` occur in its bytes (ONNX op
 * types are plain strings in the protobuf, so this tells which operators a model uses
 * without parsing it).
 */
export function inspectFile(path: string, needles: readonly string[] = []): Promise<{ sha256: string, contains: Set<string> }> {
  const patterns = needles.map(n => Buffer.from(n, 'utf8'))
  const overlap = Math.max(0, ...patterns.map(p => p.length - 1))
  return new Promise((resolve, reject) => {
    const h = createHash('sha256')
    const contains = new Set<string>()
    let tail = Buffer.alloc(0)
    createReadStream(path)
      .on('data', (data: string | Buffer) => {
        const chunk = typeof data === 'string' ? Buffer.from(data) : data
        h.update(chunk)
        if (patterns.length === 0)
          return
        const window = Buffer.concat([tail, chunk])
        patterns.forEach((p, i) => {
          if (!contains.has(needles[i]!) && window.includes(p))
            contains.add(needles[i]!)
        })
        tail = window.subarray(Math.max(0, window.length - overlap))
      })
      .on('error', reject)
      .on('end', () => resolve({ sha256: h.digest('hex'), contains }))
  })
}
