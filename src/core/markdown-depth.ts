// Markdown parsers (marked, which chunks knowledge documents and cards them
// for routing) recurse once per nested block quote or list, and re-read a
// nested list's text at every level: 5,000 nested quotes overflow the stack,
// 1,000 nested list items take 18 s. Documents never need more than a handful
// of levels: this linear scan measures the nesting first, so a deeper
// document is reported as a diagnostic instead of crashing or stalling.

import { work } from '../runtime/work'

/** The deepest nesting of block quotes and lists a knowledge document may use. */
export const MAX_MARKDOWN_DEPTH = 32

const FENCE = /^ {0,3}(`{3,}|~{3,})/
const LIST_MARKER = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)/

/**
 * The offset in `text` of the first marker that nests deeper than `max`
 * levels, or `undefined`. Counts `>` markers and list markers at the start of each
 * line (outside fenced code), plus the list items a marker line is indented
 * under: a list marker opens a level deeper than every earlier marker it is
 * indented further than. An over-estimate on odd input is harmless: the bound
 * is far above what documents use.
 */
export function markdownDepthExceeded(text: string, max = MAX_MARKDOWN_DEPTH): number | undefined {
  /** Indents of the list markers the current line may be nested under. */
  const open: number[] = []
  let fence: string | undefined
  let lineStart = 0
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart)
    const lineEnd = newline < 0 ? text.length : newline
    work.steps += lineEnd - lineStart + 1
    const line = text.slice(lineStart, lineEnd)
    const fenced = FENCE.exec(line)
    if (fence !== undefined) {
      if (fenced && fenced[1]![0] === fence[0] && fenced[1]!.length >= fence.length)
        fence = undefined
    }
    else if (fenced) {
      fence = fenced[1]
    }
    else {
      let i = 0
      let depth = 0
      let firstList = true
      for (;;) {
        while (line[i] === ' ' || line[i] === '\t')
          i++
        const at = i
        if (line[i] === '>') {
          i++
        }
        else {
          const marker = LIST_MARKER.exec(line.slice(i, i + 11))
          if (!marker)
            break
          if (firstList) {
            // Only a line's first list marker is placed by indentation (after any `>`); the ones after it nest inside it.
            while (open.length > 0 && open[open.length - 1]! >= i)
              open.pop()
            open.push(i)
            depth += open.length - 1
            firstList = false
          }
          i += marker[0].length
        }
        if (++depth > max)
          return lineStart + at
      }
    }
    lineStart = lineEnd + 1
  }
  return undefined
}
