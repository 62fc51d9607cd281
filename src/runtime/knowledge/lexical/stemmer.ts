// The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980),
// for lowercase ASCII English words; anything else is returned as given.
// Zero-dependency and deterministic, so that the index built in Node and a
// query stemmed in a browser meet on the same terms.

const VOWELS = 'aeiou'

/** Whether `w[i]` is a consonant (`y` is one at the start or after a vowel). */
function consonant(w: string, i: number): boolean {
  const ch = w[i]!
  if (VOWELS.includes(ch))
    return false
  return ch !== 'y' || i === 0 || !consonant(w, i - 1)
}

/** m, the number of vowel–consonant sequences in `w[0…end)`: [C](VC)^m[V]. */
function measure(w: string, end = w.length): number {
  let m = 0
  let i = 0
  while (i < end && consonant(w, i))
    i++
  while (i < end) {
    while (i < end && !consonant(w, i))
      i++
    if (i >= end)
      break
    while (i < end && consonant(w, i))
      i++
    m++
  }
  return m
}

function hasVowel(w: string, end = w.length): boolean {
  for (let i = 0; i < end; i++) {
    if (!consonant(w, i))
      return true
  }
  return false
}

/** Ends with a double consonant. */
function doubleConsonant(w: string): boolean {
  const n = w.length
  return n >= 2 && w[n - 1] === w[n - 2] && consonant(w, n - 1)
}

/** Ends consonant–vowel–consonant, the last not w, x or y (`hop`, not `hoop`). */
function cvc(w: string, end = w.length): boolean {
  if (end < 3 || !consonant(w, end - 1) || consonant(w, end - 2) || !consonant(w, end - 3))
    return false
  const ch = w[end - 1]!
  return ch !== 'w' && ch !== 'x' && ch !== 'y'
}

/** Replaces the first suffix of `rules` that `w` ends with, when the stem before it has m > `minMeasure`. */
function replaceSuffix(w: string, rules: readonly (readonly [string, string])[], minMeasure: number): string {
  for (const [suffix, replacement] of rules) {
    if (w.endsWith(suffix)) {
      const stem = w.length - suffix.length
      return measure(w, stem) > minMeasure ? w.slice(0, stem) + replacement : w
    }
  }
  return w
}

const STEP2: readonly (readonly [string, string])[] = [
  ['ational', 'ate'], ['tional', 'tion'], ['enci', 'ence'], ['anci', 'ance'], ['izer', 'ize'], ['bli', 'ble'],
  ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous'], ['ization', 'ize'], ['ation', 'ate'],
  ['ator', 'ate'], ['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous'], ['aliti', 'al'],
  ['iviti', 'ive'], ['biliti', 'ble'], ['logi', 'log'],
]
const STEP3: readonly (readonly [string, string])[] = [
  ['icate', 'ic'], ['ative', ''], ['alize', 'al'], ['iciti', 'ic'], ['ical', 'ic'], ['ful', ''], ['ness', ''],
]
const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'] as const
// Longest first where one suffix ends another (ement, ment, ent).
const STEP4_ORDER = [...STEP4].sort((a, b) => b.length - a.length)

const ASCII_WORD = /^[a-z]+$/

/**
 * The Porter stem of `word` (`connections`, `connected`, `connecting` →
 * `connect`; `generalization` → `gener`). Words of one or two letters, and
 * words with characters other than a–z (digits, other scripts), are returned unchanged.
 */
export function porterStem(word: string): string {
  if (word.length <= 2 || !ASCII_WORD.test(word))
    return word
  let w = word
  // Step 1a: plurals.
  if (w.endsWith('sses'))
    w = w.slice(0, -2)
  else if (w.endsWith('ies'))
    w = w.slice(0, -2)
  else if (!w.endsWith('ss') && w.endsWith('s'))
    w = w.slice(0, -1)
  // Step 1b: -eed, -ed, -ing.
  if (w.endsWith('eed')) {
    if (measure(w, w.length - 3) > 0)
      w = w.slice(0, -1)
  }
  else {
    const suffix = w.endsWith('ed') ? 2 : w.endsWith('ing') ? 3 : 0
    if (suffix > 0 && hasVowel(w, w.length - suffix)) {
      w = w.slice(0, -suffix)
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz'))
        w += 'e'
      else if (doubleConsonant(w) && !/[lsz]$/.test(w))
        w = w.slice(0, -1)
      else if (measure(w) === 1 && cvc(w))
        w += 'e'
    }
  }
  // Step 1c: y → i after a vowel in the stem.
  if (w.endsWith('y') && hasVowel(w, w.length - 1))
    w = `${w.slice(0, -1)}i`
  w = replaceSuffix(w, STEP2, 0)
  w = replaceSuffix(w, STEP3, 0)
  // Step 4: drop a suffix when m > 1 (-ion only after s or t).
  for (const suffix of STEP4_ORDER) {
    if (w.endsWith(suffix)) {
      const stem = w.length - suffix.length
      if (measure(w, stem) > 1 && (suffix !== 'ion' || /[st]$/.test(w.slice(0, stem))))
        w = w.slice(0, stem)
      break
    }
  }
  // Step 5: a final e, a final double l.
  if (w.endsWith('e')) {
    const m = measure(w, w.length - 1)
    if (m > 1 || (m === 1 && !cvc(w, w.length - 1)))
      w = w.slice(0, -1)
  }
  if (w.endsWith('ll') && measure(w) > 1)
    w = w.slice(0, -1)
  return w
}
