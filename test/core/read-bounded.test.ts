import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readBounded } from '../../src/core/read-bounded'

describe('readBounded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'skill-kit-read-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  let n = 0
  const file = (content: string | Buffer) => {
    const path = join(dir, `f${n++}.md`)
    writeFileSync(path, content)
    return path
  }
  /** `length` characters of ASCII with a multi-byte character and a line break here and there. */
  const text = (length: number) => 'abc é\n'.repeat(Math.ceil(length / 6)).slice(0, length)

  it('reads a file at the limit and refuses one a byte over, below and above the first buffer\'s size', () => {
    for (const limit of [0, 10, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 200_000]) {
      const at = Buffer.alloc(limit, 'a')
      expect(readBounded(file(at), limit)).toEqual({ text: at.toString() })
      const over = file(Buffer.alloc(limit + 1, 'b'))
      expect(readBounded(over, limit)).toEqual({ size: limit + 1, mtimeMs: statSync(over).mtimeMs })
    }
  })

  it('decodes as readFileSync does: multi-byte characters across any length, a byte-order mark, invalid bytes', () => {
    for (const length of [0, 1, 5000, 64 * 1024 - 1, 64 * 1024 + 3, 300_000]) {
      const content = text(length)
      expect(readBounded(file(content), 4 * 1024 * 1024)).toEqual({ text: content })
    }
    const odd = Buffer.from([0xEF, 0xBB, 0xBF, 0x61, 0xFF, 0xC3, 0x28, 0xE2, 0x82, 0x0A, 0xF0, 0x9F, 0x98, 0x80])
    expect(readBounded(file(odd), 100)).toEqual({ text: odd.toString('utf8') })
  })

  it('gives the size of a file far over the limit without reading it', () => {
    const big = file(Buffer.alloc(3 * 1024 * 1024, 'x'))
    expect(readBounded(big, 1024 * 1024)).toEqual({ size: 3 * 1024 * 1024, mtimeMs: statSync(big).mtimeMs })
  })
})
