import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * `dir` and every folder below it, hidden ones (and names in `skip`) left
 * out with all they hold. A folder that cannot be read (missing, not a
 * folder) is listed alone.
 */
export function folderTree(dir: string, skip: readonly string[] = []): string[] {
  const folders: string[] = []
  const walk = (folder: string) => {
    folders.push(folder)
    let entries
    try {
      entries = readdirSync(folder, { withFileTypes: true })
    }
    catch {
      return
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.name.startsWith('.') && !skip.includes(entry.name))
        walk(join(folder, entry.name))
    }
  }
  walk(dir)
  return folders
}
