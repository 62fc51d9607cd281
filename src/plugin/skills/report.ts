import type { Diagnostic } from '../../core/diagnostics'
import type { CompiledSkill } from '../../skill/compile'
import type { BundlerMessage } from '../bundlers/message'
import type { HookContext, Loaded } from '../kind'
import type { PluginState } from '../state'
import { basename, dirname } from 'node:path'
import { formatDiagnostic } from '../../core/diagnostics'
import { FAILED_MODULE } from '../reports'
import { unwatched } from '../bundlers/watch'

/** A skill's diagnostic as a bundler message: its location in the text (some bundlers drop `loc`), in `loc` and with a code frame. */
export function toMessage(d: Diagnostic, source: string, state: PluginState): BundlerMessage {
  return state.bundler.message(formatDiagnostic(d, state.relativize), d, source)
}

/** A compiled skill and what it was made from. */
export interface ReportedSkill {
  compiled: CompiledSkill
  files: string[]
  /** The skill's folder, for `SKILL.md`: its listing of bundled files is part of the skill. */
  dirs: string[]
}

/**
 * Compiles a skill for module `id`: fails on errors, warns once per build.
 * `undefined` when the skill is invalid: the first module of the build to
 * load it reports every diagnostic, located at the first error, with its code
 * frame; the skill's other modules fail with no second copy.
 */
export function compileReported(context: HookContext, state: PluginState, file: string, id: string): ReportedSkill | undefined {
  const { compiled, dependencies } = state.loader.load(file)
  const { relativize } = state
  // Before any error: some bundlers throw there, and a watch build must still see the fix.
  if (!unwatched(context)) {
    for (const dependency of dependencies)
      context.addWatchFile(dependency)
  }
  if (compiled.failed) {
    if (state.reports.reportsFailure(compiled.file, id)) {
      const errors = compiled.diagnostics.filter(d => d.severity === 'error')
      const list = compiled.diagnostics.map(d => formatDiagnostic(d, relativize)).join('\n')
      const text = `Invalid skill ${relativize(compiled.file)} (${errors.length} error${errors.length === 1 ? '' : 's'}). Fix them, or set onInvalid: 'fallback' to load it whole:\n\n${list}`
      context.error(state.bundler.message(text, errors[0], compiled.source))
    }
    return undefined
  }
  if (state.reports.firstWarning(compiled.file))
    compiled.diagnostics.forEach(d => context.warn(toMessage(d, compiled.source, state)))
  return { compiled, files: dependencies, dirs: basename(file) === 'SKILL.md' ? [dirname(file)] : [] }
}

/**
 * The module `id` of invalid skills that other modules reported. In the Vite
 * dev server, it imports those modules: it is cached until a file changes, and
 * a page that imports it alone must show the error too. Elsewhere `undefined`:
 * the build has failed, and the module throws (`FAILED_MODULE`).
 */
export function failedModule(state: PluginState, files: string[], id: string): Loaded | undefined {
  const reporters = new Set(files.map(file => state.reports.reporter(file)))
  reporters.delete(id)
  reporters.delete(undefined)
  if (!state.viteServe || reporters.size === 0)
    return undefined
  // Virtual ids (the registry's) are imported by their name.
  const imports = [...reporters].map(reporter => `import ${JSON.stringify(reporter!.replace(/^\0/, ''))}\n`)
  return { code: `${imports.join('')}${FAILED_MODULE}`, files, dirs: [] }
}
