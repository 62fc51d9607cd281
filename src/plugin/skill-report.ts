import type { UnpluginMessage } from 'unplugin'
import type { Diagnostic } from '../core/diagnostics'
import type { CompiledSkill } from '../skill/compile'
import type { HookContext } from './kinds/kind'
import type { PluginState } from './state'
import { basename, dirname } from 'node:path'
import { codeFrame, formatDiagnostic } from '../core/diagnostics'

/** A diagnostic as a bundler message: location in the text (webpack drops `loc`) and a code frame. */
export function toMessage(d: Diagnostic, source: string, relativize: (file: string) => string): UnpluginMessage {
  return {
    message: `${formatDiagnostic(d, relativize)}\n${codeFrame(source, d)}`,
    id: d.file,
    loc: { file: d.file, line: d.line, column: d.column },
  }
}

/** A compiled skill and what it was made from. */
export interface ReportedSkill {
  compiled: CompiledSkill
  files: string[]
  /** The skill's folder, for `SKILL.md`: its listing of bundled files is part of the skill. */
  dirs: string[]
}

/** Compiles a skill for a module: fails on errors, warns once per build. `undefined` after an error. */
export function compileReported(context: HookContext, state: PluginState, file: string): ReportedSkill | undefined {
  const { compiled, dependencies } = state.loader.load(file)
  const { relativize } = state
  for (const dependency of dependencies)
    context.addWatchFile(dependency)
  if (compiled.failed) {
    const errors = compiled.diagnostics.filter(d => d.severity === 'error').length
    const report = compiled.diagnostics.map(d => toMessage(d, compiled.source, relativize).message).join('\n\n')
    const first = compiled.diagnostics.find(d => d.severity === 'error')!
    context.error({
      message: `Invalid skill ${relativize(compiled.file)} (${errors} error${errors === 1 ? '' : 's'}). Fix them, or set onInvalid: 'fallback' to load it whole:\n\n${report}`,
      id: compiled.file,
      loc: { file: compiled.file, line: first.line, column: first.column },
    })
    return undefined
  }
  if (!state.warned.has(compiled.file)) {
    state.warned.add(compiled.file)
    compiled.diagnostics.forEach(d => context.warn(toMessage(d, compiled.source, relativize)))
  }
  return { compiled, files: dependencies, dirs: basename(file) === 'SKILL.md' ? [dirname(file)] : [] }
}
