import type { Token } from 'marked'
import { Lexer } from 'marked'
import { scanHeadings } from './markdown'

/**
 * The block tokens of Markdown (headings, paragraphs…, each with its `text`
 * and `raw` source) as `Lexer.lex` gives them, without the inline pass:
 * marked's inline tokenizer is quadratic on runs of emphasis markers (80 kB of
 * `_a` take 20 s), and headings and paragraph texts need none of it. Nesting
 * is bounded before (see markdown-depth.ts). On text its patterns cannot take
 * (a paragraph of a megabyte overflows the regex engine's stack), the
 * headings come from our own linear scanner and the text between them is one
 * paragraph each.
 */
export function blockTokens(markdown: string): Token[] {
  const text = markdown.replace(/\r\n|\r/g, '\n')
  try {
    return new Lexer().blockTokens(text, [])
  }
  catch (error) {
    if (!(error instanceof RangeError))
      throw error
    return scannedTokens(text)
  }
}

/** Heading and paragraph tokens from {@link scanHeadings}; their `raw` parts add up to `text`. */
function scannedTokens(text: string): Token[] {
  const lines = text.split('\n')
  const tokens: Token[] = []
  const rawOf = (from: number, to: number) => lines.slice(from, to).join('\n') + (to < lines.length ? '\n' : '')
  const paragraph = (from: number, to: number) => {
    if (from >= to)
      return
    const raw = rawOf(from, to)
    const trimmed = raw.trim()
    tokens.push(trimmed === '' ? { type: 'space', raw } : { type: 'paragraph', raw, text: trimmed, tokens: [] })
  }
  let next = 0
  for (const heading of scanHeadings(lines)) {
    paragraph(next, heading.startLine)
    tokens.push({ type: 'heading', raw: rawOf(heading.startLine, heading.endLine + 1), depth: heading.level, text: heading.text, tokens: [] })
    next = heading.endLine + 1
  }
  paragraph(next, lines.length)
  return tokens
}
