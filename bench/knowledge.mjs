// Shared by the knowledge benchmarks (build, retrieval): the pipeline from src/ bundled
// with esbuild (Node 20 cannot run .ts, and src/knowledge is not a dist/ entry), and the
// Modern Web Guidance guides, the real corpus.

import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { sourcePackageDir } from '../scripts/models/minilm.mjs'

export const root = fileURLToPath(new URL('..', import.meta.url))
export const benchCache = join(root, '.cache', 'bench')
export const modelsDir = join(root, '.cache', 'models')

/** The folder of the 147 Modern Web Guidance guides (`<category>/<id>.md`, no frontmatter). */
export function guidesDir() {
  return join(sourcePackageDir(), 'skills', 'modern-web-guidance', 'guides')
}

/**
 * Bundles TypeScript `contents` (imports relative to the repository) into
 * `.cache/bench/<name>.mjs` (a file per benchmark, so that two can run at once)
 * and imports it. Packages stay external.
 */
export async function bundleSource(name, contents) {
  mkdirSync(benchCache, { recursive: true })
  const outfile = join(benchCache, `${name}.mjs`)
  await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    packages: 'external',
    logLevel: 'warning',
  })
  return import(`${outfile}?t=${Date.now()}`)
}

/** The knowledge pipeline and the runtime search, from src/. */
export function loadKnowledgeModules(name) {
  return bundleSource(name, [
    `export * from './src/knowledge/build'`,
    `export * from './src/knowledge/embedder'`,
    `export { chunkDocument } from './src/knowledge/chunk'`,
    `export { loadKnowledgeFolder } from './src/knowledge/load-folder'`,
    `export { tokenWindows } from './src/knowledge/windows'`,
    `export { DEFAULT_CHUNK, DEFAULT_MODEL, DEFAULT_SEARCH } from './src/knowledge/config'`,
    `export { decodeSnapshot } from './src/runtime/knowledge/format/snapshot-reader'`,
    `export { searchVectors } from './src/runtime/knowledge/vector/search'`,
    `export { searchFused } from './src/runtime/knowledge/ranking/search-fused'`,
    `export { LEXICAL_THRESHOLD, searchLexical } from './src/runtime/knowledge/lexical/lexical'`,
    `export { queryTerms } from './src/runtime/knowledge/lexical/tokens'`,
    `export { searchHybrid } from './src/runtime/knowledge/ranking/search-hybrid'`,
    '',
  ].join('\n'))
}
