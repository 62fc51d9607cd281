// Bundles the `skill-kit` command as users run it (bin/skill-kit.mjs), but on
// the current sources: bin's import of dist/cli.mjs is redirected to
// src/cli/index.ts, so tests and benchmarks never depend on a stale or
// half-rebuilt dist/. Plain JavaScript so that bench/ can import it too.

import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'

const repo = resolve(import.meta.dirname, '../..')

/**
 * Bundles bin/skill-kit.mjs with the CLI sources into `dir` (one folder per test file: they run in parallel).
 * @param {string} dir
 * @param {string} [name] the script's file name
 * @returns {Promise<string>} the script's path
 */
export async function bundleCli(dir, name = 'skill-kit.mjs') {
  mkdirSync(dir, { recursive: true })
  const outfile = join(dir, name)
  await build({
    entryPoints: [join(repo, 'bin/skill-kit.mjs')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Dependencies load from the repository's node_modules, as from an installed package's.
    packages: 'external',
    logLevel: 'error',
    plugins: [{
      name: 'cli-sources',
      setup(b) {
        b.onResolve({ filter: /\/dist\/cli\.mjs$/ }, () => ({ path: join(repo, 'src/cli/index.ts') }))
      },
    }],
  })
  return outfile
}
