// A skill of the registry as the files it is published with: its skill file
// as SKILL.md and its bundled files (resources) at their paths in its folder.
// Only real files inside the folder are read, checked again as they are read
// (a resource swapped for a symbolic link after the skill was compiled, a
// folder of the path that is one, a `..`), so that an artefact never holds
// a file from elsewhere on the build machine.

import type { ArchiveFile } from './tar-gz'
import { lstatSync, readFileSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, join, relative } from 'node:path'
import { folderRelative } from '../skill/resources'
import { ExportError } from './error'
import { archivePathProblem } from './tar-gz'

/** What a registry skill is made of: its file, and its bundled files relative to the file's folder. */
export interface SkillSource {
  name: string
  /** Absolute path of `SKILL.md` or `<name>.skill.md`. */
  file: string
  resources: readonly string[]
}

/**
 * The files `skill` is published with: `SKILL.md` (the skill file's bytes,
 * whatever its name), then each resource. Throws an {@link ExportError}
 * (`skill-unpublishable`) naming the file and the fix when a resource is not
 * a real file inside the folder, or has a path no archive entry can hold.
 * `shown` names the skill file in messages.
 */
export function skillFolderFiles(skill: SkillSource, shown: string): ArchiveFile[] {
  const folder = dirname(skill.file)
  const refuse = (path: string, why: string, fix: string) =>
    new ExportError('skill-unpublishable', `Skill "${skill.name}" (${shown}) cannot be published: its bundled file "${path}" ${why}. ${fix}`)
  const files: ArchiveFile[] = [{ path: 'SKILL.md', data: readFileSync(skill.file) }]
  for (const resource of skill.resources) {
    const path = folderRelative(resource)
    if (path === undefined || path === '' || path === 'SKILL.md' || path !== resource)
      throw refuse(resource, 'is not a file of its folder', 'List files by their path inside the skill folder.')
    const problem = archivePathProblem(path)
    if (problem)
      throw refuse(path, `cannot be packed: ${problem}`, 'Shorten its path.')
    const kind = entryKind(folder, path)
    if (kind !== 'file')
      throw refuse(path, kind === 'symlink' ? 'is (or lies in a folder that is) a symbolic link' : 'is not a regular file', 'Bundled files must be real files inside the skill folder: copy the target in, or leave it out of resources.')
    const real = realpathSync.native(join(folder, ...path.split('/')))
    const inside = relative(realpathSync.native(folder), real)
    if (inside.startsWith('..') || isAbsolute(inside))
      throw refuse(path, 'is outside the skill folder', 'Copy the file into the skill folder.')
    files.push({ path, data: readFileSync(real) })
  }
  return files
}

/** What `path` (inside `folder`) is, each part looked at without following links: a symbolic link anywhere counts. */
function entryKind(folder: string, path: string): 'file' | 'symlink' | 'other' {
  const parts = path.split('/')
  let at = folder
  for (const [i, part] of parts.entries()) {
    at = join(at, part)
    let stat
    try {
      stat = lstatSync(at)
    }
    catch {
      return 'other'
    }
    if (stat.isSymbolicLink())
      return 'symlink'
    const last = i === parts.length - 1
    if (last ? !stat.isFile() : !stat.isDirectory())
      return 'other'
  }
  return 'file'
}
