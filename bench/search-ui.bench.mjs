// The search component's weight as a site ships it (issue 29: ≤ 15 KB gzip):
// its package entry (src/runtime/search-ui/index.ts) bundled by esbuild with
// minification, as a site's production build would, then gzip -9. The
// knowledge-base source (source.ts) is not counted: it weighs with the
// knowledge runtime a site loads anyway.
//
//   node bench/search-ui.bench.mjs [--json]

import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { emitResult } from './util.mjs'

const GOAL_GZIP = 15 * 1024
const entry = new URL('../src/runtime/search-ui/index.ts', import.meta.url).pathname

const out = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', target: 'es2022', write: false, legalComments: 'none' })
const code = out.outputFiles[0].contents
const gzip = gzipSync(code, { level: 9 }).length

console.log(`search UI component: ${code.length.toLocaleString('en')} B minified, ${gzip.toLocaleString('en')} B gzip -9 (goal ≤ ${GOAL_GZIP.toLocaleString('en')} B)`)
emitResult({ minifiedBytes: code.length, gzipBytes: gzip, goal: { gzipBytes: GOAL_GZIP } })
if (gzip > GOAL_GZIP)
  process.exitCode = 1
