import { describe, expect, it } from 'vitest'
import { closestTerm, lowerBound, TYPO_MIN_LENGTH, withinOneEdit } from '../../../../src/runtime/knowledge/lexical/typos'

describe('withinOneEdit', () => {
  it.each([
    ['container', 'container'],
    ['contianer', 'container'], // neighbours swapped
    ['containr', 'container'], // deleted
    ['containerr', 'container'], // inserted
    ['contaimer', 'container'], // replaced
    ['ab', 'ba'],
    ['', 'a'],
  ])('%s and %s are', (a, b) => {
    expect(withinOneEdit(a, b)).toBe(true)
    expect(withinOneEdit(b, a)).toBe(true)
  })

  it.each([
    ['cnotianer', 'container'], // two swaps
    ['contianr', 'container'], // swap and deletion
    ['container', 'containers2'], // two insertions
    ['abc', 'cab'], // a rotation, not a swap of neighbours
    ['ab', 'bca'], // a swap and an insertion
  ])('%s and %s are not', (a, b) => {
    expect(withinOneEdit(a, b)).toBe(false)
    expect(withinOneEdit(b, a)).toBe(false)
  })
})

describe('closestTerm', () => {
  const terms = ['apple', 'bakeri', 'backup', 'backups', 'cookie', 'cooki', 'store', 'stork', 'zebra'].sort()
  const chunks: Record<string, number> = { backup: 5, backups: 1, store: 2, stork: 3, cooki: 4, cookie: 1 }
  const frequency = (t: number) => chunks[terms[t]!] ?? 1

  it('returns the term one edit away with the same first letter, the one in most chunks on a choice, or −1', () => {
    expect(terms[closestTerm(terms, frequency, 'bakcup')]).toBe('backup')
    expect(terms[closestTerm(terms, frequency, 'backupz')]).toBe('backup') // backups (1 chunk) is one edit too
    expect(terms[closestTerm(terms, frequency, 'storq')]).toBe('stork') // stork (3) over store (2)
    expect(terms[closestTerm(terms, frequency, 'cookiz')]).toBe('cooki') // cooki (4) over cookie (1)
    expect(closestTerm(terms, frequency, 'vackup')).toBe(-1) // another first letter
    expect(closestTerm(terms, frequency, 'bkacpu')).toBe(-1) // two edits
  })

  it(`leaves terms under ${TYPO_MIN_LENGTH} letters, and terms not all a–z, uncorrected`, () => {
    const short = ['abcd', 'abce']
    expect(closestTerm(short, () => 1, 'abcf')).toBe(-1)
    expect(closestTerm(['backup2'], () => 1, 'backup3')).toBe(-1)
    expect(closestTerm(['größe'], () => 1, 'grösse')).toBe(-1)
    expect(closestTerm([], () => 1, 'backup')).toBe(-1)
  })

  it('scans one first letter\'s range of the sorted vocabulary', () => {
    expect(lowerBound(terms, 'b')).toBe(terms.indexOf('backup'))
    expect(lowerBound(terms, 'zz')).toBe(terms.length)
    expect(lowerBound(terms, '')).toBe(0)
    let calls = 0
    closestTerm(terms, (t) => { calls++; return frequency(t) }, 'stprk')
    expect(calls).toBe(1) // stork only: store is two edits from stprk, and no other letter is looked at
  })
})
