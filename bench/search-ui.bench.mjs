// The search component's weight as a site ships it (issue 29: ≤ 15 KB gzip):
// what `import { defineSearchElement, mountSearch } from 'unplugin-skill-kit/search-ui'`
// brings into a page, bundled by esbuild with minification as a site's
// production build would, then gzip -9. The whole entry (with `searchSource`,
// the knowledge-base source, which rides on the knowledge runtime a site loads
// anyway) is weighed too, for information.
//
//   node bench/search-ui.bench.mjs [--json]

import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { emitResult } from './util.mjs'

const GOAL_GZIP = 15 * 1024
const entry = fileURLToPath(new URL('../src/runtime/search-ui/index.ts', import.meta.url))

/** Minified and gzip -9 bytes of a module that re-exports `names` from the entry (`*`: all). */
async function weigh(names) {
  const contents = names === '*' ? `export * from ${JSON.stringify(entry)}` : `export { ${names.join(', ')} } from ${JSON.stringify(entry)}`
  const out = await build({ stdin: { contents, loader: 'ts', resolveDir: process.cwd() }, bundle: true, minify: true, format: 'esm', target: 'es2022', write: false, legalComments: 'none' })
  const code = out.outputFiles[0].contents
  return { minifiedBytes: code.length, gzipBytes: gzipSync(code, { level: 9 }).length }
}

const component = await weigh(['defineSearchElement', 'mountSearch'])
const whole = await weigh('*')
const fmt = n => n.toLocaleString('en')
console.log(`search UI component (defineSearchElement, mountSearch): ${fmt(component.minifiedBytes)} B minified, ${fmt(component.gzipBytes)} B gzip -9 (goal ≤ ${fmt(GOAL_GZIP)} B)`)
console.log(`the whole unplugin-skill-kit/search-ui entry: ${fmt(whole.minifiedBytes)} B minified, ${fmt(whole.gzipBytes)} B gzip -9`)
emitResult({ component, entry: whole, goal: { gzipBytes: GOAL_GZIP } })
if (component.gzipBytes > GOAL_GZIP)
  process.exitCode = 1
