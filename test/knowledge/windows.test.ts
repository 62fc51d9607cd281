import { describe, expect, it } from 'vitest'
import { tokenWindows } from '../../src/knowledge/windows'

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)

describe('tokenWindows', () => {
  it('keeps a chunk that fits in one window', () => {
    expect(tokenWindows([1, 2], range(10, 15), { maxTokens: 16, overlapTokens: 2 })).toEqual([[1, 2, 10, 11, 12, 13, 14]])
  })

  it('cuts oversized content into overlapping windows, each with the context, losing no tail', () => {
    const windows = tokenWindows([1, 2], range(100, 130), { maxTokens: 12, overlapTokens: 3 })
    expect(windows.every(w => w.length <= 10 && w[0] === 1 && w[1] === 2)).toBe(true)
    expect(windows.map(w => w.slice(2))).toEqual([range(100, 108), range(105, 113), range(110, 118), range(115, 123), range(120, 128), range(125, 130)])
  })

  it('cuts a context longer than half a window', () => {
    const [window] = tokenWindows(range(0, 20), [99], { maxTokens: 12, overlapTokens: 0 })
    expect(window).toEqual([0, 1, 2, 3, 4, 99])
  })

  it('always makes progress, even with an overlap as large as the window', () => {
    expect(tokenWindows([], range(0, 5), { maxTokens: 4, overlapTokens: 10 })).toEqual([[0, 1], [1, 2], [2, 3], [3, 4]])
  })
})
