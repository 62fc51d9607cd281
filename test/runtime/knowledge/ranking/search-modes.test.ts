import { describe, expect, it } from 'vitest'
import { isSearchMode, SEARCH_MODE_LIST, SEARCH_MODES } from '../../../../src/runtime/knowledge/ranking/search-modes'

describe('search modes', () => {
  it('accepts exactly the modes of the table, auto first', () => {
    expect(SEARCH_MODES[0]).toBe('auto')
    for (const mode of SEARCH_MODES)
      expect(isSearchMode(mode)).toBe(true)
    for (const value of ['', 'Auto', 'semantic', 'toString', '__proto__', undefined, null, 0, ['auto']])
      expect(isSearchMode(value)).toBe(false)
  })

  it('lists the modes as a message names them', () => {
    expect(SEARCH_MODE_LIST).toBe('auto, vector, lexical or hybrid')
  })
})
