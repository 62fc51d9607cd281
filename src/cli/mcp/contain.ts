// The one gate between a path an MCP client names and the disk. A client is
// untrusted: it may send `..`, an absolute path, or a path through a symbolic
// link someone put in a skill folder. Only regular files whose real path lies
// inside the folder's real path are ever read.

import { readFileSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, join, posix, relative, sep } from 'node:path'

/** A path a client asked for that the server will not read; the message says why, in the client's terms. */
export class OutsideError extends Error {
  override name = 'OutsideError'
}

/**
 * `relativePath` as a `/`-separated path inside a folder, or `undefined`
 * when it names something outside (absolute, a drive, `..` up, empty).
 * Lexical only: {@link readContained} checks real paths.
 */
export function insidePath(relativePath: string): string | undefined {
  const slashed = relativePath.replace(/\\/g, '/')
  if (slashed === '' || slashed.includes('\0') || posix.isAbsolute(slashed) || /^[A-Z]:/i.test(slashed))
    return undefined
  const normalized = posix.normalize(slashed)
  if (normalized === '.' || normalized === '..' || normalized.startsWith('../'))
    return undefined
  return normalized
}

/** Whether the real path `path` is `root` or inside it. */
function within(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))
}

/**
 * The bytes of the file `relativePath` names inside `folder`, when it is a
 * regular file whose real path (every symbolic link resolved) is inside the
 * folder's real path. Anything else throws an {@link OutsideError}: a path
 * out of the folder, a link that leads out, a folder, or nothing there.
 */
export function readContained(folder: string, relativePath: string, shown: string): Buffer {
  const inside = insidePath(relativePath)
  if (inside === undefined)
    throw new OutsideError(`${shown} is outside the folder it is served from: paths are relative to it, without "..".`)
  let real: string
  try {
    real = realpathSync(join(folder, ...inside.split('/')))
  }
  catch {
    throw new OutsideError(`${shown} does not exist.`)
  }
  if (!within(realpathSync(folder), real))
    throw new OutsideError(`${shown} leads outside the folder it is served from (a symbolic link); only files inside it are served.`)
  if (!statSync(real).isFile())
    throw new OutsideError(`${shown} is not a file.`)
  return readFileSync(real)
}

/** Whether `path`, every symbolic link resolved, exists inside `folder` (also resolved). */
export function resolvesInside(folder: string, path: string): boolean {
  try {
    return within(realpathSync(folder), realpathSync(path))
  }
  catch {
    return false
  }
}
