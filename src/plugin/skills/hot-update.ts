// The Vite dev server and skills: which skill and registry modules a file event makes stale.
//
// Vite's `hotUpdate` hook gets every file event once per environment; it answers with
// exactly the modules to update, so that each event sends one message. A skill module
// depends on its SKILL.md and its folder's listing (a bundled file added or removed
// changes its cover), the registry on the registry folders and every skill in them.

import type { DevEnvironment, EnvironmentModuleNode, HotUpdateOptions, ViteDevServer } from 'vite'
import type { FileEvent } from '../dependencies'
import type { Dependencies, HookContext, Loaded, ModuleKind } from '../kind'
import type { PluginState } from '../state'
import { basename, dirname } from 'node:path'
import { discoverSkills } from '../../skill/discover'
import { isStale } from '../dependencies'
import { parseSkillId } from './ids'
import { FAILED_MODULE } from '../reports'
import { registryDirs } from './registry-kind'
import { watchBeyondRoot } from '../folders/dev-rebuild'

/** The message, place and id of an error a module would fail with. */
interface Failure {
  message: string
  id?: string
  loc?: { file?: string, line: number, column: number }
}

export function watchSkills(server: ViteDevServer, state: PluginState): void {
  // Vite watches its root; registry folders and skill folders may live outside it.
  watchBeyondRoot(server, registryDirs(state))
  state.dependencies.onDirs = dirs => watchBeyondRoot(server, dirs)
  // The watcher hears of every change: skills are read again only when one of their files changes.
  state.loader.trustUntilInvalidated()
  server.watcher.on('all', (_event, path) => state.loader.invalidate(path))
}

/** The kinds this module updates; the others (knowledge) are left to Vite and their own watching. */
const SKILL_KINDS = new Set(['registry', 'skill'])

/** Module ids held back (invalid input) per environment, updated once valid again. */
const heldBack = new WeakMap<DevEnvironment, Set<string>>()

/** Modules `hotUpdateSkills` loaded to check them, for Vite's request that follows the update. */
const checked = new WeakMap<DevEnvironment, Map<string, Loaded>>()

/**
 * What the dev server serves for a module without loading it again: the last
 * valid code while an edit made it invalid (pages opened meanwhile get what
 * open pages still run), or the version just checked by a hot update.
 */
export function servedModule(environment: DevEnvironment | undefined, id: string, state: PluginState): Loaded | undefined {
  if (!environment)
    return undefined
  if (heldBack.get(environment)?.has(id))
    return state.dependencies.lastLoaded(id)
  const loaded = checked.get(environment)?.get(id)
  if (!loaded)
    return undefined
  checked.get(environment)!.delete(id)
  state.dependencies.record(id, loaded)
  return loaded
}

/**
 * Vite's `hotUpdate` for skill and registry modules (`kinds` are all the
 * plugin's, in the order `index.ts` asks them): the modules
 * Vite found for the file, minus ours and the files ours only watch, plus our
 * modules the event makes stale. A stale module whose new version is invalid
 * is held back: the page keeps the last valid one and the overlay shows the
 * error; the next valid version updates it. A module that failed before (a
 * page opened while it was broken) was never analysed for HMR: the page
 * reloads.
 */
export async function hotUpdateSkills(
  environment: DevEnvironment,
  options: HotUpdateOptions,
  state: PluginState,
  kinds: readonly ModuleKind[],
): Promise<EnvironmentModuleNode[]> {
  const { file, type, modules } = options
  // Vite may call this before the watcher's listener above: what the checks below load must be fresh.
  state.loader.invalidate(file)
  const graph = environment.moduleGraph
  const kindOf = (id: string | null) => {
    const kind = id === null ? undefined : kinds.find(k => k.owns(id))
    return kind && SKILL_KINDS.has(kind.name) ? kind : undefined
  }
  const held = heldBack.get(environment) ?? new Set<string>()
  heldBack.set(environment, held)

  const stale = new Map<string, { node: EnvironmentModuleNode, kind: ModuleKind, failed: boolean }>()
  const consider = (id: string, dependencies: Dependencies | 'failed') => {
    const node = graph.getModuleById(id)
    const kind = kindOf(id)
    if (!node || !kind)
      return
    const failed = dependencies === 'failed'
    // A module that failed, or is held back, may be broken by a file its last valid load never read (a skill
    // added invalid, or a registry that started broken): whatever its kind reads may be the fix.
    const known = failed ? undefined : dependencies
    if ((known && isStale(known, file, type)) || ((failed || held.has(id)) && isStale(fallbackDependencies(id, kind, state), file, type)))
      stale.set(id, { node, kind, failed })
  }
  for (const [id, dependencies] of state.dependencies.entries())
    consider(id, dependencies)
  for (const node of modules) {
    // Never loaded here (e.g. a skill only the registry imports): invalidated with the rest, so imports of it get a new timestamp.
    if (node.id && kindOf(node.id) && !stale.has(node.id))
      stale.set(node.id, { node, kind: kindOf(node.id)!, failed: false })
  }
  const others = modules.filter(node => !node.id || (!kindOf(node.id) && !state.dependencies.isDependency(node.id)))
  if (stale.size === 0)
    return others

  const updated: EnvironmentModuleNode[] = []
  let failure: Failure | undefined
  let reload = false
  for (const [id, { node, kind, failed }] of stale) {
    // A deleted skill's own modules are gone: importing them again can only fail, and the registry no longer imports them.
    if (type === 'delete' && isOwnFile(id, file, state)) {
      held.delete(id)
      continue
    }
    const { loaded, failure: problem, invalid } = await check(kind, id, environment)
    // The registry is the one costly module to load twice (every skill's entry).
    if (loaded && kind.name === 'registry') {
      const ready = checked.get(environment) ?? new Map<string, Loaded>()
      checked.set(environment, ready.set(id, loaded))
    }
    if (problem || invalid) {
      held.add(id)
      failure ??= problem
      continue
    }
    held.delete(id)
    updated.push(node)
    reload ||= failed
  }
  if (failure)
    reportFailure(environment, failure)
  if (reload) {
    // The page failed to import the module: only a reload runs it again.
    const seen = new Set<EnvironmentModuleNode>()
    for (const node of [...updated, ...others])
      graph.invalidateModule(node, seen, options.timestamp, true)
    environment.hot.send({ type: 'full-reload', path: '*', triggeredBy: file })
    return []
  }
  return [...others, ...updated]
}

/**
 * What a module that failed or is held back depends on, at least: its skill
 * file and folder, or the registry folders and every skill file in them now
 * (an edit is no change to a folder's listing).
 */
function fallbackDependencies(id: string, kind: ModuleKind, state: PluginState): Dependencies {
  if (kind.name === 'registry') {
    const dirs = registryDirs(state)
    return { files: discoverSkills(dirs), dirs }
  }
  const file = parseSkillId(state.fileId(id))!.file
  return { files: [file], dirs: basename(file) === 'SKILL.md' ? [dirname(file)] : [] }
}

/** Whether `file` is the skill file of module `id` (its own modules go when it does). */
function isOwnFile(id: string, file: string, state: PluginState): boolean {
  return parseSkillId(state.fileId(id))?.file === file
}

/**
 * Loads a module as the bundler would: the module, or the error it would fail
 * with; neither when it fails in a way only Vite can report.
 */
async function check(kind: ModuleKind, id: string, environment: DevEnvironment): Promise<{ loaded?: Loaded, failure?: Failure, invalid?: boolean }> {
  let failure: Failure | undefined
  const context = {
    addWatchFile() {},
    warn(warning: string | Failure) {
      environment.logger.warn(`[plugin unplugin-skill-kit] ${typeof warning === 'string' ? warning : warning.message}`, { timestamp: true })
    },
    error(error: string | Failure) {
      failure = typeof error === 'string' ? { message: error } : error
    },
  } as unknown as HookContext
  try {
    const loaded = await kind.load(id, context)
    if (failure)
      return { failure }
    // Another module of the same invalid skill reported it (once per change): this one is held back with it.
    return loaded?.code.endsWith(FAILED_MODULE) ? { invalid: true } : { loaded }
  }
  catch {
    return {}
  }
}

/** Vite's overlay and terminal, as for an error thrown while serving a module. */
function reportFailure(environment: DevEnvironment, failure: Failure): void {
  environment.logger.error(`[plugin unplugin-skill-kit] ${failure.message}`, { timestamp: true })
  environment.hot.send({
    type: 'error',
    err: { message: failure.message, stack: '', plugin: 'unplugin-skill-kit', id: failure.id ?? failure.loc?.file, loc: failure.loc },
  })
}
