// What a knowledge folder holds, as far as its index cares: its folders and
// Markdown files, each file by size and modification time. The watcher keeps
// one up to date from its events, so that after its own watcher failed it can
// tell whether it lost an event that mattered (a document changed meanwhile)
// or only the index's own writes in a hidden folder.

import type { Stats } from 'node:fs'
import { readdirSync, statSync } from 'node:fs'
import { join, sep } from 'node:path'

/** Paths relative to the knowledge folder (native separators), to `FOLDER` or a Markdown file's size and time. */
export type MarkdownTree = Map<string, string>

const FOLDER = 'folder'

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path)
  }
  catch {
    return undefined
  }
}

/** Whether a name is one the index reads: a Markdown file's. */
export function isMarkdown(name: string): boolean {
  return name.toLowerCase().endsWith('.md')
}

/**
 * Adds to `tree` what is at `path` (relative to `root`; `''` for the root
 * itself): a folder with all it holds, hidden entries left out, or a Markdown
 * file. Nothing for anything else or nothing at all.
 */
function addEntries(tree: MarkdownTree, root: string, path: string): void {
  const stats = statOf(join(root, path))
  if (stats?.isFile() && isMarkdown(path)) {
    tree.set(path, `${stats.size}:${stats.mtimeMs}`)
    return
  }
  if (!stats?.isDirectory())
    return
  if (path)
    tree.set(path, FOLDER)
  let names: string[]
  try {
    names = readdirSync(join(root, path))
  }
  catch {
    return
  }
  for (const name of names) {
    if (!name.startsWith('.'))
      addEntries(tree, root, path ? join(path, name) : name)
  }
}

/** The tree of `root` as it is now. */
export function readMarkdownTree(root: string): MarkdownTree {
  const tree: MarkdownTree = new Map()
  addEntries(tree, root, '')
  return tree
}

/** Whether `path` is a folder `tree` knows. */
export function isKnownFolder(tree: MarkdownTree, path: string): boolean {
  return tree.get(path) === FOLDER
}

/** Reads `path` (relative to `root`) again into `tree`, dropping what it held before. */
export function refreshMarkdownTree(tree: MarkdownTree, root: string, path: string): void {
  for (const key of tree.keys()) {
    if (key === path || key.startsWith(path + sep))
      tree.delete(key)
  }
  addEntries(tree, root, path)
}

/** Whether two trees hold the same folders and files, each file the same size and time. */
export function sameMarkdownTree(a: MarkdownTree, b: MarkdownTree): boolean {
  if (a.size !== b.size)
    return false
  for (const [path, value] of a) {
    if (b.get(path) !== value)
      return false
  }
  return true
}
