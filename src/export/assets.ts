// The files of this package that go into exported skills: the search runtime,
// built into one file at the package's build (dist/export/search.mjs, see
// build.config.ts), and the lockfile that pins @huggingface/transformers for
// the export's vector search (dist/export/package-lock.json, generated with
// the registry by scripts/export-lockfile.mjs: an export runs without network).

import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const PACKAGE_NAME = 'unplugin-skill-kit'

/** The package's files an export copies. */
export interface ExportAssets {
  /** `search.mjs`: the search runtime, self-contained, with its licence in a banner. */
  searchScript: string
  /** The lockfile of the export's `package.json`. */
  packageLock: string
}

/** The folder of this package (its package.json), above the running module, wherever it was bundled to. */
export function packageRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME)
          return dir
      }
      catch {
        // Not a package.json we can read: keep looking above.
      }
    }
    if (dirname(dir) === dir)
      return undefined
  }
}

/**
 * This package's export assets, from its `dist/export/`. Throws when they
 * are missing (a checkout that was not built), naming the command that builds them.
 */
export function packageExportAssets(from = dirname(fileURLToPath(import.meta.url))): ExportAssets {
  const root = packageRoot(from)
  const dir = root && join(root, 'dist/export')
  const assets = dir && { searchScript: join(dir, 'search.mjs'), packageLock: join(dir, 'package-lock.json') }
  if (!assets || !existsSync(assets.searchScript) || !existsSync(assets.packageLock))
    throw new Error(`${PACKAGE_NAME} has no dist/export/search.mjs: this copy of the package was not built. Run "npm run build" in it.`)
  return assets
}
