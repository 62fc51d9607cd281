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

  it('locates keys and values in file lines', () => {
    const bag = new DiagnosticBag('x.md')
    const doc = parseYaml('name: x\nlist:\n  - a\n  - b', 2, bag)
    expect(doc.locate(['list', 1])).toEqual({ line: 5, column: 5 })
    expect(doc.locate(['list'], 'key')).toEqual({ line: 3, column: 1 })
    expect(doc.locate(['missing', 'deeper'])).toEqual({ line: 2, column: 1 })
  })
})
