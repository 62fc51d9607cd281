import type { DiagnosticBag } from '../core/diagnostics'
import type { SplitSource } from '../core/frontmatter'
import { splitFrontmatter } from '../core/frontmatter'
import { markdownDepthExceeded, MAX_MARKDOWN_DEPTH } from '../core/markdown-depth'
import { isYamlMapping } from '../core/yaml-value'
import { parseYaml } from '../core/yaml'
import { scanHeadings } from '../core/markdown'
import { plainHeading } from '../runtime/search-ui/anchors'

/**
 * Most bytes of one document read by default (4 MiB, `maxDocumentBytes` in
 * skill-kit.json): over a hundred times a large guide (30–40 KB), and a bound
 * on what one file costs a build, whose memory grows with a document's text
 * (the text, its chunks, windows and lexical rows) many times over.
 */
export const DEFAULT_MAX_DOCUMENT_BYTES = 4 * 1024 * 1024

/** A Markdown document of a knowledge folder. */
export interface KnowledgeDocument {
  /** Frontmatter `id`, else the relative path without `.md`. */
  id: string
  /** Slash-separated path relative to the knowledge folder. */
  path: string
  /** Frontmatter `title`, else the first heading's text (as it renders), else the ID: what a search result is called. */
  title: string
  description: string
  /** Frontmatter `category`, else the document's top folder, if any. */
  category: string | undefined
  /** Every category: `category` first, then `categories`. */
  categories: string[]
  tags: string[]
  /** The Markdown after the frontmatter. */
  body: string
  /** 1-based file line of the body's first line. */
  bodyLine: number
}

interface Fields {
  id?: string
  title?: string
  description?: string
  category?: string
  categories: string[]
  tags: string[]
}

/** The frontmatter fields a document may set, checked; `undefined` when the frontmatter is unusable. */
function readFields(split: SplitSource, bag: DiagnosticBag): Fields | undefined {
  if (split.yaml === undefined)
    return { categories: [], tags: [] }
  const doc = parseYaml(split.yaml, split.yamlLine, bag)
  if (doc.value === undefined)
    return undefined
  if (doc.value !== null && !isYamlMapping(doc.value)) {
    bag.error('document-frontmatter-invalid', 'The frontmatter must be a YAML mapping (id, description, category, categories, tags).', { line: split.yamlLine, column: 1 })
    return undefined
  }
  const frontmatter = doc.value ?? {}
  const text = (key: string) => {
    const value = frontmatter[key]
    if (value === undefined || value === null)
      return undefined
    if (typeof value === 'string' && value.trim() !== '')
      return value.trim()
    bag.error('document-field-invalid', `"${key}" must be a non-empty string.`, doc.locate([key]))
    return undefined
  }
  const list = (key: string) => {
    const value = frontmatter[key]
    if (value === undefined || value === null)
      return []
    if (typeof value === 'string')
      return value.split(',').map(v => v.trim()).filter(Boolean)
    if (Array.isArray(value) && value.every(v => typeof v === 'string' && v.trim() !== ''))
      return (value as string[]).map(v => v.trim())
    bag.error('document-field-invalid', `"${key}" must be a list of non-empty strings, e.g. ${key}: [restore, recovery].`, doc.locate([key]))
    return []
  }
  return { id: text('id'), title: text('title'), description: text('description'), category: text('category'), categories: list('categories'), tags: list('tags') }
}

/** How many line breaks `text` has before `offset`. */
function countLines(text: string, offset: number): number {
  let lines = 0
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1))
    lines++
  return lines
}

/** The text of a document's first heading (outside code blocks), if it has one with text. */
function firstHeading(body: string): string | undefined {
  const heading = scanHeadings(body.split(/\r\n|\r|\n/))[0]
  const text = heading && plainHeading(heading.text)
  return text || undefined
}

/**
 * Parses one document of a knowledge folder: plain Markdown or YAML
 * frontmatter (`id`, `title`, `description`, `category`/`categories`, `tags`).
 * Problems go to `bag`; `undefined` when the document cannot be used.
 */
export function parseKnowledgeDocument(path: string, source: string, bag: DiagnosticBag): KnowledgeDocument | undefined {
  const split = splitFrontmatter(source)
  if (split.unclosed) {
    bag.error('document-frontmatter-unclosed', 'The frontmatter opened on line 1 is never closed. Add a "---" line after it.', { line: 1, column: 1 })
    return undefined
  }
  const fields = readFields(split, bag)
  const tooDeep = markdownDepthExceeded(split.body)
  if (tooDeep !== undefined) {
    const lineStart = split.body.lastIndexOf('\n', tooDeep - 1) + 1
    bag.error('document-too-deep', `The document nests more than ${MAX_MARKDOWN_DEPTH} levels of block quotes or lists. Flatten it: a few levels are enough to read.`, { line: split.bodyLine + countLines(split.body, tooDeep), column: tooDeep - lineStart + 1 })
  }
  if (split.body.trim() === '')
    bag.error('document-empty', 'The document has no content. Write its guidance, or delete the file.', { line: Math.max(1, split.bodyLine - 1), column: 1 })
  if (!fields || bag.hasErrors)
    return undefined
  const folder = path.includes('/') ? path.slice(0, path.indexOf('/')) : undefined
  const category = fields.category ?? folder
  const id = fields.id ?? path.replace(/\.md$/i, '')
  return {
    id,
    path,
    title: fields.title ?? firstHeading(split.body) ?? id,
    description: fields.description ?? '',
    category,
    categories: [...new Set([...(category ? [category] : []), ...fields.categories])],
    tags: fields.tags,
    body: split.body,
    bodyLine: split.bodyLine,
  }
}
