import { describe, expect, it } from 'vitest'
import { codeFrame, FRAME_WIDTH } from '../../src/core/diagnostics'

describe('codeFrame', () => {
  it('shows short lines whole, with the caret under the column', () => {
    expect(codeFrame('a: 1\nb: [\nc: 3', { line: 2, column: 4 })).toBe([
      '  1 | a: 1',
      '> 2 | b: [',
      '    |    ^',
      '  3 | c: 3',
    ].join('\n'))
  })

  it('cuts lines wider than FRAME_WIDTH around the column, the same window on every line', () => {
    const long = `x: ${'['.repeat(10_000)}`
    const frame = codeFrame(`a: 1\n${long}\n${'b'.repeat(10_000)}`, { line: 2, column: 5000 })
    const lines = frame.split('\n')
    expect(lines[1]).toBe(`> 2 | …${long.slice(5000 - 1 - FRAME_WIDTH / 2, 5000 - 1 + FRAME_WIDTH / 2)}…`)
    // The caret stays under the character at the column.
    expect(lines[2]!.indexOf('^')).toBe(lines[1]!.indexOf('…') + 1 + FRAME_WIDTH / 2)
    expect(lines[0]).toBe('  1 | …')
    expect(lines[3]).toBe(`  3 | …${'b'.repeat(FRAME_WIDTH)}…`)
    expect(frame.length).toBeLessThan(4 * (FRAME_WIDTH + 10))
  })

  it('cuts the end of a long line when the column is near its start', () => {
    const frame = codeFrame(`## ${'{#'.repeat(50_000)}`, { line: 1, column: 4 })
    expect(frame).toBe(`> 1 | ${`## ${'{#'.repeat(50_000)}`.slice(0, FRAME_WIDTH)}…\n    |    ^`)
  })
})
