import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'

/** True for the file names that hold skills. */
export function isSkillFile(name: string): boolean {
  return name === 'SKILL.md' || name.endsWith('.skill.md')
}

/** A path argument the command cannot use; the message says which and why. */
export class PathError extends Error {}

/**
 * Skill files under the given files and folders, sorted; folders are searched
 * recursively, skipping hidden folders and `node_modules`.
 */
export function findSkillFiles(paths: readonly string[]): string[] {
  const found = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !entry.name.startsWith('.') && entry.name !== 'node_modules')
        walk(join(dir, entry.name))
      else if (entry.isFile() && isSkillFile(entry.name))
        found.add(join(dir, entry.name))
    }
  }
  for (const path of paths) {
    const absolute = resolve(path)
    if (!existsSync(absolute))
      throw new PathError(`${path}: no such file or folder.`)
    if (statSync(absolute).isDirectory())
      walk(absolute)
    else if (isSkillFile(basename(absolute)))
      found.add(absolute)
    else throw new PathError(`${path}: not a skill file (SKILL.md or *.skill.md).`)
  }
  return [...found].sort()
}
