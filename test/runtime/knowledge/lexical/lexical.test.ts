import type { SearchHit } from '../../../../src/runtime/knowledge/ranking/search-rank'
import { describe, expect, it } from 'vitest'
import { encodeSnapshot } from '../../../../src/knowledge/snapshot'
import { buildLexicalIndex, FIELD_WEIGHT } from '../../../../src/runtime/knowledge/lexical/lexical-index'
import { LARGE_INDEX_CHUNKS, searchedTerms, TYPO_QUERY_TERMS } from '../../../../src/runtime/knowledge/lexical/searched-terms'
import { queryTerms, tokenize } from '../../../../src/runtime/knowledge/lexical/tokens'
import { searchHybrid } from '../../../../src/runtime/knowledge/ranking/search-hybrid'
import { searchLexical } from '../../../../src/runtime/knowledge/lexical/lexical'
import { rng } from '../../../support/random'
import { searchVectors } from '../../../../src/runtime/knowledge/vector/search'
import { decodeSnapshot } from '../../../../src/runtime/knowledge/format/snapshot-reader'
import { porterStem as stem } from '../../../../src/runtime/knowledge/lexical/stemmer'

describe('tokenize', () => {
  it('lowercases runs of letters and digits in any script; everything else separates', () => {
    expect(tokenize('Use content-visibility: auto; (CSS) v2.0')).toEqual([stem('use'), 'content', stem('visibility'), 'auto', 'css', 'v2', '0'])
    expect(tokenize('Größe ändern — ÉCOLE naïve')).toEqual(['größe', 'ändern', 'école', 'naïve'])
    expect(tokenize('Привет мир')).toEqual(['привет', 'мир'])
    expect(tokenize('don\'t')).toEqual(['don', 't'])
  })

  it('applies NFKC: full-width letters and ligatures, composed and decomposed accents meet', () => {
    expect(tokenize('ＡＢＣ ﬁle')).toEqual(tokenize('abc file'))
    expect(tokenize('cafe\u0301')).toEqual(tokenize('caf\u00E9'))
  })

  it('makes each Han, Hiragana or Katakana character a token', () => {
    expect(tokenize('日本語のテスト abc')).toEqual(['日', '本', '語', 'の', 'テ', 'ス', 'ト', 'abc'])
  })
})

describe('index terms (Porter stems)', () => {
  it.each([
    ['images', 'image', 'imag'],
    ['caches', 'cache', 'cach'],
    ['queries', 'query', 'queri'],
    ['cookies', 'cookie', 'cooki'],
    ['policies', 'policy', 'polici'],
    ['boxes', 'box', 'box'],
    ['classes', 'class', 'class'],
    ['matches', 'match', 'match'],
    ['processes', 'process', 'process'],
    ['keys', 'key', 'kei'],
    ['animations', 'animating', 'anim'],
    ['scrolled', 'scrolling', 'scroll'],
  ])('%s and %s → %s', (a, b, key) => {
    expect(tokenize(a)).toEqual([key])
    expect(tokenize(b)).toEqual([key])
  })

  it('leaves short and non-ASCII words, and words with digits, alone', () => {
    for (const word of ['css', 'größe', 'v2', 'is', 'h264'])
      expect(tokenize(word)).toEqual([word])
  })
})

describe('buildLexicalIndex', () => {
  it('stores sorted terms with ascending postings, term frequencies and chunk lengths', () => {
    const index = buildLexicalIndex([
      { text: 'b a a', documentIndex: 0 },
      { text: 'a c', documentIndex: 1 },
    ])
    expect(index.terms).toEqual(['a', 'b', 'c'])
    expect([...index.offsets]).toEqual([0, 2, 3, 4])
    expect([...index.postings]).toEqual([0, 1, 0, 1])
    expect([...index.frequencies]).toEqual([2, 1, 1, 1])
    expect([...index.lengths]).toEqual([3, 2])
    expect([...index.chunkDocuments]).toEqual([0, 1])
    expect(index.documentCount).toBe(2)
  })

  it('counts the words of a chunk\'s heading path and document ID FIELD_WEIGHT times, in frequencies and lengths', () => {
    expect(FIELD_WEIGHT).toBe(2)
    const index = buildLexicalIndex([
      { text: 'b a', documentIndex: 0, heading: ['A', 'c'], documentId: 'guides/b-a' },
      { text: '', documentIndex: 0 },
    ])
    expect(index.terms).toEqual(['a', 'b', 'c', 'guid'])
    expect([...index.frequencies]).toEqual([1 + 2 + 2, 1 + 2, 2, 2])
    expect([...index.lengths]).toEqual([2 + 2 * 2 + 2 * 3, 0])
  })

  it('is deterministic', () => {
    const chunks = [{ text: 'Zeta alpha beta', documentIndex: 0 }, { text: 'beta gamma', documentIndex: 0 }]
    expect(buildLexicalIndex(chunks)).toEqual(buildLexicalIndex(chunks))
  })
})

// Documents in ID order (as in a snapshot): a-images, b-backup, c-cookies, d-empty.
const CHUNKS = [
  { text: 'Lazy loading images: add loading="lazy" to offscreen images.', documentIndex: 0 },
  { text: 'Image formats: AVIF and WebP compress better than JPEG.', documentIndex: 0 },
  { text: 'Restore deleted files from a backup archive.', documentIndex: 1 },
  { text: 'Cookies: set the SameSite attribute on every cookie.', documentIndex: 2 },
  { text: 'Storage partitioning keys third-party storage by top-level site.', documentIndex: 2 },
  { text: 'Nothing to see here.', documentIndex: 3 },
]

/** BM25 written out term by term, to check the index arithmetic, normalised as S / (S + R). */
function referenceScores(query: string): number[] {
  const docs = CHUNKS.map(c => tokenize(c.text))
  const avg = docs.reduce((a, d) => a + d.length, 0) / docs.length
  const terms = queryTerms(query)
  const weights: number[] = []
  const scores = docs.map(() => 0)
  for (const term of terms) {
    const df = docs.filter(d => d.includes(term)).length
    const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5))
    weights.push(Math.max(idf, Math.LN2))
    for (const [c, d] of docs.entries()) {
      const tf = d.filter(t => t === term).length
      if (tf)
        scores[c]! += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * d.length / avg))
    }
  }
  // The reference: the four most informative terms, each once in a chunk of average length.
  const reference = weights.sort((a, b) => b - a).slice(0, 4).reduce((a, b) => a + b, 0)
  return scores.map(s => s / (s + reference))
}

describe('searchLexical', () => {
  const index = buildLexicalIndex(CHUNKS)

  it('scores BM25 (k1 1.2, b 0.75) normalised as S / (S + R), R the reference of the query\'s informative terms', () => {
    // One term in one of two chunks: idf = ln 2, length 2 vs average 1.5 → S = ln 2 · 2.2 / (1 + 1.2 · 1.25) = 0.88 ln 2,
    // R = ln 2 (the term once in an average chunk), so the score is 0.88 / 1.88.
    const tiny = buildLexicalIndex([{ text: 'x y', documentIndex: 0 }, { text: 'z', documentIndex: 1 }])
    const [hit] = searchLexical(tiny, 'x')
    expect(hit!.documentIndex).toBe(0)
    expect(hit!.score).toBeCloseTo(0.88 / 1.88, 12)

    for (const query of ['lazy loading images', 'cookie storage', 'restore backup of images', 'what are the formats of images, cookies, storage, backups and archives?']) {
      const expected = referenceScores(query)
      for (const hit of searchLexical(index, query, { topK: 10, threshold: 0, pooling: 'max' }))
        expect(hit.score).toBeCloseTo(expected[hit.chunk]!, 12)
    }
  })

  it('with pooling \'max\', scores a document by its best chunk, best first, and folds plurals', () => {
    const hits = searchLexical(index, 'image', { threshold: 0, pooling: 'max' })
    expect(hits.map(h => h.documentIndex)).toEqual([0])
    expect(hits[0]!.chunk).toBe(0) // two occurrences of "images" beat one of "Image"
    expect(searchLexical(index, 'cookie storage partitioning', { threshold: 0, pooling: 'max' }).map(h => [h.documentIndex, h.chunk])).toEqual([[2, 4]])
  })

  it('by default, scores a document by the log-mean-exp (T 0.05) of its text chunks\' normalised scores', () => {
    const logMeanExp = (scores: number[]) => 0.05 * Math.log(scores.reduce((sum, s) => sum + Math.exp(s / 0.05), 0) / scores.length)
    const expected = referenceScores('cookie storage')
    const [hit] = searchLexical(index, 'cookie storage', { threshold: 0 })
    expect(hit!.documentIndex).toBe(2)
    expect(hit!.chunk).toBe(expected[3]! > expected[4]! ? 3 : 4)
    expect(hit!.score).toBeCloseTo(logMeanExp([expected[3]!, expected[4]!]), 12)
    // A document of one matching chunk among three with text, and one of a single chunk: the focused one wins.
    const broad = buildLexicalIndex([
      { text: 'zeta alpha', documentIndex: 0 },
      { text: 'other words here', documentIndex: 0 },
      { text: 'more other words', documentIndex: 0 },
      { text: '', documentIndex: 0 }, // a second window: no text, not counted
      { text: 'zeta beta', documentIndex: 1 },
    ])
    const hits = searchLexical(broad, 'zeta', { threshold: 0 })
    expect(hits.map(h => h.documentIndex)).toEqual([1, 0])
    expect(hits[0]!.score).toBeCloseTo(searchLexical(broad, 'zeta', { threshold: 0, pooling: 'max' }).find(h => h.documentIndex === 1)!.score, 12)
    const best0 = searchLexical(broad, 'zeta', { threshold: 0, pooling: 'max' }).find(h => h.documentIndex === 0)!.score
    expect(hits[1]!.score).toBeCloseTo(logMeanExp([best0, 0, 0]), 12)
    expect(() => searchLexical(broad, 'zeta', { pooling: 'sum' as 'max' })).toThrow(expect.objectContaining({ name: 'KnowledgeError', code: 'invalid-options', message: 'pooling must be \'soft\' or \'max\', got sum.' }))
  })

  it('returns the same top K as a search of every document: only the documents that can make it are pooled', () => {
    const random = rng(3)
    const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'theta', 'lambda', 'zeta']
    const chunks = Array.from({ length: 600 }, (_, c) => ({ text: Array.from({ length: 8 }, () => words[Math.floor(random() * random() * words.length)]).join(' '), documentIndex: Math.floor(c / 6) }))
    const many = buildLexicalIndex(chunks)
    for (const query of ['alpha', 'theta lambda', 'zeta kappa sigma', 'beta gamma delta omega'])
      expect(searchLexical(many, query, { topK: 3, threshold: 0 })).toEqual(searchLexical(many, query, { topK: 1000, threshold: 0 }).slice(0, 3))
  })

  it(`does not score words in more than half the chunks of an index of ${LARGE_INDEX_CHUNKS} or more, unless the query has nothing else`, () => {
    const texts = (n: number) => Array.from({ length: n }, (_, c) => ({ text: c === 0 ? 'rare word' : c % 3 ? 'common word' : 'filler text', documentIndex: c }))
    const small = buildLexicalIndex(texts(LARGE_INDEX_CHUNKS - 1))
    const large = buildLexicalIndex(texts(LARGE_INDEX_CHUNKS))
    // "word" is in two thirds of the chunks: the small index still scores it, the large one not.
    expect(searchLexical(small, 'rare word', { threshold: 0, topK: 3 }).map(h => h.documentIndex)).toEqual([0, 1, 2])
    expect(searchLexical(large, 'rare word', { threshold: 0, topK: 3 }).map(h => h.documentIndex)).toEqual([0])
    expect(searchLexical(large, 'word', { threshold: 0, topK: 3 }).map(h => h.documentIndex)).toEqual([0, 1, 2])
  })

  it('ranks a chunk whose heading or document ID names the query above one that mentions it in passing', () => {
    const fielded = buildLexicalIndex([
      { text: 'Dialogs can be closed with a button, and a popover closes on a click outside.', documentIndex: 0, heading: ['Dialogs'], documentId: 'ui/dialogs' },
      { text: 'Close on a click outside the box.', documentIndex: 1, heading: ['Light dismiss'], documentId: 'ui/light-dismiss' },
    ])
    expect(searchLexical(fielded, 'light dismiss', { threshold: 0 }).map(h => h.documentIndex)).toEqual([1])
    expect(searchLexical(fielded, 'click outside dismiss', { threshold: 0 }).map(h => h.documentIndex)).toEqual([1, 0])
  })

  it('keeps scores between 0 and 1; unknown query terms lower them', () => {
    const full = searchLexical(index, 'restore backup')[0]!
    const diluted = searchLexical(index, 'restore backup kubernetes', { threshold: 0 })[0]!
    expect(full.score).toBeGreaterThan(diluted.score)
    expect(full.score).toBeLessThan(1)
    expect(diluted.score).toBeGreaterThan(0)
  })

  it('applies the threshold (default 0.25) and topK; ties by document index', () => {
    expect(searchLexical(index, 'kubernetes')).toEqual([])
    expect(searchLexical(index, '')).toEqual([])
    const tie = buildLexicalIndex([{ text: 'same words', documentIndex: 1 }, { text: 'same words', documentIndex: 0 }, { text: 'other', documentIndex: 2 }])
    expect(searchLexical(tie, 'same').map(h => h.documentIndex)).toEqual([0, 1])
    expect(searchLexical(tie, 'same', { topK: 1 }).map(h => h.documentIndex)).toEqual([0])
    const all = searchLexical(index, 'restore images cookie storage webp', { threshold: 0, topK: 10, pooling: 'max' })
    expect(all.map(h => h.documentIndex).sort()).toEqual([0, 1, 2])
    expect(all[0]!.score > all[1]!.score && all[1]!.score > all[2]!.score).toBe(true)
    const middle = all[1]!.score
    expect(searchLexical(index, 'restore images cookie storage webp', { threshold: middle, topK: 10, pooling: 'max' })).toEqual(all.slice(0, 2))
    expect(searchLexical(index, 'restore images cookie storage webp', { threshold: middle + 1e-9, topK: 10, pooling: 'max' })).toEqual(all.slice(0, 1))
    // The threshold applies to a document's best chunk, whatever its pooled score.
    const soft = searchLexical(index, 'restore images cookie storage webp', { threshold: middle, topK: 10 })
    expect(soft.map(h => h.documentIndex).sort()).toEqual(all.slice(0, 2).map(h => h.documentIndex).sort())
    expect(searchLexical(index, 'restore images cookie storage webp', { topK: 10, pooling: 'max' }).every(h => h.score >= 0.25)).toBe(true)
    expect(() => searchLexical(index, 'x', { threshold: 2 })).toThrow(/threshold/)
    expect(() => searchLexical(index, 'x', { topK: 0 })).toThrow(/topK/)
  })

  it('drops question words and other stopwords from a query with other terms, and searches a query of nothing else', () => {
    expect(queryTerms('How can I recover the deleted files?')).toEqual(['recov', 'delet', 'file'])
    expect(queryTerms('I want to use a dialog instead, without any JavaScript')).toEqual(['dialog', 'javascript'])
    expect(queryTerms('What\'s in it for me?')).toEqual(['what', 's', 'in', 'it', 'for', 'me'])
    expect(queryTerms('Wie kann ich gelöschte Dateien wiederherstellen?')).toEqual(['wie', 'kann', 'ich', 'gelöschte', 'dateien', 'wiederherstellen'])
    const words = buildLexicalIndex([{ text: 'Where it is: the how and the why.', documentIndex: 0 }, { text: 'Restore deleted files.', documentIndex: 1 }])
    expect(searchLexical(words, 'how is it?', { threshold: 0 }).map(h => h.documentIndex)).toEqual([0])
  })

  it('finds a question as its keywords do, under the default threshold', () => {
    const keywords = searchLexical(index, 'recover deleted files')
    const question = searchLexical(index, 'How can I recover deleted files?')
    expect(keywords.map(h => h.documentIndex)).toEqual([1])
    expect(question).toEqual(keywords)
  })

  it('corrects a short query\'s term the index lacks to the index term one edit away, and scores it as that term', () => {
    // Stems one edit from the index's: bakcup (swap), sameist (swap), archvi (swap), cookei (insertion). As if spelt right, reference included.
    for (const [typed, meant] of [['restore bakcup', 'restore backup'], ['cookie sameiste', 'cookie samesite'], ['backup archvie', 'backup archive'], ['samesite cookei', 'samesite cookie']] as const) {
      expect(searchLexical(index, typed, { threshold: 0, topK: 10 })).toEqual(searchLexical(index, meant, { threshold: 0, topK: 10 }))
      expect(searchedTerms(index, typed)).toEqual(searchedTerms(index, meant))
    }
    // Two edits, another first letter, or fewer than five letters: unknown, and the term lowers the score as any unknown term does.
    for (const typed of ['restore bakcpu', 'restore vackup', 'lazy imgs']) {
      expect(searchedTerms(index, typed)).toContain(-1)
      expect(searchLexical(index, typed, { threshold: 0 })[0]!.score).toBeLessThan(searchLexical(index, typed.replace(/ \S+$/, ''), { threshold: 0 })[0]!.score)
    }
  })

  it(`corrects typos in queries of at most ${TYPO_QUERY_TERMS} terms only: a long prompt's unknown words are more often real words`, () => {
    const short = 'restore the bakcup archive of deleted files'
    const long = 'restore the bakcup archive of deleted files, cookies and images'
    expect(queryTerms(short)).toHaveLength(TYPO_QUERY_TERMS)
    expect(searchedTerms(index, short)).not.toContain(-1)
    expect(queryTerms(long)).toHaveLength(TYPO_QUERY_TERMS + 2)
    expect(searchedTerms(index, long).filter(t => t === -1)).toHaveLength(1)
  })

  it('picks the correction found in most chunks, and folds a correction already in the query into one term', () => {
    const words = buildLexicalIndex([
      { text: 'stored store', documentIndex: 0 },
      { text: 'stores', documentIndex: 1 },
      { text: 'stork', documentIndex: 1 },
    ])
    // `storq` is one edit from `store` (2 chunks) and `stork` (1 chunk).
    expect(searchedTerms(words, 'storq').map(t => words.terms[t])).toEqual(['store'])
    expect(searchedTerms(words, 'storq store').map(t => words.terms[t])).toEqual(['store'])
  })

  it('also searches two neighbouring informative words as the one term the index holds for them (identifiers, compounds)', () => {
    const joined = buildLexicalIndex([
      { text: 'Call dialog.showModal() to open it on top.', documentIndex: 0 },
      { text: 'The modal shows a form.', documentIndex: 1 },
      { text: 'Wifi drops at night.', documentIndex: 2 },
    ])
    expect(searchedTerms(joined, 'show modal').map(t => joined.terms[t])).toEqual(['show', 'modal', 'showmod'])
    expect(searchLexical(joined, 'show modal', { threshold: 0 }).map(h => h.documentIndex)).toEqual([1, 0])
    expect(searchLexical(joined, 'wi fi drops', { threshold: 0 }).map(h => h.documentIndex)).toEqual([2])
    // wi and fi are unknown words and count in the reference, so the joined term alone scores lower than `wifi` does.
    expect(searchLexical(joined, 'wi fi', { threshold: 0 }).map(h => h.documentIndex)).toEqual([2])
    expect(searchLexical(joined, 'wi fi', { threshold: 0 })[0]!.score).toBeLessThan(searchLexical(joined, 'wifi', { threshold: 0 })[0]!.score)
    // Not across a stopword: "show the modal" searches show and modal only, which the first chunk does not hold.
    expect(searchedTerms(joined, 'show the modal').map(t => joined.terms[t])).toEqual(['show', 'modal'])
    expect(searchLexical(joined, 'show the modal', { threshold: 0 }).map(h => h.documentIndex)).toEqual([1])
  })

  it('given a snapshot, returns document metadata like searchVectors', () => {
    const snap = decodeSnapshot(encodeSnapshot({
      model: 'test',
      documents: [{ id: 'b-backup', description: 'Backups' }, { id: 'a-images', description: 'Images', tags: ['img'] }],
      chunks: [
        { documentIndex: 1, vector: [1, 0], text: CHUNKS[0]!.text, heading: ['Lazy loading'] },
        { documentIndex: 0, vector: [0, 1], text: CHUNKS[2]!.text },
      ],
      lexical: true,
    }))
    expect(searchLexical(snap, 'lazy images')).toEqual([{
      id: 'a-images',
      description: 'Images',
      category: '',
      categories: [],
      tags: ['img'],
      path: '',
      tokenCount: 0,
      score: expect.any(Number),
      documentIndex: 0,
      chunk: 0,
      heading: ['Lazy loading'],
    }])
    const withoutLexical = decodeSnapshot(encodeSnapshot({ model: 'test', documents: [{ id: 'a' }], chunks: [{ documentIndex: 0, vector: [1] }] }))
    expect(() => searchLexical(withoutLexical, 'x')).toThrow(/no lexical index/)
  })
})

describe('searchHybrid (reciprocal rank fusion, k = 60)', () => {
  const hit = (documentIndex: number, score = 0.5): SearchHit => ({ documentIndex, chunk: documentIndex * 10, score })

  it('sums 1 / (60 + rank) over both lists', () => {
    const fused = searchHybrid([hit(3), hit(1), hit(2)], [hit(1), hit(4)], { topK: 10 })
    expect(fused.map(h => h.documentIndex)).toEqual([1, 3, 4, 2])
    expect(fused[0]).toMatchObject({ documentIndex: 1, vectorRank: 2, lexicalRank: 1, vectorScore: 0.5, lexicalScore: 0.5 })
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 15)
    expect(fused[1]).toMatchObject({ documentIndex: 3, score: 1 / 61, vectorRank: 1, lexicalRank: null, lexicalScore: null })
    expect(fused[2]).toMatchObject({ documentIndex: 4, score: 1 / 62, vectorRank: null, lexicalRank: 2 })
  })

  it('breaks ties by document index and keeps topK (default 5)', () => {
    const fused = searchHybrid([hit(5), hit(2)], [hit(2), hit(5)])
    expect(fused.map(h => h.documentIndex)).toEqual([2, 5])
    const many = searchHybrid([0, 1, 2, 3, 4, 5, 6].map(d => hit(d)), [])
    expect(many.map(h => h.documentIndex)).toEqual([0, 1, 2, 3, 4])
    expect(searchHybrid([], [])).toEqual([])
  })

  it('fuses snapshot results: a document found both ways rises; metadata stays', () => {
    // Vectors favour "c-cookies" then "a-images"; words favour "a-images".
    const snap = decodeSnapshot(encodeSnapshot({
      model: 'test',
      documents: [{ id: 'a-images' }, { id: 'b-backup' }, { id: 'c-cookies' }],
      chunks: [
        { documentIndex: 0, vector: [0.8, 0.6], text: CHUNKS[0]!.text },
        { documentIndex: 1, vector: [0, 1], text: CHUNKS[2]!.text },
        { documentIndex: 2, vector: [0.9, Math.sqrt(1 - 0.81)], text: CHUNKS[3]!.text },
      ],
      lexical: true,
    }))
    const vector = searchVectors(snap, [1, 0], { topK: 20 })
    const lexical = searchLexical(snap, 'lazy images', { topK: 20 })
    expect(vector.map(r => r.id)).toEqual(['c-cookies', 'a-images'])
    expect(lexical.map(r => r.id)).toEqual(['a-images'])
    const fused = searchHybrid(vector, lexical)
    expect(fused.map(r => r.id)).toEqual(['a-images', 'c-cookies'])
    expect(fused[0]).toMatchObject({ id: 'a-images', vectorRank: 2, lexicalRank: 1, vectorScore: vector[1]!.score, lexicalScore: lexical[0]!.score })
  })

  it('validates its options', () => {
    expect(() => searchHybrid([], [], { topK: 0 })).toThrow(/topK/)
    expect(() => searchHybrid([], [], { k: -1 })).toThrow(/k must/)
  })
})
