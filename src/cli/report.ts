import type { Diagnostic } from '../core/diagnostics'
import { relative } from 'node:path'
import { codeFrame, formatDiagnostic } from '../core/diagnostics'
import { frameSource } from '../core/frame-source'

/** A path as the user typed it from the working folder, so terminals and editors can open `file:line:col`. */
export function displayPath(file: string): string {
  return relative(process.cwd(), file).replace(/\\/g, '/') || '.'
}

/**
 * Every diagnostic as `file:line:col severity code: message` with a code
 * frame when the file is a readable text file (a diagnostic about a folder or
 * a symlink has none), blocks separated by blank lines.
 */
export function renderDiagnostics(diagnostics: readonly Diagnostic[]): string {
  // Each file is read once, through the last line a frame shows: never more of a huge file than that.
  const deepest = new Map<string, number>()
  for (const d of diagnostics)
    deepest.set(d.file, Math.max(deepest.get(d.file) ?? 0, d.line))
  const sources = new Map<string, string | undefined>()
  const sourceOf = (file: string) => {
    if (!sources.has(file))
      sources.set(file, frameSource(file, deepest.get(file)!))
    return sources.get(file)
  }
  return diagnostics.map((d) => {
    const source = sourceOf(d.file)
    const head = formatDiagnostic(d, displayPath)
    return source === undefined ? head : `${head}\n${codeFrame(source, d)}`
  }).join('\n\n')
}

/** `3 errors, 1 warning`. */
export function countDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter(d => d.severity === 'error').length
  const warnings = diagnostics.length - errors
  return `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`
}
