// The model converter of src/knowledge/minilm/ (the ONNX writer, the BERT graph, the
// MiniLM rebuild) for these scripts. Node 20 cannot import TypeScript, so the sources are
// bundled with esbuild (as bench/ does) into .cache/scripts/, under a hash of the bundle:
// concurrent runs (parallel test files) share a file that is complete once it exists.

import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('../..', import.meta.url))

const { outputFiles: [bundle] } = await build({
  entryPoints: [join(root, 'src/knowledge/minilm/index.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  write: false,
  logLevel: 'warning',
})
const dir = join(root, '.cache', 'scripts')
const file = join(dir, `minilm-${createHash('sha256').update(bundle.contents).digest('hex').slice(0, 16)}.mjs`)
if (!existsSync(file)) {
  mkdirSync(dir, { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, bundle.contents)
  renameSync(temporary, file)
}

export const {
  bertModel,
  buildMiniLM,
  DataType,
  GraphBuilder,
  mapTfjsBert,
  MINILM_MODEL_ID,
  modelProto,
  publishDir,
  readTfjsModel,
  sourcePackageDir,
  stableJson,
  writeMessage,
} = await import(pathToFileURL(file).href)
