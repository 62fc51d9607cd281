// Ids of modules made from a folder of documents (knowledge bases, their routed pages):
// `./folder?<query>` imports and names from the plugin options.

import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'

/** A folder imported with `?<query>`, or a knowledge base's name from the options. */
export type FolderTarget = { kind: 'dir', dir: string } | { kind: 'name', name: string }

/** Query keys bundlers add on their own (Vite's HMR timestamp, import marker, version hash). */
const BUNDLER_KEYS = new Set(['t', 'v', 'import'])

/** `./folder?<query>` (with or without bundler keys such as `&t=…`): the folder part; else `undefined`. */
function folderImportPath(source: string, query: string): string | undefined {
  const mark = source.indexOf('?')
  // Every skill import passes here too: a query without the key (nor an escape that could spell it) is not ours.
  if (mark < 0 || (!source.includes(query, mark) && !source.includes('%', mark)))
    return undefined
  const keys = [...new URLSearchParams(source.slice(mark + 1)).keys()].filter(k => !BUNDLER_KEYS.has(k))
  return keys.length === 1 && keys[0] === query ? source.slice(0, mark) : undefined
}

/** How one module kind spells the resolved ids of its folder targets, and reads them back. */
export interface FolderModuleIds {
  /** `\0skill-kit-<namespace>:`: what every resolved id of the kind starts with. */
  readonly prefix: string
  /** The id a target resolves to in this bundler. */
  id: (target: FolderTarget, asFile: boolean, root: string) => string
  /** The target a resolved id stands for; `undefined` for any other id. */
  parse: (id: string, root: string) => FolderTarget | undefined
}

/**
 * Resolved ids `\0skill-kit-<namespace>:<kind>:<key>`, or where ids are file
 * names (`idsAsFiles`) a (never written) file name. Bundlers print module ids into bundles, so a
 * folder's key is its path relative to the root: no build machine's folder
 * reaches the output.
 */
export function folderModuleIds(namespace: string): FolderModuleIds {
  const prefix = `\0skill-kit-${namespace}:`
  const filePrefix = `__skill-kit-${namespace}__`
  return {
    prefix,
    id(target, asFile, root) {
      const key = target.kind === 'dir' ? relative(root, target.dir).replace(/\\/g, '/') : target.name
      return asFile ? `${filePrefix}${target.kind}-${encodeURIComponent(key)}.js` : `${prefix}${target.kind}:${key}`
    },
    parse(id, root) {
      let kind: string | undefined
      let key = ''
      if (id.startsWith(prefix)) {
        const rest = id.slice(prefix.length)
        kind = rest.slice(0, rest.indexOf(':'))
        key = rest.slice(kind.length + 1)
      }
      else if (id.startsWith(filePrefix) && id.endsWith('.js')) {
        const file = id.slice(filePrefix.length, -3)
        kind = file.slice(0, file.indexOf('-'))
        key = decodeURIComponent(file.slice(kind.length + 1))
      }
      if (kind === 'dir')
        return { kind: 'dir', dir: resolve(root, key) }
      return kind === 'name' ? { kind: 'name', name: key } : undefined
    },
  }
}

/**
 * The folder of a `<folder>?knowledge` (or `?routes`) import: relative to its
 * importer when it starts with `.`; else to the root, as Vite reads
 * `/docs` (an absolute path that exists stays as it is).
 */
export function importedFolder(folder: string, importer: string | undefined, root: string): string {
  if (folder.startsWith('.') || folder === '')
    return resolve(importer ? dirname(importer.split('?')[0]!) : root, folder || '.')
  return isAbsolute(folder) && !existsSync(folder) ? join(root, folder) : resolve(root, folder)
}

/**
 * How a kind of folder module resolves an import: the id of a named base
 * (`named`, from the plugin options), an id already resolved, or
 * `./folder?<query>` relative to its importer; `undefined` for other imports.
 */
export function resolveFolderImport(
  source: string,
  importer: string | undefined,
  { ids, query, named }: { ids: FolderModuleIds, query: string, named: string | undefined },
  { asFile, root }: { asFile: boolean, root: string },
): string | undefined {
  if (named)
    return named
  if (ids.parse(source, root))
    return source
  const folder = folderImportPath(source, query)
  return folder === undefined ? undefined : ids.id({ kind: 'dir', dir: importedFolder(folder, importer, root) }, asFile, root)
}
