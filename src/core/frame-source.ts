// The text a code frame needs from a file: its first lines, through the last
// one a frame shows, read in pieces. A diagnostic on line 1 of a 50 MB file
// (one refused for its size) then reads 64 KiB, not the whole file.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

/** Bytes read at a time. */
const PIECE = 64 * 1024
/** Lines a code frame shows after the one it points at (see `codeFrame`). */
const FRAME_AFTER = 2
/** Most bytes read: a frame past them (a line of megabytes) shows what was read. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024

/**
 * The start of `file` through at least line `line` + 2 (1-based), in whole
 * lines, as UTF-8 text: what `codeFrame` shows of a position on `line`. The
 * whole file when it is shorter, at most 16 MiB; `undefined` when it is not a
 * readable file (a folder, gone).
 */
export function frameSource(file: string, line: number): string | undefined {
  let fd: number
  try {
    fd = openSync(file, 'r')
  }
  catch {
    return undefined
  }
  try {
    if (!fstatSync(fd).isFile())
      return undefined
    const wanted = line + FRAME_AFTER
    const pieces: Buffer[] = []
    let breaks = 0
    let total = 0
    let ended = false
    while (breaks < wanted && total < MAX_FRAME_BYTES && !ended) {
      const piece = Buffer.allocUnsafe(PIECE)
      const read = readSync(fd, piece, 0, PIECE, null)
      const bytes = piece.subarray(0, read)
      pieces.push(bytes)
      total += read
      ended = read === 0
      for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1))
        breaks++
    }
    const text = Buffer.concat(pieces)
    if (ended)
      return text.toString('utf8')
    // Cut after the last whole line read, so that no character is cut in two
    // (a line longer than the bound keeps what was read, its last character possibly replaced).
    const end = text.lastIndexOf(10) + 1
    return (end === 0 ? text : text.subarray(0, end)).toString('utf8')
  }
  catch {
    return undefined
  }
  finally {
    closeSync(fd)
  }
}
