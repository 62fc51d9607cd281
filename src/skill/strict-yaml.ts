import type { Position } from '../core/diagnostics'
import { isAlias, isCollection, isScalar, LineCounter, parseDocument, visit } from 'yaml'

/** A YAML feature that StrictYAML refuses to parse, and where it is. */
export interface StrictYamlProblem {
  kind: 'flow' | 'anchor' | 'alias' | 'tag'
  /** The offending text, e.g. `[`, `&name`, `*name`, `!!str`. */
  text: string
  at: Position
}

/**
 * The places where YAML that our parser reads uses what StrictYAML (the
 * parser of the Agent Skills reference validator) refuses: flow collections
 * (`[a, b]`, `{}`), anchors and aliases, and tags. `firstLine` is the file
 * line of the YAML text's first line. Syntax errors are left to the parser.
 */
export function strictYamlProblems(text: string, firstLine: number): StrictYamlProblem[] {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false })
  if (doc.errors.length > 0)
    return []
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset)
    return { line: line + firstLine - 1, column: col }
  }
  const problems: StrictYamlProblem[] = []
  visit(doc, {
    Node(_key, node) {
      const start = node.range?.[0]
      if (start === undefined)
        return
      if (isAlias(node)) {
        problems.push({ kind: 'alias', text: `*${node.source}`, at: at(start) })
        return
      }
      if (isCollection(node) && node.flow)
        problems.push({ kind: 'flow', text: text[start]!, at: at(start) })
      // Anchors and tags stand before the node's own range, so look back for them.
      if ((isScalar(node) || isCollection(node)) && node.anchor) {
        const anchor = `&${node.anchor}`
        problems.push({ kind: 'anchor', text: anchor, at: at(text.lastIndexOf(anchor, start)) })
      }
      if ((isScalar(node) || isCollection(node)) && node.tag) {
        // The tag is the last word before the node (after its anchor, if any).
        const before = text.slice(0, start).trimEnd()
        const tag = /\S+$/.exec(before)![0]
        problems.push({ kind: 'tag', text: tag, at: at(before.length - tag.length) })
      }
    },
  })
  return problems.sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column)
}
