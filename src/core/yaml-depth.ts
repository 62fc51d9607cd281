// YAML parsers (ours and the `yaml` package) recurse once per nesting level,
// so a few thousand levels overflow the stack. Frontmatter never needs more
// than a handful: this linear scan measures the depth first, so deeper text
// is reported as a diagnostic instead of crashing the parser.

import { work } from '../runtime/work'

/** The deepest nesting of mappings, sequences and flow collections that frontmatter may use. */
export const MAX_YAML_DEPTH = 64

const BLOCK_SCALAR_HEADER = /(?:^|[\s:-])[|>][-+\d]*\s*$/

/**
 * The offset in `text` where its nesting first goes deeper than `max` levels,
 * or `undefined`. Counts block levels by indentation (and `- `/`? ` indicators
 * on one line) and flow levels by brackets outside quotes and comments; block
 * scalar contents are skipped. An over-estimate on odd input is harmless: the
 * bound is far above what real frontmatter uses.
 */
export function yamlDepthExceeded(text: string, max = MAX_YAML_DEPTH): number | undefined {
  const indents: number[] = []
  let flow = 0
  let quote: '"' | '\'' | undefined
  let scalarParent: number | undefined
  let lineStart = 0
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart)
    const lineEnd = newline < 0 ? text.length : newline
    work.steps += lineEnd - lineStart + 1
    let i = lineStart
    while (text.charCodeAt(i) === 32)
      i++
    const indent = i - lineStart
    const blank = i >= lineEnd || text[i] === '#'
    if (scalarParent !== undefined && (blank || indent > scalarParent)) {
      lineStart = lineEnd + 1
      continue
    }
    scalarParent = undefined
    if (!blank && flow === 0 && quote === undefined) {
      while (indents.length > 0 && indents[indents.length - 1]! >= indent)
        indents.pop()
      indents.push(indent)
      let depth = indents.length
      if (depth > max)
        return i
      // `- - - x` and `? ? x` nest once per indicator on the same line.
      while ((text[i] === '-' || text[i] === '?') && (text[i + 1] === ' ' || i + 1 === lineEnd)) {
        if (++depth > max)
          return i
        i += 2
        while (text.charCodeAt(i) === 32)
          i++
      }
    }
    let valueStart = true
    for (; i < lineEnd; i++) {
      const c = text[i]!
      if (quote) {
        if (c === '\\' && quote === '"')
          i++
        else if (c === quote)
          quote = undefined
        continue
      }
      if (c === '#' && (i === lineStart || /\s/.test(text[i - 1]!)))
        break
      if ((c === '"' || c === '\'') && (valueStart || flow > 0)) {
        quote = c
        continue
      }
      if ((c === '[' || c === '{') && (valueStart || flow > 0)) {
        if (indents.length + ++flow > max)
          return i
      }
      else if ((c === ']' || c === '}') && flow > 0) {
        flow--
      }
      valueStart = c === ' ' ? valueStart : c === ':' || c === ',' || c === '-' || c === '[' || c === '{'
    }
    if (flow === 0 && quote === undefined && BLOCK_SCALAR_HEADER.test(text.slice(lineStart, lineEnd)))
      scalarParent = indent
    lineStart = lineEnd + 1
  }
  return undefined
}
