// A diagnostic as each bundler takes it. Our diagnostics count columns from 1,
// as tsc and eslint print them (`file:line:col` in every message text); a
// bundler's `loc` counts lines from 1 and columns from 0 (Rollup, Rolldown,
// Vite; esbuild in UTF-8 bytes). webpack and rspack get no `loc` through
// unplugin: their message text carries the location.

import type { UnpluginMessage } from 'unplugin'
import type { Diagnostic } from '../../core/diagnostics'
import { Buffer } from 'node:buffer'
import { readFileSync, statSync } from 'node:fs'
import { codeFrame, sourceLine } from '../../core/diagnostics'
import { frameSource } from '../../core/frame-source'

/**
 * A plugin message, with the code frame Rollup, Rolldown and Vite show under
 * it, and for esbuild the text of the line `loc` points at (esbuild prints it
 * under the location, and an empty line without it).
 */
export type BundlerMessage = UnpluginMessage & { frame?: string, stack?: string, lineText?: string }

/** Bundlers that show an error's `frame` (Vite builds its own from `loc` only when there is none). */
const SHOWS_FRAME = new Set(['vite', 'rollup', 'rolldown'])

/**
 * `text` as a message pointing at `at`, with one code frame: in `frame` where
 * the bundler shows one, else at the end of the text (esbuild and webpack
 * print only the text). `source` is the text of `at.file`, read through the
 * lines the frame shows when not given; a location that is no file (a
 * missing folder) gives the text alone.
 */
export function bundlerMessage(framework: string, text: string, at: Diagnostic | undefined, source?: string): BundlerMessage {
  // An empty stack: the text says all a person needs, and Rollup, Rolldown and
  // Vite would print the plugin's own stack frames under it.
  const content = at && (source ?? frameSource(at.file, at.line))
  if (!at || content === undefined)
    return { message: text, stack: '' }
  const frame = codeFrame(content, at)
  if (SHOWS_FRAME.has(framework))
    return { message: text, id: at.file, loc: { file: at.file, line: at.line, column: at.column - 1 }, frame, stack: '' }
  const message = `${text}\n\n${frame}`
  if (framework !== 'esbuild')
    return { message, id: at.file, loc: { file: at.file, line: at.line, column: at.column - 1 }, stack: '' }
  // esbuild counts columns in UTF-8 bytes.
  const lineText = sourceLine(content, at.line)
  const column = Buffer.byteLength(lineText.slice(0, at.column - 1))
  return { message, id: at.file, loc: { file: at.file, line: at.line, column }, lineText, stack: '' }
}

/** Reads each file's text once: the warnings of one build often point into the same few files. */
export function fileTexts(): (file: string) => string | undefined {
  const texts = new Map<string, string | undefined>()
  return (file) => {
    if (!texts.has(file))
      texts.set(file, readText(file))
    return texts.get(file)
  }
}

function readText(file: string): string | undefined {
  try {
    return statSync(file).isFile() ? readFileSync(file, 'utf8') : undefined
  }
  catch {
    // Gone since the diagnostic was made: the text says where.
    return undefined
  }
}
