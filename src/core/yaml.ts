import type { Node, Pair } from 'yaml'
import type { Position } from './diagnostics'
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml'
import { DiagnosticBag } from './diagnostics'
import { parseSimpleYaml } from './yaml-simple'

/** A plain JSON-like value read from YAML. */
export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue }

/** A parsed YAML document: its value and a way back to source positions. */
export interface YamlDocument {
  value: YamlValue | undefined
  /**
   * File position of the node at `path` (keys and indexes from the root):
   * its key when `part` is `'key'`, else its value. Falls back to the nearest
   * ancestor that exists, so a missing field points at its parent.
   */
  locate: (path: readonly (string | number)[], part?: 'key' | 'value') => Position
}

/** Aliases may not expand a document to more values than this (alias bombs). */
export const MAX_YAML_VALUES = 10_000

/** Clearer wording for the YAML errors skill authors hit most; the argument is the source text at the error. */
const FRIENDLY: Record<string, (token: string) => { code: string, message: string }> = {
  TAB_AS_INDENT: () => ({
    code: 'yaml-tab',
    message: 'A tab is used for indentation, which YAML forbids. Indent with spaces.',
  }),
  BLOCK_AS_IMPLICIT_KEY: () => ({
    code: 'yaml-unquoted-colon',
    message: 'This value contains ": ", which YAML reads as a nested mapping. Quote the whole value, e.g. key: "text: more text".',
  }),
  DUPLICATE_KEY: key => ({
    code: 'yaml-duplicate-key',
    message: `Key "${key}" appears twice in the same mapping. Keep one of them.`,
  }),
}

/**
 * Parses YAML safely and with positions. No tags execute code (the YAML 1.2
 * core schema has none), keys such as `__proto__` become own data properties
 * instead of touching prototypes, and alias expansion is bounded. Syntax
 * problems become diagnostics in `bag`; `firstLine` is the file line of the
 * YAML text's first line.
 */
export function parseYaml(text: string, firstLine: number, bag: DiagnosticBag): YamlDocument {
  // Most frontmatter is plain; positions are then only worked out when a diagnostic needs one.
  const simple = parseSimpleYaml(text)
  if (simple !== undefined) {
    let full: YamlDocument | undefined
    return {
      value: simple,
      locate: (path, part) => (full ??= parseFullYaml(text, firstLine, new DiagnosticBag(bag.file))).locate(path, part),
    }
  }
  return parseFullYaml(text, firstLine, bag)
}

function parseFullYaml(text: string, firstLine: number, bag: DiagnosticBag): YamlDocument {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  const at = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset)
    return { line: line + firstLine - 1, column: col }
  }

  for (const error of doc.errors) {
    const friendly = FRIENDLY[error.code]?.(/^[^:\n]*/.exec(text.slice(error.pos[0]))![0].trim())
    bag.error(
      friendly?.code ?? 'yaml-syntax',
      friendly?.message ?? `Invalid YAML: ${firstSentence(error.message)}. Fix the frontmatter syntax.`,
      at(error.pos[0]),
    )
  }
  for (const warning of doc.warnings) {
    bag.warning('yaml-warning', `${firstSentence(warning.message)}. Custom YAML tags are not supported; the value is read as plain text.`, at(warning.pos[0]))
  }

  const locate = (path: readonly (string | number)[], part: 'key' | 'value' = 'value'): Position => {
    let node: unknown = doc.contents
    let found: number = rangeStart(doc.contents) ?? 0
    for (const [depth, segment] of path.entries()) {
      const pair = childPair(node, segment)
      const target = pair ? (part === 'key' && depth === path.length - 1 ? pair.key : pair.value) : childItem(node, segment)
      const start = rangeStart(target) ?? (pair && rangeStart(pair.key))
      if (start === undefined)
        break
      found = start
      node = target
    }
    return at(found)
  }

  if (doc.errors.length > 0)
    return { value: undefined, locate }

  const budget = { left: MAX_YAML_VALUES }
  const value = toValue(doc.contents, doc, budget)
  if (budget.left < 0) {
    bag.error('yaml-too-large', `The frontmatter expands to more than ${MAX_YAML_VALUES} values through aliases. Remove the repeated aliases (*name).`, at(0))
    return { value: undefined, locate }
  }
  return { value, locate }
}

function firstSentence(message: string): string {
  return message.split('\n')[0]!.replace(/[.:]\s*$/, '')
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null)?.range
  return range ? range[0] : undefined
}

function childPair(node: unknown, key: string | number): Pair | undefined {
  if (!isMap(node))
    return undefined
  return node.items.find(pair => isScalar(pair.key) && String(pair.key.value) === String(key))
}

function childItem(node: unknown, index: string | number): unknown {
  return isSeq(node) && typeof index === 'number' ? node.items[index] : undefined
}

function toValue(node: unknown, doc: ReturnType<typeof parseDocument>, budget: { left: number }): YamlValue {
  if (--budget.left < 0)
    return null
  if (isAlias(node))
    return toValue(node.resolve(doc), doc, budget)
  if (isScalar(node)) {
    const v = node.value
    if (v === null || v === undefined)
      return null
    if (typeof v === 'string' || typeof v === 'boolean')
      return v
    if (typeof v === 'number')
      return v
    return String(v)
  }
  if (isSeq(node))
    return node.items.map(item => toValue(item, doc, budget))
  if (isMap(node)) {
    const out: { [key: string]: YamlValue } = {}
    for (const pair of node.items) {
      if (!isPair(pair))
        continue
      const key = isScalar(pair.key) ? String(pair.key.value) : JSON.stringify(toValue(pair.key, doc, budget))
      // defineProperty, not assignment: a `__proto__` key must stay a plain own key.
      Object.defineProperty(out, key, { value: toValue(pair.value, doc, budget), enumerable: true, writable: true, configurable: true })
    }
    return out
  }
  return null
}

/** True for a YAML mapping read by {@link parseYaml}. */
export function isYamlMapping(value: YamlValue | undefined): value is { [key: string]: YamlValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
