import type { YamlValue } from './yaml-value'
import { work } from '../runtime/work'

/**
 * A fast reader for the YAML that frontmatter is nearly always written in:
 * block mappings and sequences, plain and quoted one-line strings, flow
 * lists of plain words, and simple `|`/`>` blocks. It returns `undefined` as
 * soon as the text leaves that subset, or holds anything whose meaning takes
 * the full YAML rules (numbers, booleans, nulls, escapes, anchors, tags,
 * comments after values, multi-line plain scalars), so the caller falls back
 * to the full parser: what it does return is what the full parser returns.
 */
export function parseSimpleYaml(text: string): YamlValue | undefined {
  if (text.includes('\t') || text.includes('\r'))
    return undefined
  const reader = new Reader(text.split('\n'))
  try {
    const first = reader.nextContent()
    if (first < 0)
      return undefined
    if (indentOf(reader.lines[first]!) !== 0)
      return undefined
    const value = reader.map(0)
    return reader.nextContent() < 0 ? value : undefined
  }
  catch (error) {
    if (error === BAIL)
      return undefined
    throw error
  }
}

const BAIL = Symbol('leaves the simple subset')
const KEY = /^([A-Za-z_][\w.-]*):(?: +(.*))?$/
/** Plain scalars the core schema reads as null, booleans or numbers, or that start with an indicator. */
const NOT_A_PLAIN_STRING = /^(?:[-?:,[\]{}#&*!|>'"%@`.~+\d]|(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$)/
const BLOCK_HEADER = /^([|>])(-?)$/

function indentOf(line: string): number {
  let i = 0
  while (line.charCodeAt(i) === 32)
    i++
  return i
}

function isSkippable(line: string): boolean {
  const trimmed = line.trim()
  return trimmed === '' || trimmed.startsWith('#')
}

function bail(): never {
  throw BAIL
}

/**
 * Adds `key` as a plain own data property. Assignment costs a small part of
 * `Object.defineProperty`; a key that `Object.prototype` has (`__proto__`,
 * whose setter would change the prototype, or anything someone added there)
 * is defined instead, so it never reaches the prototype.
 */
function setOwn(target: Record<string, YamlValue>, key: string, value: YamlValue): void {
  if (key in Object.prototype)
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

class Reader {
  i = 0
  constructor(readonly lines: string[]) {}

  /** Index of the next line that is neither blank nor a comment, or -1. */
  nextContent(): number {
    while (this.i < this.lines.length && isSkippable(this.lines[this.i]!)) {
      work.steps += this.lines[this.i]!.length + 1
      this.i++
    }
    return this.i < this.lines.length ? this.i : -1
  }

  map(indent: number): Record<string, YamlValue> {
    const out: Record<string, YamlValue> = {}
    for (let at = this.nextContent(); at >= 0; at = this.nextContent()) {
      const line = this.lines[at]!
      work.steps += line.length + 1
      const ind = indentOf(line)
      if (ind < indent)
        break
      if (ind > indent)
        bail()
      const match = KEY.exec(line.slice(ind).trimEnd()) ?? bail()
      const key = match[1]!
      if (Object.hasOwn(out, key))
        bail()
      this.i++
      const rest = match[2]
      setOwn(out, key, rest === undefined || rest === '' ? this.nested(indent) : this.inline(rest, indent))
    }
    return out
  }

  /** The block value after `key:`: a deeper mapping or sequence, a sequence at the key's indent, or null. */
  nested(indent: number): YamlValue {
    const at = this.nextContent()
    if (at < 0)
      return null
    const line = this.lines[at]!
    const ind = indentOf(line)
    const isItem = line.startsWith('- ', ind) || line.length === ind + 1 && line[ind] === '-'
    if (isItem && ind >= indent)
      return this.sequence(ind)
    if (ind > indent)
      return this.map(ind)
    return null
  }

  sequence(indent: number): YamlValue[] {
    const out: YamlValue[] = []
    for (let at = this.nextContent(); at >= 0; at = this.nextContent()) {
      const line = this.lines[at]!
      const ind = indentOf(line)
      if (ind < indent || (ind === indent && !line.startsWith('- ', ind)))
        break
      if (ind > indent)
        bail()
      const item = line.slice(ind + 2).trimEnd()
      if (item === '' || KEY.test(item) || item.startsWith('- '))
        bail()
      this.i++
      out.push(this.scalarOrFlow(item))
    }
    return out
  }

  inline(raw: string, indent: number): YamlValue {
    const text = raw.trimEnd()
    const block = BLOCK_HEADER.exec(text)
    return block ? this.block(block[1] === '>', block[2] === '-', indent) : this.scalarOrFlow(text)
  }

  scalarOrFlow(text: string): YamlValue {
    return text.startsWith('[') || text.startsWith('{') ? flow(text) : scalar(text)
  }

  /** A `|` or `>` block of equally indented lines without blank lines inside. */
  block(folded: boolean, strip: boolean, indent: number): string {
    const lines: string[] = []
    while (this.i < this.lines.length) {
      const line = this.lines[this.i]!
      if (line.trim() !== '' && indentOf(line) <= indent)
        break
      lines.push(line)
      this.i++
    }
    while (lines.length > 0 && lines.at(-1)!.trim() === '')
      lines.pop()
    // The last line of the text has no line break for clip chomping to keep.
    if (lines.length === 0 || (!strip && this.i === this.lines.length))
      bail()
    const blockIndent = indentOf(lines[0]!)
    if (lines.some(line => line.trim() === '' || indentOf(line) !== blockIndent))
      bail()
    const content = lines.map(line => line.slice(blockIndent))
    return content.join(folded ? ' ' : '\n') + (strip ? '' : '\n')
  }
}

/** A one-line flow collection of plain words, e.g. `{ always: [rules, setup] }`. */
function flow(text: string): YamlValue {
  let i = 0
  const space = () => {
    while (text[i] === ' ')
      i++
  }
  const value = (): YamlValue => {
    space()
    if (text[i] === '[') {
      i++
      const items: YamlValue[] = []
      for (space(); text[i] !== ']'; space()) {
        items.push(value())
        space()
        if (text[i] === ',')
          i++
        else if (text[i] !== ']')
          bail()
      }
      i++
      return items
    }
    if (text[i] === '{') {
      i++
      const entries: Record<string, YamlValue> = {}
      for (space(); text[i] !== '}'; space()) {
        const key = /^[A-Za-z_][\w.-]*/.exec(text.slice(i))?.[0] ?? bail()
        i += key.length
        if (text[i] !== ':' || text[i + 1] !== ' ' || Object.hasOwn(entries, key))
          bail()
        i++
        setOwn(entries, key, value())
        space()
        if (text[i] === ',')
          i++
        else if (text[i] !== '}')
          bail()
      }
      i++
      return entries
    }
    const end = text.slice(i).search(/[,[\]{}]/)
    const word = (end < 0 ? text.slice(i) : text.slice(i, i + end)).trim()
    i = end < 0 ? text.length : i + end
    if (/[:"']/.test(word))
      bail()
    return plain(word)
  }
  const result = value()
  space()
  return i === text.length ? result : bail()
}

function scalar(text: string): string {
  if (text.startsWith('"')) {
    const inner = text.slice(1, -1)
    if (text.length < 2 || !text.endsWith('"') || /["\\]/.test(inner))
      bail()
    return inner
  }
  if (text.startsWith('\'')) {
    const inner = text.slice(1, -1)
    if (text.length < 2 || !text.endsWith('\'') || inner.replace(/''/g, '').includes('\''))
      bail()
    return inner.replace(/''/g, '\'')
  }
  return plain(text)
}

function plain(text: string): string {
  if (text === '' || NOT_A_PLAIN_STRING.test(text) || text.includes(': ') || text.includes(' #') || text.endsWith(':'))
    bail()
  return text
}
