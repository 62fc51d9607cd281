// A diagnostic as each bundler takes it. Our diagnostics count columns from 1,
// as tsc and eslint print them (`file:line:col` in every message text); a
// bundler's `loc` counts lines from 1 and columns from 0 (Rollup, Rolldown,
// Vite; esbuild in UTF-8 bytes). webpack and rspack get no `loc` through
// unplugin: their message text carries the location.

import type { UnpluginMessage } from 'unplugin'
import type { Diagnostic } from '../core/diagnostics'
import { Buffer } from 'node:buffer'
import { readFileSync, statSync } from 'node:fs'
import { codeFrame, sourceLine } from '../core/diagnostics'

/** A plugin message, with the code frame Rollup, Rolldown and Vite show under it. */
export type BundlerMessage = UnpluginMessage & { frame?: string }

/** Bundlers that show an error's `frame` (Vite builds its own from `loc` only when there is none). */
const SHOWS_FRAME = new Set(['vite', 'rollup', 'rolldown'])

/**
 * `text` as a message pointing at `at`, with one code frame: in `frame` where
 * the bundler shows one, else at the end of the text (esbuild and webpack
 * print only the text). `source` is the text of `at.file`, read when not
 * given; a location that is no file (a missing folder) gives the text alone.
 */
export function bundlerMessage(framework: string, text: string, at: Diagnostic | undefined, source?: string): BundlerMessage {
  const content = at && (source ?? readText(at.file))
  if (!at || content === undefined)
    return { message: text }
  const frame = codeFrame(content, at)
  const loc = { file: at.file, line: at.line, column: bundlerColumn(framework, content, at) }
  return SHOWS_FRAME.has(framework)
    ? { message: text, id: at.file, loc, frame }
    : { message: `${text}\n\n${frame}`, id: at.file, loc }
}

/** The 0-based column of a 1-based one, in UTF-8 bytes for esbuild. */
function bundlerColumn(framework: string, source: string, at: Diagnostic): number {
  if (framework !== 'esbuild')
    return at.column - 1
  const line = sourceLine(source, at.line)
  return Buffer.byteLength(line.slice(0, at.column - 1))
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
