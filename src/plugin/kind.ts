import type { UnpluginBuildContext, UnpluginContext } from 'unplugin'

/** The plugin context of `resolveId` and `load`, in every bundler. */
export type HookContext = UnpluginBuildContext & UnpluginContext

/** What a module depends on: a change to one of these files or folders makes it stale. */
export interface Dependencies {
  /** Files whose content the module reads (added, edited or removed). */
  files: string[]
  /** Folders whose entries the module lists: a file added or removed anywhere below one makes it stale. */
  dirs: string[]
}

/** A loaded module: its code and what it was made from; `undefined` when it failed (already reported). */
export interface Loaded extends Dependencies {
  code: string
}

/** Loads one of the plugin's ids: `undefined` after `context.error`, `null` when no kind owns it. */
export type LoadModule = (id: string, context: HookContext) => Promise<Loaded | undefined | null>

/**
 * One kind of module the plugin serves: a skill's forms, the registry, a
 * knowledge base, a document body, … Each owns a set of ids; `index.ts` asks
 * each kind in turn and never knows what a kind generates.
 */
export interface ModuleKind {
  /** For messages and tests. */
  readonly name: string
  /**
   * The ids this kind may own, as part of the filter with which bundlers call
   * the plugin (case-insensitive; no flags of its own): a superset of {@link owns}'s.
   */
  readonly ids: RegExp
  /** The resolved id of a `virtual:skill-kit/…` import of this kind; `undefined` for any other. */
  virtualId?: (request: string) => string | undefined
  /**
   * The resolved id of an import this kind owns; `undefined` when it is not
   * this kind's, `null` when it is but the bundler should resolve it.
   */
  resolveId: (source: string, importer: string | undefined, context: HookContext) => string | null | undefined | Promise<string | null | undefined>
  /** Whether a resolved id is one of this kind's modules. */
  owns: (id: string) => boolean
  /** The module of one of this kind's ids, or `undefined` after `context.error`. */
  load: (id: string, context: HookContext) => Loaded | undefined | Promise<Loaded | undefined>
}
