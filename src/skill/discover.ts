import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The skills of registry folders: `<dir>/<name>/SKILL.md` and
 * `<dir>/<name>.skill.md`, hidden entries skipped, sorted by path. Folders
 * that do not exist give nothing.
 */
export function discoverSkills(dirs: readonly string[]): string[] {
  const files: string[] = []
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory())
      continue
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.'))
        continue
      const path = join(dir, entry.name)
      if (entry.isDirectory() && existsSync(join(path, 'SKILL.md')))
        files.push(join(path, 'SKILL.md'))
      else if (entry.isFile() && entry.name.endsWith('.skill.md'))
        files.push(path)
    }
  }
  return files.sort()
}
