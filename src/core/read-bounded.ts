// Reading a user's file with a size limit: the size comes from the open file
// (one open, one fstat, one read), so a file over the limit costs a stat and
// never its text in memory, and a file that grows meanwhile is no race.

import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs'

/** A file's text, or, when it is over the limit, its size and modification time (it was never read). */
export type BoundedRead = { text: string } | { size: number, mtimeMs: number }

/** `file` as UTF-8 text when it has at most `maxBytes` bytes; else what its stat says. */
export function readBounded(file: string, maxBytes: number): BoundedRead {
  const fd = openSync(file, 'r')
  try {
    const { size, mtimeMs } = fstatSync(fd)
    return size > maxBytes ? { size, mtimeMs } : { text: readFileSync(fd, 'utf8') }
  }
  finally {
    closeSync(fd)
  }
}
