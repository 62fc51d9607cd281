import type { QueryTable } from '../../../src/knowledge/query-table/table'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { distilQueryTable } from '../../../src/knowledge/query-table/distil'
import { parseModelVocabulary } from '../../../src/knowledge/query-table/vocabulary'
import { FAKE_PIECES, fakeEmbedder, fakeTokenize, fakeTokenizerJson, fakeVector } from '../../support/fake-model'

const vocabulary = parseModelVocabulary(fakeTokenizerJson())!

const CORPUS = [
  '# Forms\n\nUse input validation with the form. Check the error and submit the form.\n\n## Dialog\n\nOpen a modal dialog and trap focus in it. Close the dialog with a button.',
  '# Offline\n\nA service worker can cache the site for offline use. The cache makes the page fast.\n\n```js\nconst secret = 1\n```\n\n## Images\n\nLazy loading of an image in the page. Use a font for the layout.',
  '# Theme\n\nDark mode for the theme of my site. Use css color for the dark theme.\n\n## Motion\n\nA view transition with scroll animation. Use the grid layout in html.',
  '# More\n\n- Focus the first input of the dialog.\n- Submit a form offline with a service worker.\n- Check the color of the button in dark mode.\n- Lazy loading for the font of the page.\n- Scroll the grid to the error.\n- Close the modal with the button.\n- Cache an image for the site.\n- The theme of the html page.\n- Animation and view transition for the layout.\n- Use validation to check the input.\n- Trap focus in the modal.\n- Open the page fast with the cache.',
]

/** What the runtime does with a table (float rows): pool the query's rows, add the bias, normalise. */
function staticVector(table: QueryTable, text: string): Float32Array {
  const rowOf = new Map(table.vocabulary.map((piece, row) => [piece, row]))
  const out = new Float64Array(table.dimensions)
  let found = 0
  let total = 0
  for (const id of fakeTokenize(text)) {
    const row = rowOf.get(FAKE_PIECES[id]!)
    if (row === undefined)
      continue
    const w = table.weights[row]!
    for (let d = 0; d < table.dimensions; d++)
      out[d]! += w * table.rows[row * table.dimensions + d]!
    found++
    total += w
  }
  const divisor = table.pooling === 'mean' ? found : total
  const v = Array.from(out, (x, d) => x / divisor + table.bias[d]!)
  const n = Math.hypot(...v)
  return Float32Array.from(v, x => x / n)
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0)

describe('distilQueryTable', () => {
  let cacheDir: string
  beforeEach(() => {
    cacheDir = mkdtempSync(join(tmpdir(), 'skill-kit-query-table-'))
  })
  afterEach(() => rmSync(cacheDir, { recursive: true, force: true }))

  it('keeps the corpus\'s pieces, the common ones and every single character, never a special token', async () => {
    const table = await distilQueryTable(fakeEmbedder(), { texts: CORPUS }, { vocabulary, cacheDir, commonPieces: 3 })
    const kept = new Set(table.vocabulary)
    for (const word of ['form', 'validation', 'dialog', 'cache', 'theme', 'grid'])
      expect(kept.has(word), word).toBe(true)
    // The three first whole words of the vocabulary the corpus does not use.
    const unused = FAKE_PIECES.filter(p => /^[a-z]{2,}$/.test(p) && !fakeTokenize(CORPUS.join(' ')).includes(FAKE_PIECES.indexOf(p)))
    expect(unused.filter(p => kept.has(p))).toEqual(unused.slice(0, 3))
    for (const letter of 'abcdefghijklmnopqrstuvwxyz')
      expect(kept.has(letter) && kept.has(`##${letter}`), letter).toBe(true)
    expect(table.vocabulary.filter(p => p.startsWith('['))).toEqual([])
    // Rows in token ID order, one weight each.
    expect(table.vocabulary).toEqual(FAKE_PIECES.filter(p => kept.has(p)))
    expect(table.rows).toHaveLength(table.vocabulary.length * table.dimensions)
    expect(table.weights).toHaveLength(table.vocabulary.length)
    expect(table.tokenizer).toEqual({ lowercase: true, stripAccents: true, continuingPrefix: '##', maxCharsPerWord: 100, maxPieces: 62 })
  })

  it('puts a query near the model\'s vector of it, closer than the pieces\' own vectors pooled', async () => {
    const embedder = fakeEmbedder()
    const table = await distilQueryTable(embedder, { texts: CORPUS }, { vocabulary, cacheDir, sif: 0, lambda: 1e-4 })
    const bare = await distilQueryTable(embedder, { texts: [] }, { vocabulary, cacheDir, sif: 0 })
    expect(Array.from(bare.bias)).toEqual(Array.from({ length: bare.dimensions }, () => 0))
    for (const query of ['how do we trap focus in an open modal dialog', 'offline cache with a service worker', 'dark theme colors', 'lazy image loading']) {
      const model = fakeVector(fakeTokenize(query))
      const mapped = cosine(staticVector(table, query), model)
      expect(mapped, query).toBeGreaterThan(0.9)
      // With no training text there is no map: a piece alone is far from the model's sentences (0.36–0.59 here).
      expect(mapped - cosine(staticVector(bare, query), model), query).toBeGreaterThan(0.3)
    }
  })

  it('weighs a piece the corpus repeats less than one it rarely uses', async () => {
    const table = await distilQueryTable(fakeEmbedder(), { texts: CORPUS }, { vocabulary, cacheDir })
    const weight = (piece: string) => table.weights[table.vocabulary.indexOf(piece)]!
    expect(weight('the')).toBeLessThan(weight('validation'))
    expect(weight('offline')).toBeLessThan(weight('validation'))
    // A piece the corpus never uses weighs fully.
    expect(weight('how')).toBe(1)
  })

  it('gives the same table to the bit, from the cache, asking the model only for what the cache lacks', async () => {
    const first = fakeEmbedder()
    const a = await distilQueryTable(first, { texts: CORPUS }, { vocabulary, cacheDir })
    expect(first.asked.length).toBeGreaterThan(a.vocabulary.length)
    expect(first.asked.filter(w => w.length === 1)).toHaveLength(a.vocabulary.length)

    const second = fakeEmbedder()
    const b = await distilQueryTable(second, { texts: [...CORPUS].reverse() }, { vocabulary, cacheDir })
    expect(second.asked).toEqual([])
    expect(b.vocabulary).toEqual(a.vocabulary)
    for (const key of ['rows', 'weights', 'bias'] as const)
      expect(Buffer.from(b[key].buffer).equals(Buffer.from(a[key].buffer)), key).toBe(true)

    // Another model (fingerprint) has its own rows.
    const other = fakeEmbedder('another-model')
    await distilQueryTable(other, { texts: CORPUS }, { vocabulary, cacheDir })
    expect(other.asked.length).toBe(first.asked.length)
  })

  it('refuses an embedder that does not tokenize with the model\'s vocabulary', async () => {
    const server = { ...fakeEmbedder(), unitsPerToken: 4 }
    await expect(distilQueryTable(server, { texts: CORPUS }, { vocabulary, cacheDir })).rejects.toThrow(/tokenizes with its model's own vocabulary/)
  })
})
