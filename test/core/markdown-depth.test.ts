import { Lexer } from 'marked'
import { describe, expect, it } from 'vitest'
import { DiagnosticBag } from '../../src/core/diagnostics'
import { markdownDepthExceeded, MAX_MARKDOWN_DEPTH } from '../../src/core/markdown-depth'
import { parseKnowledgeDocument } from '../../src/knowledge/document'

const nestedList = (n: number, marker = '-') => Array.from({ length: n }, (_, i) => `${' '.repeat(2 * i)}${marker} item ${i}`).join('\n')

describe('markdownDepthExceeded', () => {
  it('accepts the nesting documents use, and text in fences', () => {
    expect(markdownDepthExceeded(`# A\n\n> quote\n> > inner\n\n${nestedList(8)}\n\n1. one\n   - two\n     > three\n`)).toBeUndefined()
    expect(markdownDepthExceeded(`\`\`\`\n${'> '.repeat(500)}\n${nestedList(100)}\n\`\`\`\n`)).toBeUndefined()
    expect(markdownDepthExceeded(nestedList(MAX_MARKDOWN_DEPTH))).toBeUndefined()
  })

  it('finds where quotes, list items or both nest too deep', () => {
    expect(markdownDepthExceeded(`a\n${'> '.repeat(5000)}b`)).toBe(2 + 2 * MAX_MARKDOWN_DEPTH)
    const list = nestedList(MAX_MARKDOWN_DEPTH + 1)
    expect(markdownDepthExceeded(list)).toBe(list.lastIndexOf('\n') + 1 + 2 * MAX_MARKDOWN_DEPTH)
    expect(markdownDepthExceeded(`${'- '.repeat(40)}x`)).toBe(2 * MAX_MARKDOWN_DEPTH)
    // A list nested in a quote, line by line; lazy lines in between do not reset it.
    const quoted = Array.from({ length: 40 }, (_, i) => `> ${' '.repeat(3 * i)}1. x\nlazy`).join('\n')
    expect(markdownDepthExceeded(quoted)).toBeGreaterThan(0)
  })

  it('is what marked needs: the deepest accepted document lexes', () => {
    const deepest = `${nestedList(MAX_MARKDOWN_DEPTH)}\n\n${'> '.repeat(MAX_MARKDOWN_DEPTH)}quote\n`
    expect(markdownDepthExceeded(deepest)).toBeUndefined()
    expect(new Lexer().lex(deepest).length).toBeGreaterThan(0)
  })
})

describe('a knowledge document nested too deep', () => {
  it('is a diagnostic at its line and column, not a crash of the chunker', () => {
    const bag = new DiagnosticBag('/kb/deep.md')
    const document = parseKnowledgeDocument('deep.md', `---\ntitle: t\n---\n# Deep\n\n  ${'> '.repeat(5000)}a\n`, bag)
    expect(document).toBeUndefined()
    expect(bag.items.map(d => [d.code, d.line, d.column, d.message])).toEqual([
      ['document-too-deep', 6, 3 + 2 * MAX_MARKDOWN_DEPTH, `The document nests more than ${MAX_MARKDOWN_DEPTH} levels of block quotes or lists. Flatten it: a few levels are enough to read.`],
    ])
  })
})
