// A folder as a .tar.gz that is the same bytes wherever and whenever it is
// made (the well-known index's `archive` artefacts, whose digest a client
// caches): entries sorted by path, every attribute fixed, the gzip header
// without a time or the build machine's system.

import { gzipSync } from 'node:zlib'
import { createTar } from 'nanotar'

/** One file of an archive: its path inside it (`/`-separated, relative) and its bytes. */
export interface ArchiveFile {
  path: string
  data: Uint8Array
}

/** The most bytes of a path a ustar header holds (nanotar writes no longer-name extension: it would cut the path). */
export const MAX_ARCHIVE_PATH_BYTES = 100

/**
 * Every entry's attributes: a readable file owned by nobody in particular,
 * dated at the epoch. A file's own mode, owner and time vary between
 * checkouts of the same folder; clients never run what they unpack anyway.
 */
const FIXED_ATTRS = { mode: '644', uid: 0, gid: 0, user: '', group: '', mtime: 0 }

/** Offset of the gzip header's OS byte (RFC 1952), which zlib sets to the platform it runs on. */
const GZIP_OS_BYTE = 9
/** "Unix", as GNU gzip writes it everywhere. */
const GZIP_OS_UNIX = 3

/** A tar end: two zero blocks (nanotar pads to whole 10 KiB records, which may leave none). */
const TAR_END_BYTES = 1024
const TAR_RECORD_BYTES = 10240

/** Why `path` cannot be an archive entry as it is, or `undefined`. */
export function archivePathProblem(path: string): string | undefined {
  if (path === '' || path.startsWith('/') || path.split('/').some(part => part === '' || part === '.' || part === '..'))
    return 'it is not a relative path inside the folder'
  const bytes = new TextEncoder().encode(path).length
  if (bytes > MAX_ARCHIVE_PATH_BYTES)
    return `its path has ${bytes} bytes, and an archive entry's at most ${MAX_ARCHIVE_PATH_BYTES}`
  return undefined
}

/**
 * `files` as a gzip-compressed tar, reproducible byte for byte: sorted by
 * path, fixed attributes ({@link FIXED_ATTRS}), no directory entries, gzip
 * level 9 with no name or time and the OS byte fixed. A path that
 * {@link archivePathProblem} refuses, or one given twice, is a bug of the caller.
 */
export function reproducibleTarGz(files: readonly ArchiveFile[]): Uint8Array {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  sorted.forEach((file, i) => {
    const problem = archivePathProblem(file.path)
    if (problem || file.path === sorted[i - 1]?.path)
      throw new Error(`Invalid archive entry ${file.path}: ${problem ?? 'given twice'}`)
  })
  const tar = createTar(sorted.map(file => ({ name: file.path, data: file.data, attrs: FIXED_ATTRS })))
  const gzip = gzipSync(withEnd(tar, sorted), { level: 9 })
  gzip[GZIP_OS_BYTE] = GZIP_OS_UNIX
  return new Uint8Array(gzip.buffer, gzip.byteOffset, gzip.byteLength)
}

/** The tar with room for its end blocks: a record more of zeros when nanotar's padding left less than two blocks. */
function withEnd(tar: Uint8Array, files: readonly ArchiveFile[]): Uint8Array {
  const used = files.reduce((total, file) => total + 512 + Math.ceil(file.data.length / 512) * 512, 0)
  if (tar.length - used >= TAR_END_BYTES)
    return tar
  const out = new Uint8Array(tar.length + TAR_RECORD_BYTES)
  out.set(tar)
  return out
}
