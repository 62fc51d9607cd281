import { describe, expect, it } from 'vitest'
import { buildLexicalIndex } from '../../../../src/runtime/knowledge/lexical/lexical-index'
import { searchLexical } from '../../../../src/runtime/knowledge/lexical/lexical'
import { LEXICAL_THRESHOLD_RULE, POOLING_RULE, THRESHOLD_RULE, TOP_K_RULE } from '../../../../src/runtime/knowledge/ranking/search-options'

describe('search option rules', () => {
  it('accept and refuse the values the searches always have', () => {
    expect([1, 5, 2 ** 53 - 1].map(TOP_K_RULE.test)).toEqual([true, true, true])
    expect([0, -1, 1.5, 2 ** 53, Number.NaN, '3', null].map(TOP_K_RULE.test)).toEqual([false, false, false, false, false, false, false])
    expect([-1, 0, 0.3, 1].map(THRESHOLD_RULE.test)).toEqual([true, true, true, true])
    expect([-1.01, 1.01, Number.NaN, Infinity, '0.5', null].map(THRESHOLD_RULE.test)).toEqual([false, false, false, false, false, false])
    expect([0, 0.25, 1].map(LEXICAL_THRESHOLD_RULE.test)).toEqual([true, true, true])
    expect([-0.1, 1.1, Number.NaN, '0.25'].map(LEXICAL_THRESHOLD_RULE.test)).toEqual([false, false, false, false])
    expect(['soft', 'max'].map(POOLING_RULE.test)).toEqual([true, true])
    expect(['Soft', '', undefined].map(POOLING_RULE.test)).toEqual([false, false, false])
  })

  it('word the messages of the searches that check them', () => {
    const index = buildLexicalIndex([{ text: 'view transitions', documentIndex: 0 }])
    expect(() => searchLexical(index, 'view', { topK: 0 })).toThrow(`topK must be ${TOP_K_RULE.expected}, got 0.`)
    expect(() => searchLexical(index, 'view', { threshold: 2 })).toThrow(`threshold must be ${LEXICAL_THRESHOLD_RULE.expected}, got 2.`)
    expect(() => searchLexical(index, 'view', { pooling: 'mean' as 'max' })).toThrow(`pooling must be ${POOLING_RULE.expected}, got mean.`)
    expect(TOP_K_RULE.expected).toBe('a positive integer')
    expect(THRESHOLD_RULE.expected).toBe('a number from -1 to 1')
  })
})
