import { Lexer } from 'marked'
import { describe, expect, it } from 'vitest'
import { blockTokens } from '../../src/core/block-tokens'
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

describe('blockTokens', () => {
  it('are marked\'s block tokens, without inline tokens', () => {
    expect(blockTokens('# Title\n\nSome *text*.\n').map(t => [t.type, t.raw])).toEqual([['heading', '# Title'], ['space', '\n\n'], ['paragraph', 'Some *text*.\n']])
  })

  it('come from the heading scanner where marked\'s patterns overflow, adding up to the text', () => {
    // A paragraph of 10 MB overflows the stack of marked's setext heading pattern.
    const huge = '[a]('.repeat(2_500_000)
    const text = `# Top\n\n${huge}\n\n## Next\n\ntext\n`
    expect(() => new Lexer().blockTokens(text, [])).toThrow(RangeError)
    const tokens = blockTokens(text)
    expect(tokens.map(t => t.type)).toEqual(['heading', 'paragraph', 'heading', 'paragraph'])
    expect(tokens.map(t => t.raw).join('')).toBe(text)
    expect(tokens.filter(t => t.type === 'heading').map(t => [(t as { depth: number }).depth, (t as { text: string }).text])).toEqual([[1, 'Top'], [2, 'Next']])
  })
})
