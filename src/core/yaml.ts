import type { Node, Pair } from 'yaml'
import type { Position } from './diagnostics'
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml'
import { DiagnosticBag } from './diagnostics'
import { MAX_YAML_DEPTH, yamlDepthExceeded } from './yaml-depth'
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
  const tooDeep = yamlDepthExceeded(text)
  if (tooDeep !== undefined) {
    const at = positionAt(text, tooDeep, firstLine)
    bag.error('yaml-too-deep', `The frontmatter nests more than ${MAX_YAML_DEPTH} levels of mappings, lists or brackets. Flatten it: fields need a few levels at most.`, at)
    return { value: undefined, locate: () => at }
  }
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

  // The parser may report one problem at several places of a line: each line says it once.
  const reported = new Set<string>()
  for (const error of doc.errors) {
    const friendly = FRIENDLY[error.code]?.(/^[^:\n]*/.exec(text.slice(error.pos[0]))![0].trim())
    const code = friendly?.code ?? 'yaml-syntax'
    const position = at(error.pos[0])
    if (reported.has(`${code}:${position.line}`))
      continue
    reported.add(`${code}:${position.line}`)
    bag.error(code, friendly?.message ?? `Invalid YAML: ${firstSentence(error.message)}. Fix the frontmatter syntax.`, position)
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

  const budget: Budget = { left: MAX_YAML_VALUES, expanding: new Set() }
  const value = toValue(doc.contents, doc, budget)
  if (budget.cycle !== undefined) {
    bag.error('yaml-alias-cycle', `The alias ${budget.cycle.text} refers to a value that contains it, so it never ends. Repeat the value itself instead of the alias.`, at(budget.cycle.offset))
    return { value: undefined, locate }
  }
  if (budget.left < 0) {
    bag.error('yaml-too-large', `The frontmatter expands to more than ${MAX_YAML_VALUES} values through aliases. Remove the repeated aliases (*name).`, at(0))
    return { value: undefined, locate }
  }
  return { value, locate }
}

/** The file position of `offset` in YAML text whose first line is file line `firstLine`. */
function positionAt(text: string, offset: number, firstLine: number): Position {
  const before = text.slice(0, offset)
  const lineStart = before.lastIndexOf('\n') + 1
  return { line: firstLine + countBreaks(before), column: offset - lineStart + 1 }
}

function countBreaks(text: string): number {
  let breaks = 0
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1))
    breaks++
  return breaks
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

/** What expanding a document may still do: values left, the collections being expanded, and the first alias that refers to one of them. */
interface Budget {
  left: number
  expanding: Set<unknown>
  cycle?: { text: string, offset: number }
}

function toValue(node: unknown, doc: ReturnType<typeof parseDocument>, budget: Budget): YamlValue {
  if (--budget.left < 0 || budget.cycle)
    return null
  if (isAlias(node)) {
    const target = node.resolve(doc)
    if (budget.expanding.has(target)) {
      budget.cycle = { text: `*${node.source}`, offset: node.range?.[0] ?? 0 }
      return null
    }
    return toValue(target, doc, budget)
  }
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
  if (isSeq(node)) {
    budget.expanding.add(node)
    const items = node.items.map(item => toValue(item, doc, budget))
    budget.expanding.delete(node)
    return items
  }
  if (isMap(node)) {
    budget.expanding.add(node)
    const out: { [key: string]: YamlValue } = {}
    for (const pair of node.items) {
      if (!isPair(pair))
        continue
      const key = isScalar(pair.key) ? String(pair.key.value) : JSON.stringify(toValue(pair.key, doc, budget))
      // defineProperty, not assignment: a `__proto__` key must stay a plain own key.
      Object.defineProperty(out, key, { value: toValue(pair.value, doc, budget), enumerable: true, writable: true, configurable: true })
    }
    budget.expanding.delete(node)
    return out
  }
  return null
}

/** True for a YAML mapping read by {@link parseYaml}. */
export function isYamlMapping(value: YamlValue | undefined): value is { [key: string]: YamlValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
