import type { Tokens } from 'marked'
import type { KnowledgeDocument } from './document'
import { blockTokens } from '../core/block-tokens'

/** A piece of a document that is embedded and searched on its own. */
export interface Chunk {
  /** Index of the document in its folder's document list. */
  document: number
  /** `metadata`: the document's description and tags; `section`: text under a heading. */
  kind: 'metadata' | 'section'
  /** The headings above this chunk's own heading, outermost first. */
  context: string[]
  /** The chunk's own heading, if it starts with one. */
  title?: string
  /** The chunk's Markdown as written (its heading line included), trimmed. */
  text: string
}

function headingText(token: Tokens.Heading): string {
  // Lines trimmed and joined: the pattern /\s*\n\s*/ backtracks quadratically over a long run of spaces.
  return token.text.split('\n').map(line => line.trim()).filter(Boolean).join(' ')
}

/**
 * Splits a document at its headings, as `marked` parses them (so fenced code
 * and setext headings are handled), plus one metadata chunk. A heading with
 * nothing under it before the next heading makes no chunk of its own: it
 * lives on in its subsections' context (a document of headings only is one chunk).
 */
export function chunkDocument(document: KnowledgeDocument, index: number): Chunk[] {
  const metadata = [
    document.description,
    document.categories.length > 0 ? `Categories: ${document.categories.join(', ')}` : '',
    document.tags.length > 0 ? `Tags: ${document.tags.join(', ')}` : '',
  ].filter(Boolean).join('\n')
  const chunks: Chunk[] = metadata ? [{ document: index, kind: 'metadata', context: [], text: metadata }] : []

  const stack: string[] = []
  let context: string[] = []
  let title: string | undefined
  let parts: string[] = []
  let hasContent = false
  const flush = () => {
    const text = parts.join('').trim()
    if (text && hasContent)
      chunks.push({ document: index, kind: 'section', context, ...(title === undefined ? {} : { title }), text })
    parts = []
    hasContent = false
  }
  for (const token of blockTokens(document.body)) {
    if (token.type === 'heading') {
      flush()
      const depth = (token as Tokens.Heading).depth
      stack.length = Math.min(stack.length, depth - 1)
      context = stack.filter(Boolean)
      title = headingText(token as Tokens.Heading)
      stack[depth - 1] = title
    }
    else if (token.type !== 'space') {
      hasContent = true
    }
    parts.push(token.raw)
  }
  flush()
  // Headings and nothing else (a stub, a title page) still make one chunk, so the document can be found.
  if (!chunks.some(c => c.kind === 'section') && document.body.trim())
    chunks.push({ document: index, kind: 'section', context: [], text: document.body.trim() })
  return chunks
}
