import type { Token } from 'marked'
import { Lexer } from 'marked'

/**
 * The block tokens of Markdown (headings, paragraphs, lists…, each with its
 * `text` and `raw` source) as `Lexer.lex` gives them, without the inline pass:
 * marked's inline tokenizer is quadratic on runs of emphasis markers (80 kB of
 * `_a` take 20 s), and headings and paragraph texts need none of it. Nesting
 * is bounded before (see markdown-depth.ts).
 */
export function blockTokens(markdown: string): Token[] {
  return new Lexer().blockTokens(markdown.replace(/\r\n|\r/g, '\n'), [])
}
