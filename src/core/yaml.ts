import type { Node, Pair } from 'yaml'
import type { Position } from './diagnostics'
import type { YamlValue } from './yaml-value'
import { isAlias, isCollection, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit } from 'yaml'
import { work } from '../runtime/work'
import { DiagnosticBag } from './diagnostics'
import { MAX_YAML_DEPTH, yamlDepthExceeded } from './yaml-depth'
import { parseSimpleYaml } from './yaml-simple'

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

/** Aliases may not copy more values than this into a document (alias bombs). */
export const MAX_YAML_VALUES = 10_000

/**
 * Characters of YAML parsed at most (256 KiB of ASCII): frontmatter holds
 * fields, not text, and a bound on its size bounds every cost of parsing it
 * (the parser's garbage grows faster than its input past a few megabytes).
 */
export const MAX_YAML_CHARS = 262_144

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
  if (text.length > MAX_YAML_CHARS) {
    const at = { line: firstLine, column: 1 }
    bag.error('yaml-too-long', `The frontmatter has ${text.length.toLocaleString('en-US')} characters; at most ${MAX_YAML_CHARS.toLocaleString('en-US')} are allowed. Move long text into the body.`, at)
    return { value: undefined, locate: () => at }
  }
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
  // Duplicate keys are found below: the parser's own check compares each key with every earlier one.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false })
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
  const duplicates = duplicateKeys(doc)
  for (const duplicate of duplicates)
    bag.error('yaml-duplicate-key', FRIENDLY.DUPLICATE_KEY!(duplicate.key).message, at(duplicate.offset))
  for (const warning of doc.warnings) {
    bag.warning('yaml-warning', `${firstSentence(warning.message)}. Custom YAML tags are not supported; the value is read as plain text.`, at(warning.pos[0]))
  }

  // Pairs by key, per mapping, built on first use: a linear search per lookup is quadratic when every key of a large mapping is located.
  const pairs = new WeakMap<object, Map<string, Pair>>()
  const childPair = (node: unknown, key: string | number): Pair | undefined => {
    if (!isMap(node))
      return undefined
    let byKey = pairs.get(node)
    if (!byKey) {
      byKey = new Map()
      for (const pair of node.items) {
        work.steps++
        if (isScalar(pair.key) && !byKey.has(String(pair.key.value)))
          byKey.set(String(pair.key.value), pair)
      }
      pairs.set(node, byKey)
    }
    return byKey.get(String(key))
  }

  const locate = (path: readonly (string | number)[], part: 'key' | 'value' = 'value'): Position => {
    let node: unknown = doc.contents
    let found: number = rangeStart(doc.contents) ?? 0
    for (const [depth, segment] of path.entries()) {
      work.steps++
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

  if (doc.errors.length > 0 || duplicates.length > 0)
    return { value: undefined, locate }

  const budget: Budget = { left: MAX_YAML_VALUES, inAliases: 0, expanding: new Set(), targets: aliasTargets(doc) }
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

function childItem(node: unknown, index: string | number): unknown {
  return isSeq(node) && typeof index === 'number' ? node.items[index] : undefined
}

/**
 * What expanding a document may still do: values left to copy through
 * aliases (the rest is bounded by the text's size), how deep in alias
 * expansions it is, the collections being expanded, each alias's target, and
 * the first alias that refers to a collection containing it.
 */
interface Budget {
  left: number
  inAliases: number
  expanding: Set<unknown>
  targets: Map<unknown, unknown>
  cycle?: { text: string, offset: number }
}

/** Keys that a mapping repeats (scalar keys compared as text), with the offset of each repetition, in one pass. */
function duplicateKeys(doc: ReturnType<typeof parseDocument>): { key: string, offset: number }[] {
  const duplicates: { key: string, offset: number }[] = []
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<string>()
      for (const pair of map.items) {
        if (!isScalar(pair.key))
          continue
        const key = String(pair.key.value)
        if (seen.has(key))
          duplicates.push({ key, offset: pair.key.range?.[0] ?? 0 })
        seen.add(key)
      }
    },
  })
  return duplicates.sort((a, b) => a.offset - b.offset)
}

/**
 * What each alias refers to: the last node anchored with its name before it.
 * One pass over the document; `Alias.resolve` searches the whole document
 * for each alias, which is quadratic in a document of many aliases.
 */
function aliasTargets(doc: ReturnType<typeof parseDocument>): Map<unknown, unknown> {
  const anchored = new Map<string, unknown>()
  const targets = new Map<unknown, unknown>()
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node))
        targets.set(node, anchored.get(node.source))
      else if ((isScalar(node) || isCollection(node)) && node.anchor)
        anchored.set(node.anchor, node)
    },
  })
  return targets
}

function toValue(node: unknown, doc: ReturnType<typeof parseDocument>, budget: Budget): YamlValue {
  work.steps++
  if ((budget.inAliases > 0 && --budget.left < 0) || budget.cycle)
    return null
  if (isAlias(node)) {
    const target = budget.targets.get(node)
    if (budget.expanding.has(target)) {
      budget.cycle = { text: `*${node.source}`, offset: node.range?.[0] ?? 0 }
      return null
    }
    budget.inAliases++
    const value = toValue(target, doc, budget)
    budget.inAliases--
    return value
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
