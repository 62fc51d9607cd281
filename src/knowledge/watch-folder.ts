// File-system events of a knowledge project, as the changes that matter to
// its index: Markdown files and folders of the knowledge folder, the folder
// itself replaced (a new version renamed into place), and `skill-kit.json`.
// Node's own watchers, no polling: the knowledge folder recursively, and the
// folders that hold it and the settings file non-recursively, since a watcher
// follows the folder it was given, not its name.

import type { FSWatcher, Stats } from 'node:fs'
import { statSync, watch } from 'node:fs'
import { basename, dirname, join, sep } from 'node:path'
import type { MarkdownTree } from './markdown-tree'
import { isKnownFolder, isMarkdown, readMarkdownTree, refreshMarkdownTree, sameMarkdownTree } from './markdown-tree'

/** What {@link watchKnowledgeProject} watches. */
export interface WatchedProject {
  /** The knowledge folder (it need not exist yet: it is watched for once it appears). */
  knowledge: string
  /** `skill-kit.json`, for a project that has one. */
  configFile?: string
}

/** A running watcher. */
export interface KnowledgeWatcher {
  /**
   * Watches another knowledge folder or settings file (after the settings
   * moved it), reporting no change: the caller reads it next. A no-op when
   * nothing moved.
   */
  follow: (project: WatchedProject) => void
  close: () => void
}

/**
 * Calls `onChange` with a label for each change: a path relative to the
 * knowledge folder (`guides/a.md`, `guides` for a folder added, removed or
 * renamed), `<folder>/` when the knowledge folder itself was replaced,
 * removed or created, and `skill-kit.json`. Hidden entries (`.skill-kit`,
 * editors' swap files) and other files than Markdown are ignored, so the
 * index, caches and models written under a hidden folder never report a
 * change. Events come as often as the system sends them: debounce them (see
 * `RebuildLoop`).
 */
export function watchKnowledgeProject(project: WatchedProject, onChange: (label: string) => void): KnowledgeWatcher {
  let current: WatchedProject = { ...project }
  let folder: { watcher: FSWatcher, ino: number } | undefined
  /** What the knowledge folder held at its last event: a removed folder is reported, a removed non-Markdown file is not. */
  let tree: MarkdownTree = new Map()
  const parents = new Map<string, FSWatcher>()
  const folderLabel = () => `${basename(current.knowledge)}/`

  const statOf = (path: string): Stats | undefined => {
    try {
      return statSync(path)
    }
    catch {
      return undefined
    }
  }
  const onFolderEvent = (name: string | null) => {
    if (!name)
      return
    const path = name.split(sep).join('/')
    if (path.split('/').some(part => part.startsWith('.')))
      return
    if (!statOf(join(current.knowledge, name))?.isDirectory() && !isMarkdown(path) && !isKnownFolder(tree, name))
      return
    refreshMarkdownTree(tree, current.knowledge, name)
    onChange(path)
  }
  /** Watches the knowledge folder now there, if it is not the one watched already; whether that changed anything. */
  const arm = (): boolean => {
    const stats = statOf(current.knowledge)
    const ino = stats?.isDirectory() ? stats.ino : undefined
    if (folder && folder.ino === ino)
      return false
    folder?.watcher.close()
    folder = undefined
    tree = new Map()
    if (ino === undefined)
      return true
    try {
      const watcher = watch(current.knowledge, { recursive: true }, (_, name) => onFolderEvent(name))
      // The watcher ends on an error: the folder was removed or replaced (the parent's watcher
      // re-arms once it is back), or, on Linux, where Node watches each subfolder itself, a
      // subfolder vanished while it was being scanned (a folder renamed or deleted right after it
      // was made: nodejs/node#63686). The folder is then still there, and no parent event comes:
      // watch it again now. Events may have been lost meanwhile: the whole folder counts as changed
      // if what it holds is not what the events said (the vanished subfolder is most often one of
      // the index's own, written in a hidden folder, and that is no change).
      watcher.on('error', () => {
        if (folder?.watcher === watcher) {
          watcher.close()
          folder = undefined
          const known = tree
          arm()
          if (!sameMarkdownTree(known, tree))
            onChange(folderLabel())
        }
      })
      folder = { watcher, ino }
      tree = readMarkdownTree(current.knowledge)
    }
    catch {
      // Gone between the stat and the watch: the parent's event for it re-arms.
    }
    return true
  }
  const onParentEvent = (dir: string, name: string | null) => {
    if (current.configFile && dir === dirname(current.configFile) && (name === null || name === basename(current.configFile)))
      onChange(basename(current.configFile))
    if (dir === dirname(current.knowledge) && (name === null || name === basename(current.knowledge)) && arm())
      onChange(folderLabel())
  }
  const watchParents = () => {
    const wanted = new Set([dirname(current.knowledge), ...(current.configFile ? [dirname(current.configFile)] : [])])
    for (const [dir, watcher] of parents) {
      if (!wanted.has(dir)) {
        watcher.close()
        parents.delete(dir)
      }
    }
    for (const dir of wanted) {
      if (!parents.has(dir)) {
        try {
          const watcher = watch(dir, (_, name) => onParentEvent(dir, name))
          watcher.on('error', () => {})
          parents.set(dir, watcher)
        }
        catch {
          // No such folder (settings that point nowhere): the build says so; nothing to watch there.
        }
      }
    }
  }

  watchParents()
  arm()
  return {
    follow(next) {
      if (next.knowledge === current.knowledge && next.configFile === current.configFile)
        return
      const moved = next.knowledge !== current.knowledge
      current = { ...next }
      watchParents()
      // No change reported: the caller reads the new folder after following it.
      if (moved) {
        folder?.watcher.close()
        folder = undefined
        arm()
      }
    },
    close() {
      folder?.watcher.close()
      folder = undefined
      for (const watcher of parents.values())
        watcher.close()
      parents.clear()
    },
  }
}
