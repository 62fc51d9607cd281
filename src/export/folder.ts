// An exported skill as a list of files, and how it is written: into a
// temporary folder beside the destination, renamed into place at the end, so
// that the destination appears complete or not at all.

import type { Stats } from 'node:fs'
import { lstatSync, realpathSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { removeDeadTemporaries } from '../core/atomic'
import { ExportError } from './error'

/** One file of an export: its path in the folder (`/`-separated) and how to get its bytes. */
export interface ExportFile {
  path: string
  /** Read when the file is written (documents and model files are copied from disk then). */
  read: () => Promise<Uint8Array | string>
}

/** A file whose bytes are known. */
export function fileOf(path: string, data: Uint8Array | string): ExportFile {
  return { path, read: async () => data }
}

/** A file copied from disk when it is written. */
export function copyOf(path: string, from: string): ExportFile {
  return { path, read: () => readFile(from) }
}

const byPath = (a: ExportFile, b: ExportFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

/** The files sorted by path; a path given twice or leaving the folder is a bug of the caller. */
export function sortedFiles(files: readonly ExportFile[]): ExportFile[] {
  const sorted = [...files].sort(byPath)
  sorted.forEach((file, i) => {
    if (file.path === sorted[i - 1]?.path || file.path.startsWith('/') || file.path.split('/').some(part => part === '..' || part === '.' || part === ''))
      throw new Error(`Invalid export file list: ${file.path}`)
  })
  return sorted
}

/** The temporary folders of {@link writeExportFolder}: `.<name>.export-<pid>-<random>`. */
const EXPORT_TEMPORARY = /^\..+\.export-(\d+)-[^.]+$/

/**
 * Refuses a destination that exists: an export never replaces or merges into
 * a folder. A symbolic link counts, dangling or not: the final rename would
 * replace it.
 */
export function assertNewDestination(dest: string, shown: string): void {
  if (lstatOrNothing(dest))
    throw new ExportError('destination-exists', `${shown} already exists. An export never overwrites: choose a new destination, or remove that one first.`)
}

/**
 * What `lstat` says of `path` (a symbolic link itself, even a dangling one),
 * or nothing when the path cannot exist because a part of it is a file: making
 * its folder then says which file is in the way.
 */
function lstatOrNothing(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false })
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined
    throw error
  }
}

/**
 * Where `path` really is: the real path of its nearest existing ancestor (every
 * symbolic link in it resolved), joined with the part that does not exist yet.
 * A path compared by its text alone would let `link/out` pass, where `link`
 * points into a folder the export must not write to.
 */
export function realDestination(path: string): string {
  const missing: string[] = []
  let existing = resolve(path)
  for (;;) {
    try {
      return join(realpathSync.native(existing), ...missing)
    }
    catch {
      const parent = dirname(existing)
      if (parent === existing)
        return resolve(path)
      missing.unshift(basename(existing))
      existing = parent
    }
  }
}

/**
 * Refuses a destination inside the knowledge folder `knowledge` (or that
 * folder itself), real paths compared: the next build would index the
 * exported documents as documents of the project. `shown` names the
 * destination in the message.
 */
export function assertOutsideKnowledge(dest: string, knowledge: string, shown: string): void {
  const real = realDestination(dest)
  const inside = relative(realDestination(knowledge), real)
  if (inside.startsWith('..') || isAbsolute(inside))
    return
  const through = real === resolve(dest) ? '' : ` (through a symbolic link: its real path is ${real})`
  throw new ExportError('destination-inside', `${shown} is inside the knowledge folder${through}, where the exported documents would become documents of the project. Export to a folder outside it.`)
}

/**
 * Writes `files` as the new folder `dest`: into a temporary folder beside it
 * (same file system, so the final rename is atomic), in path order, then
 * renamed to `dest`. On any failure the temporary folder is removed and
 * `dest` does not exist. `dest` must not exist (see {@link assertNewDestination}).
 */
export async function writeExportFolder(dest: string, files: readonly ExportFile[], shown = dest): Promise<void> {
  const target = resolve(dest)
  assertNewDestination(target, shown)
  const sorted = sortedFiles(files)
  await mkdir(dirname(target), { recursive: true })
  // Named after this process, so that the next export removes what a killed one left.
  removeDeadTemporaries(dirname(target), EXPORT_TEMPORARY)
  const temporary = await mkdtemp(join(dirname(target), `.${basename(target)}.export-${process.pid}-`))
  try {
    // mkdtemp makes the folder private; an exported skill is meant to be shared.
    await chmod(temporary, 0o755)
    for (const file of sorted) {
      const to = join(temporary, ...file.path.split('/'))
      await mkdir(dirname(to), { recursive: true })
      await writeFile(to, await file.read())
    }
    // rename() would replace an empty folder created meanwhile: check once more, as late as possible.
    assertNewDestination(target, shown)
    await rename(temporary, target)
  }
  catch (error) {
    await rm(temporary, { recursive: true, force: true })
    throw error
  }
}
