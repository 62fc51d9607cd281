import type { Diagnostic } from '../core/diagnostics'
import { relative } from 'node:path'
import { codeFrame, formatDiagnostic } from '../core/diagnostics'
import { SkillLoader } from '../skill/load'
import { findSkillFiles, PathError } from './find-skills'

/** Options of `skill-kit validate`. */
export interface ValidateOptions {
  strict: boolean
  format: 'text' | 'json'
}

/** What a validation run prints and how it exits. */
export interface ValidateResult {
  stdout: string
  exitCode: number
}

/** Lints every skill under `paths` with the plugin's rules. Exit code 1 when any file has an error. */
export function validate(paths: readonly string[], options: ValidateOptions): ValidateResult {
  const loader = new SkillLoader({ strict: options.strict, onInvalid: 'fallback' })
  const cwd = process.cwd()
  const rel = (file: string) => relative(cwd, file).replace(/\\/g, '/') || file
  const files = findSkillFiles(paths.length > 0 ? paths : ['.'])
  if (files.length === 0)
    throw new PathError(`no SKILL.md or *.skill.md under ${paths.length > 0 ? paths.join(', ') : 'the current folder'}.`)
  const skills = files.map(file => loader.load(file).compiled)
  const all: Diagnostic[] = skills.flatMap(s => s.diagnostics)
  const errors = all.filter(d => d.severity === 'error').length
  const warnings = all.length - errors
  const exitCode = errors > 0 ? 1 : 0

  if (options.format === 'json') {
    const report = {
      skills: skills.map(s => ({
        file: rel(s.file),
        name: s.name,
        mode: s.diagnostics.some(d => d.severity === 'error') ? 'invalid' : s.mode,
        diagnostics: s.diagnostics.map(d => ({ ...d, file: rel(d.file) })),
      })),
      errors,
      warnings,
    }
    return { stdout: `${JSON.stringify(report, null, 2)}\n`, exitCode }
  }

  const blocks = skills.flatMap(s => s.diagnostics.map(d => `${formatDiagnostic(d, rel)}\n${codeFrame(s.source, d)}`))
  const summary = `${skills.length} skill${skills.length === 1 ? '' : 's'} checked: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}.`
  return { stdout: [...blocks, summary].join('\n\n') + '\n', exitCode }
}
