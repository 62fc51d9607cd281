import { randomBytes } from 'node:crypto'
import { linkSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

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

/** The folder beside a project (or a bare folder's root) that holds what skill-kit generates: index, caches, models. */
export const GENERATED_FOLDER = '.skill-kit'

/** The `.gitignore` of a folder skill-kit made: everything in it, itself included, stays out of git. */
export const IGNORE_EVERYTHING = '# Made by unplugin-skill-kit: generated files, not for git.\n*\n'

/** The nearest `.skill-kit` folder `dir` is (or lies in), if any. */
function generatedFolderOf(dir: string): string | undefined {
  const parts = resolve(dir).split(sep)
  const at = parts.lastIndexOf(GENERATED_FOLDER)
  return at > 0 ? parts.slice(0, at + 1).join(sep) : undefined
}

/**
 * Writes `<dir>/.gitignore` ignoring everything, unless there is one: a temporary
 * file linked into place, so that git sees the whole file or none, and a
 * `.gitignore` someone else wrote meanwhile stays as it is.
 */
function ignoreEverything(dir: string): void {
  const file = join(dir, '.gitignore')
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
  writeFileSync(temporary, IGNORE_EVERYTHING)
  try {
    linkSync(temporary, file)
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw error
  }
  finally {
    rmSync(temporary, { force: true })
  }
}

/**
 * Makes `dir` and its missing parents for files skill-kit generates, and keeps
 * what it makes out of git, as pytest and ruff do with their caches: a
 * `.skill-kit` folder this call made gets a `.gitignore` of `*`, and so does
 * `dir` itself with `cache` (a cache configured outside `.skill-kit`) when this
 * call made it. A folder that existed is left as it is: its owner decides.
 */
export function makeGeneratedFolder(dir: string, { cache = false }: { cache?: boolean } = {}): void {
  const made = mkdirSync(dir, { recursive: true })
  if (made === undefined)
    return
  const madeInside = (folder: string) => {
    const path = relative(made, folder)
    return path === '' || !(path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path))
  }
  const generated = generatedFolderOf(dir)
  if (generated && madeInside(generated))
    ignoreEverything(generated)
  else if (cache && !generated)
    ignoreEverything(dir)
}
