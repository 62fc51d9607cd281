import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse, parseDocument } from 'yaml'
import { describe, expect, it } from 'vitest'
import { splitFrontmatter } from '../../src/core/frontmatter'
import { parseSimpleYaml } from '../../src/core/yaml-simple'

/** The fast reader either declines or agrees with the full YAML parser. */
function expectAgrees(text: string) {
  const simple = parseSimpleYaml(text)
  if (simple !== undefined)
    expect(simple).toEqual(parse(text))
  return simple
}

describe('parseSimpleYaml', () => {
  it('reads the frontmatter skills are usually written in', () => {
    const text = [
      'name: pdf-forms',
      'description: "Fill PDF forms: text fields, checkboxes."',
      'license: \'Apache 2.0, see LICENSE\'\'s terms\'',
      '# a comment',
      'allowed-tools: Read Grep Bash(git:*)',
      'metadata:',
      '  author: Jane Doe',
      '  tags: [pdf, forms]',
      'progressive:',
      '  always:',
      '    - rules',
      '    - core-tools',
      'resources:',
      '- scripts/fill.py',
      'summary: >-',
      '  Folded onto',
      '  one line.',
      'flow: { always: [rules, setup], mode: fast }',
      'empty: {}',
      'list: []',
      'nothing:',
    ].join('\n')
    expect(expectAgrees(text)).toEqual({
      'name': 'pdf-forms',
      'description': 'Fill PDF forms: text fields, checkboxes.',
      'license': 'Apache 2.0, see LICENSE\'s terms',
      'allowed-tools': 'Read Grep Bash(git:*)',
      'metadata': { author: 'Jane Doe', tags: ['pdf', 'forms'] },
      'progressive': { always: ['rules', 'core-tools'] },
      'resources': ['scripts/fill.py'],
      'summary': 'Folded onto one line.',
      'flow': { always: ['rules', 'setup'], mode: 'fast' },
      'empty': {},
      'list': [],
      'nothing': null,
    })
  })

  it('keeps keys that Object.prototype has as plain own keys, without touching prototypes', () => {
    const value = expectAgrees('__proto__:\n  polluted: yes\nconstructor: x\ntoString: y\nflow: { __proto__: z, hasOwnProperty: w }') as Record<string, Record<string, unknown>>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Object.keys(value)).toEqual(['__proto__', 'constructor', 'toString', 'flow'])
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')).toEqual({ value: { polluted: 'yes' }, enumerable: true, writable: true, configurable: true })
    expect(Object.getPrototypeOf(value.flow)).toBe(Object.prototype)
    expect(Object.keys(value.flow!)).toEqual(['__proto__', 'hasOwnProperty'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it.each([
    ['numbers and booleans', 'version: 1.2\nenabled: true\ncount: 3\nnone: ~'],
    ['escapes', 'description: "tab\\tquote\\""'],
    ['anchors and aliases', 'a: &x hi\nb: *x'],
    ['tags', 'a: !!str 3'],
    ['trailing comments', 'a: b # c'],
    ['multi-line plain scalars', 'description: one\n  two'],
    ['nested sequences of maps', 'items:\n  - name: a'],
    ['flow maps with numbers', 'a: { b: 1 }'],
    ['flow maps with quoted keys', 'a: { "b": c }'],
    ['unclosed flow', 'a: [b, c'],
    ['flow trailing text', 'a: [b] c'],
    ['flow words with colons', 'a: [b:c]'],
    ['tabs', 'a:\n\tb: c'],
    ['unquoted colons', 'description: Use it: now'],
    ['duplicate keys', 'a: 1\na: 2'],
    ['blocks with blank lines', 'a: |\n  one\n\n  two\nb: c'],
    ['more-indented folded lines', 'a: >\n  one\n    two\nb: c'],
    ['a clipped block at the very end', 'a: |\n  one'],
    ['quoted keys', '"a b": c'],
    ['a top-level list', '- a\n- b'],
  ])('declines %s', (_, text) => {
    expect(parseSimpleYaml(text)).toBeUndefined()
  })

  it('agrees with the full parser on every fixture frontmatter', () => {
    const roots = ['test/skill/fixtures/valid', 'test/skill/fixtures/invalid', 'test/fixtures/app/skills', 'playground/skills']
    let read = 0
    for (const root of roots) {
      for (const entry of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
        if (!entry.endsWith('.md'))
          continue
        const { yaml } = splitFrontmatter(readFileSync(join(root, entry), 'utf8'))
        if (yaml === undefined)
          continue
        const doc = parseDocument(yaml)
        if (doc.errors.length > 0 || doc.warnings.length > 0) {
          expect(parseSimpleYaml(yaml)).toBeUndefined()
          continue
        }
        if (expectAgrees(yaml) !== undefined)
          read++
      }
    }
    expect(read).toBeGreaterThan(30)
  })
})
