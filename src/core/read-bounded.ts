// Reading a user's file with a size limit: at most `maxBytes + 1` bytes are
// read, so a file over the limit costs a stat and never its text in memory,
// and a file that grows meanwhile is no race.

import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs'

/** A file's text, or, when it is over the limit, its size and modification time (it was never read whole). */
export type BoundedRead = { text: string } | { size: number, mtimeMs: number }

/**
 * Where files are read first. Most skills and documents fit: they are read
 * with positioned reads into it and decoded, with no stat (a stat object and
 * a second buffer cost more than the read itself, on every file of a build).
 */
const FIRST = Buffer.allocUnsafe(64 * 1024)

/** `file` as UTF-8 text when it has at most `maxBytes` bytes; else what its stat says. */
export function readBounded(file: string, maxBytes: number): BoundedRead {
  const fd = openSync(file, 'r')
  try {
    // One byte more than allowed tells a file over the limit from one just at it.
    const want = Math.min(FIRST.length, maxBytes + 1)
    let read = 0
    while (read < want) {
      const n = readSync(fd, FIRST, read, want - read, read)
      if (n === 0)
        break
      read += n
    }
    if (read < want)
      return { text: FIRST.toString('utf8', 0, read) }
    // Larger than the buffer (or over a limit below its size): the size decides. Positioned reads left the file offset at 0.
    const { size, mtimeMs } = fstatSync(fd)
    return size > maxBytes || read > maxBytes ? { size: Math.max(size, read), mtimeMs } : { text: readFileSync(fd, 'utf8') }
  }
  finally {
    closeSync(fd)
  }
}
