// Tells connected clients when what they listed changed: a new build of a
// knowledge base (its manifest names another snapshot), or a skill added,
// removed or edited. Requests always read the current state; this only sends
// the MCP list_changed notifications, so clients know to list again.

import type { FSWatcher, StatWatcher } from 'node:fs'
import { existsSync, unwatchFile, watch, watchFile } from 'node:fs'
import { join } from 'node:path'
import { MANIFEST_FILE } from '../../knowledge/publish'

/** What changed. */
export type Change = 'skills' | 'knowledge'

/** What the watcher watches and how it tells. */
export interface WatchTargets {
  /** Registry folders (watched recursively where they exist). */
  skillRoots: readonly string[]
  /** Publish folders of the knowledge bases: their manifest is watched. */
  outputs: readonly string[]
  /** Called with each changed path under a registry folder, before the signature is compared. */
  onSkillPath: (path: string) => void
  /** A registry folder can no longer be watched: changes there will not be reported. */
  onWatchLost: () => void
  /** A signature of the skills as served: a change only counts when it differs. */
  skillsSignature: () => string
  /** The snapshot each manifest names now (`undefined`: none). */
  knowledgeVersions: () => readonly (string | undefined)[]
  onChange: (change: Change) => void
}

/**
 * How often a manifest is checked. A manifest is replaced by a rename, which
 * an event watcher on the file itself loses, and its folder may not exist
 * before the first build: polling one small file's stat is robust and cheap.
 */
const MANIFEST_POLL_MS = 250
/** Quiet time after a burst of skill file events (an editor's save is several). */
const SKILLS_SETTLE_MS = 50

/** Starts watching; returns the function that stops. */
export function watchServed(targets: WatchTargets): () => void {
  let skills = targets.skillsSignature()
  let versions = JSON.stringify(targets.knowledgeVersions())
  let timer: NodeJS.Timeout | undefined

  const checkSkills = () => {
    timer = undefined
    const next = targets.skillsSignature()
    if (next !== skills) {
      skills = next
      targets.onChange('skills')
    }
  }
  const watchers: FSWatcher[] = []
  for (const root of targets.skillRoots.filter(root => existsSync(root))) {
    try {
      const watcher = watch(root, { recursive: true }, (_event, name) => {
        // No name: something changed, the platform does not say what.
        targets.onSkillPath(name ? join(root, name) : root)
        clearTimeout(timer)
        timer = setTimeout(checkSkills, SKILLS_SETTLE_MS)
      })
      watcher.on('error', () => {
        watcher.close()
        targets.onWatchLost()
      })
      watchers.push(watcher)
    }
    catch {
      // Out of watches (ENOSPC) or a folder that cannot be watched: requests read the skills again.
      targets.onWatchLost()
    }
  }

  const manifests = targets.outputs.map(output => join(output, MANIFEST_FILE))
  const onManifest = () => {
    const next = JSON.stringify(targets.knowledgeVersions())
    if (next !== versions) {
      versions = next
      targets.onChange('knowledge')
    }
  }
  const polls: StatWatcher[] = manifests.map(file => watchFile(file, { interval: MANIFEST_POLL_MS, persistent: false }, onManifest))

  return () => {
    clearTimeout(timer)
    for (const watcher of watchers)
      watcher.close()
    for (const [i, file] of manifests.entries()) {
      polls[i]!.removeAllListeners()
      unwatchFile(file, onManifest)
    }
  }
}
