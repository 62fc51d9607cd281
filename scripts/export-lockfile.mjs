// Regenerates src/export/runtime-package-lock.json, the lockfile exported semantic
// skills ship beside their package.json (it pins @huggingface/transformers for
// their vector search). An export runs without network, so the lockfile is made
// here, with the registry, whenever the Transformers.js version of package-lock.json
// changes (test/export/export.test.ts fails until it is): node scripts/export-lockfile.mjs

import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const repo = resolve(import.meta.dirname, '..')
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8'))
const version = lock.packages['node_modules/@huggingface/transformers'].version
const dir = mkdtempSync(join(tmpdir(), 'skill-kit-export-lock-'))
try {
  // The package.json exports write (src/export/semantic.ts), under a neutral name the export replaces.
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({
    name: 'skill-kit-export',
    private: true,
    type: 'module',
    dependencies: { '@huggingface/transformers': version },
    allowScripts: { 'onnxruntime-node': false },
  }, null, 2)}\n`)
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' })
  copyFileSync(join(dir, 'package-lock.json'), join(repo, 'src/export/runtime-package-lock.json'))
  console.log(`src/export/runtime-package-lock.json: @huggingface/transformers ${version}`)
}
finally {
  rmSync(dir, { recursive: true, force: true })
}
