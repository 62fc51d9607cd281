// The tiny test model's vocabulary lists `##s` twice (a letter's continuation
// and a suffix), so its tokenizer.json has a hole at the first one's ID, which
// `parseModelVocabulary` refuses: no query table is made from it. Filling the
// hole with an unused piece changes no tokenization (no text produces
// `[unused0]`), so the model's vectors stay the same and a table can be made.

import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'

/** Fills the holes of the tiny model's vocabulary in `models` (a folder `buildTinyModel` wrote). */
export function fillVocabularyHoles(models: string): void {
  const file = join(models, TINY_MODEL_ID, 'tokenizer.json')
  const tokenizer = JSON.parse(readFileSync(file, 'utf8')) as { model: { vocab: Record<string, number> } }
  const ids = new Set(Object.values(tokenizer.model.vocab))
  let unused = 0
  for (let id = 0; id < Math.max(...ids); id++) {
    if (!ids.has(id))
      tokenizer.model.vocab[`[unused${unused++}]`] = id
  }
  writeFileSync(file, JSON.stringify(tokenizer))
}
