// frameSource: the lines a code frame shows, read from the start of a file and
// no further, whatever the file's size.

import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { codeFrame } from '../../src/core/diagnostics'
import { frameSource } from '../../src/core/frame-source'

const dir = mkdtempSync(join(tmpdir(), 'skill-kit-frame-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('frameSource', () => {
  it('reads through the two lines after the one framed, and frames it as the whole text does', () => {
    const file = join(dir, 'lines.md')
    const text = Array.from({ length: 100_000 }, (_, i) => `line ${i + 1} é`).join('\n')
    writeFileSync(file, text)
    const head = frameSource(file, 3)!
    // Whole lines, one piece of 64 KiB at most.
    expect(head.startsWith('line 1 é\nline 2 é\nline 3 é\nline 4 é\nline 5 é\n')).toBe(true)
    expect(head.endsWith('\n') && Buffer.byteLength(head) <= 64 * 1024).toBe(true)
    expect(codeFrame(head, { line: 3, column: 6 })).toBe(codeFrame(text, { line: 3, column: 6 }))
    const deep = frameSource(file, 70_000)!
    expect(deep).toContain('\nline 70002 é\n')
    expect(Buffer.byteLength(deep) < Buffer.byteLength(text)).toBe(true)
    expect(codeFrame(deep, { line: 70_000, column: 1 })).toBe(codeFrame(text, { line: 70_000, column: 1 }))
    expect(frameSource(file, 99_999)).toBe(text)
  })

  it('reads the first piece of a 50 MiB file for a frame of its first line', () => {
    const file = join(dir, 'big.md')
    writeFileSync(file, '# Big\n\nText.\n')
    truncateSync(file, 50 * 1024 * 1024)
    expect(frameSource(file, 1)).toBe('# Big\n\nText.\n')
  })

  it('gives the whole text of a short file, CRLF kept, and nothing for a folder or a missing file', () => {
    const file = join(dir, 'short.md')
    writeFileSync(file, 'a\r\nb')
    expect(frameSource(file, 1)).toBe('a\r\nb')
    mkdirSync(join(dir, 'folder'))
    expect(frameSource(join(dir, 'folder'), 1)).toBeUndefined()
    expect(frameSource(join(dir, 'missing.md'), 1)).toBeUndefined()
  })
})
