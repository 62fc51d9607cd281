import { describe, expect, it } from 'vitest'
import { DiagnosticBag } from '../../src/core/diagnostics'
import { parseYaml } from '../../src/core/yaml'

describe('parseYaml', () => {
  it('keeps __proto__ and constructor as plain keys without touching prototypes', () => {
    const bag = new DiagnosticBag('x.md')
    const { value } = parseYaml('__proto__:\n  polluted: true\nconstructor: x\nmetadata:\n  __proto__: { polluted: true }', 2, bag)
    expect(bag.items).toEqual([])
    const object = value as Record<string, unknown>
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype)
    expect(Object.keys(object)).toEqual(['__proto__', 'constructor', 'metadata'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((object.metadata as Record<string, unknown>).polluted).toBeUndefined()
    expect(JSON.parse(JSON.stringify(object)).__proto__).toEqual({ polluted: true })
  })

  it('bounds alias expansion', () => {
    const bag = new DiagnosticBag('x.md')
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]']
    for (let i = 1; i < 9; i++)
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array.from({ length: 10 }, () => `*${String.fromCharCode(96 + i)}`).join(', ')}]`)
    const { value } = parseYaml(levels.join('\n'), 2, bag)
    expect(value).toBeUndefined()
    expect(bag.items.map(d => d.code)).toEqual(['yaml-too-large'])
  })

  it('bounds only what aliases copy: a long list written out is read, with or without a comment', () => {
    const bag = new DiagnosticBag('x.md')
    const { value } = parseYaml(`list:\n${'  - x # item\n'.repeat(12_000)}`, 2, bag)
    expect(bag.items).toEqual([])
    expect((value as { list: string[] }).list).toHaveLength(12_000)
  })

  it('resolves an alias to the last anchor of its name before it, and refuses one inside its own anchor', () => {
    expect(parseYaml('a: &x 1\nb: *x\nc: &x 2\nd: [*x]', 2, new DiagnosticBag('x.md')).value).toEqual({ a: 1, b: 1, c: 2, d: [2] })
    const bag = new DiagnosticBag('x.md')
    expect(parseYaml('a: &x\n  b: *x', 2, bag).value).toBeUndefined()
    expect(bag.items.map(d => [d.code, d.line, d.column])).toEqual([['yaml-alias-cycle', 3, 6]])
  })

  it('reports each repeated key once, at the repetition, in nested mappings too', () => {
    const bag = new DiagnosticBag('x.md')
    expect(parseYaml('a: 1\nm:\n  k: 1\n  k: 2\na: 3 # again', 2, bag).value).toBeUndefined()
    expect(bag.items.map(d => [d.code, d.line, d.column, d.message])).toEqual([
      ['yaml-duplicate-key', 5, 3, 'Key "k" appears twice in the same mapping. Keep one of them.'],
      ['yaml-duplicate-key', 6, 1, 'Key "a" appears twice in the same mapping. Keep one of them.'],
    ])
  })

  it('reports one problem once per line, even where the parser sees it twice', () => {
    const bag = new DiagnosticBag('x.md')
    parseYaml('name: x\ndescription: a: b: c', 2, bag)
    expect(bag.items.map(d => [d.code, d.line])).toEqual([['yaml-unquoted-colon', 3]])
  })

  it('measures nesting in linear time: flow brackets, block levels and "- " on one line; quotes, comments and block scalars do not count', () => {
    const bag = new DiagnosticBag('x.md')
    const fine = [
      `q: "${'['.repeat(100)}"`,
      `c: x # ${'{'.repeat(100)}`,
      `s: |\n${Array.from({ length: 100 }, (_, i) => `${' '.repeat(i + 2)}[`).join('\n')}`,
      `p: plain [brackets] and {braces}`,
    ].join('\n')
    expect(parseYaml(fine, 2, bag).value).toMatchObject({ p: 'plain [brackets] and {braces}' })
    expect(bag.items).toEqual([])
    for (const [text, line, column] of [
      [`x: ${'['.repeat(64)}${']'.repeat(64)}`, 2, 67],
      [`x:\n${'  '.repeat(1)}${'- '.repeat(70)}y`, 3, 127],
      [Array.from({ length: 70 }, (_, i) => `${' '.repeat(i)}k:`).join('\n'), 66, 65],
    ] as const) {
      const deep = new DiagnosticBag('x.md')
      expect(parseYaml(text, 2, deep).value).toBeUndefined()
      expect(deep.items.map(d => [d.code, d.line, d.column])).toEqual([['yaml-too-deep', line, column]])
    }
  })

  it('locates keys and values in file lines', () => {
    const bag = new DiagnosticBag('x.md')
    const doc = parseYaml('name: x\nlist:\n  - a\n  - b', 2, bag)
    expect(doc.locate(['list', 1])).toEqual({ line: 5, column: 5 })
    expect(doc.locate(['list'], 'key')).toEqual({ line: 3, column: 1 })
    expect(doc.locate(['missing', 'deeper'])).toEqual({ line: 2, column: 1 })
  })
})
