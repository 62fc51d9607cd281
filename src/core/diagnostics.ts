/** How bad a problem is: an `error` fails a strict build, a `warning` never does. */
export type Severity = 'error' | 'warning'

/** One problem found in one file, pointing at the exact place to fix. */
export interface Diagnostic {
  /** Stable machine-readable code, e.g. `section-id-missing`. */
  code: string
  severity: Severity
  /** What is wrong and how to fix it, in one or two sentences. */
  message: string
  /** Absolute path of the file the problem is in. */
  file: string
  /** 1-based line. */
  line: number
  /** 1-based column. */
  column: number
}

/** A position in a file, 1-based. */
export interface Position {
  line: number
  column: number
}

/** Collects the diagnostics of one file, so that every problem is reported at once. */
export class DiagnosticBag {
  readonly items: Diagnostic[] = []

  constructor(readonly file: string) {}

  error(code: string, message: string, at: Position): void {
    this.items.push({ code, severity: 'error', message, file: this.file, line: at.line, column: at.column })
  }

  warning(code: string, message: string, at: Position): void {
    this.items.push({ code, severity: 'warning', message, file: this.file, line: at.line, column: at.column })
  }

  get hasErrors(): boolean {
    return this.items.some(d => d.severity === 'error')
  }

  /** Diagnostics in reading order, so a report walks the file top to bottom. */
  sorted(): Diagnostic[] {
    return [...this.items].sort((a, b) => a.line - b.line || a.column - b.column)
  }
}

/** Widest line a code frame shows: longer lines are cut to this many characters around the column. */
export const FRAME_WIDTH = 120

/** The last source a frame was cut from, split: a report frames many diagnostics of one source. */
let framed: { source: string, lines: string[] } | undefined

function linesOf(source: string): string[] {
  if (framed?.source !== source)
    framed = { source, lines: source.split(/\r?\n/) }
  return framed.lines
}

/** Line `line` (1-based) of `source`, without its line break; '' past the end. */
export function sourceLine(source: string, line: number): string {
  return linesOf(source)[line - 1] ?? ''
}

/**
 * Renders lines around a position with a caret under the column, like
 * compilers do. Lines wider than {@link FRAME_WIDTH} show the part around the
 * column, with `…` where they are cut. Framing many positions of one source
 * splits it once.
 */
export function codeFrame(source: string, at: Position, context = 2): string {
  const lines = linesOf(source)
  const first = Math.max(1, at.line - context)
  const last = Math.min(lines.length, at.line + context)
  const width = String(last).length
  // The same window on every line, so the caret stays under its column.
  const column = Math.max(0, at.column - 1)
  const start = Math.max(0, column - FRAME_WIDTH / 2)
  const cut = (line: string) => {
    if (line.length <= FRAME_WIDTH && start === 0)
      return line
    const shown = line.slice(start, start + FRAME_WIDTH)
    return `${start > 0 ? '…' : ''}${shown}${start + FRAME_WIDTH < line.length ? '…' : ''}`
  }
  const out: string[] = []
  for (let n = first; n <= last; n++) {
    const marker = n === at.line ? '>' : ' '
    out.push(`${marker} ${String(n).padStart(width)} | ${cut(lines[n - 1]!)}`)
    if (n === at.line)
      out.push(`  ${' '.repeat(width)} | ${' '.repeat(column - start + (start > 0 ? 1 : 0))}^`)
  }
  return out.join('\n')
}

/** `file:line:column severity code: message`, the form editors and terminals link. */
export function formatDiagnostic(d: Diagnostic, relativeTo?: (file: string) => string): string {
  const file = relativeTo ? relativeTo(d.file) : d.file
  return `${file}:${d.line}:${d.column} ${d.severity} ${d.code}: ${d.message}`
}

/**
 * A multi-problem report: every diagnostic with its location and, when the
 * source is given, a code frame.
 */
export function formatReport(
  diagnostics: readonly Diagnostic[],
  options: { source?: string, relativeTo?: (file: string) => string } = {},
): string {
  return diagnostics
    .map((d) => {
      const head = formatDiagnostic(d, options.relativeTo)
      return options.source === undefined ? head : `${head}\n${codeFrame(options.source, d)}`
    })
    .join('\n\n')
}
