import type { Token, Tokens } from 'marked'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { marked } from 'marked'
import { describe, expect, it } from 'vitest'
import { splitFrontmatter } from '../../src/core/frontmatter'
import { scanHeadings } from '../../src/core/markdown'

const headingsOf = (text: string) => scanHeadings(text.split('\n')).map(h => [h.level, h.text, h.startLine])

describe('scanHeadings', () => {
  it('reads ATX headings with optional closing sequences', () => {
    expect(headingsOf('# One\n## Two ##\n###   Three   #\n####### seven\n#nospace\n   ### indented 3')).toEqual([
      [1, 'One', 0],
      [2, 'Two', 1],
      [3, 'Three', 2],
      [3, 'indented 3', 5],
    ])
  })

  it('reads setext headings over multi-line paragraphs', () => {
    expect(headingsOf('Title\n=====\n\nTwo lines\nof text\n---')).toEqual([[1, 'Title', 0], [2, 'Two lines of text', 3]])
  })

  it('ignores headings in fenced code, indented code and HTML blocks', () => {
    const text = [
      '```md',
      '## fenced',
      '```',
      '~~~~',
      '## tilde ```',
      '~~~',
      '## still inside the tilde fence',
      '~~~~',
      '',
      '    ## indented code',
      '',
      '<!--',
      '## commented out',
      '-->',
      '<div>',
      '## inside a div',
      '</div>',
      '',
      '## real',
    ].join('\n')
    expect(headingsOf(text)).toEqual([[2, 'real', 18]])
  })

  it('ignores headings in quotes and list items, and `---` after a list is a rule', () => {
    expect(headingsOf('> ## quoted\n\n- item\n  ## in item\n---\n\n1. step\n   continued\n\n## after')).toEqual([[2, 'after', 9]])
  })

  it('does not take a table delimiter or a thematic break for a setext underline', () => {
    expect(headingsOf('| a | b |\n| --- | --- |\n| 1 | 2 |\n\ntext\n\n---\n')).toEqual([])
  })
})

/** Top-level headings as marked sees them, with their start line. */
function markedHeadings(body: string): [number, string, number][] {
  const out: [number, string, number][] = []
  let line = 0
  for (const token of marked.lexer(body) as Token[]) {
    if (token.type === 'heading')
      out.push([(token as Tokens.Heading).depth, (token as Tokens.Heading).text.replace(/\s*\n\s*/g, ' '), line])
    line += token.raw.split('\n').length - 1
  }
  return out
}

describe('scanHeadings agrees with marked', () => {
  const roots = [join(import.meta.dirname, '../skill/fixtures/valid'), join(import.meta.dirname, '../skill/fixtures/invalid')]
  const files = roots.flatMap(root => readdirSync(root).map(dir => join(root, dir, 'SKILL.md')))
  it.each(files.map(f => [f.split('/fixtures/')[1]!, f]))('%s', (_, file) => {
    const body = splitFrontmatter(readFileSync(file, 'utf8')).body
    expect(headingsOf(body)).toEqual(markedHeadings(body))
  })

  it('on a document of tricky blocks', () => {
    const body = [
      'Intro paragraph',
      'continues here.',
      '',
      '## Setup {#setup}',
      '',
      '1. Install:',
      '   ```bash',
      '   # comment',
      '   npm i',
      '   ```',
      '2. Run it.',
      '',
      '> Note',
      '> ## quoted heading',
      '',
      '| col | col |',
      '|-----|-----|',
      '| a   | b   |',
      '',
      'Usage {#usage}',
      '--------------',
      '',
      '<details>',
      '<summary>More</summary>',
      '',
      '### Inside details {#inside}',
      '',
      '</details>',
      '',
      '***',
      '',
      '### Last {#last}',
    ].join('\n')
    expect(headingsOf(body)).toEqual(markedHeadings(body))
  })
})
