/** A Markdown file split into its YAML frontmatter and its body. */
export interface SplitSource {
  /** The YAML text between the fences, or `undefined` when the file has no frontmatter. */
  yaml: string | undefined
  /** 1-based file line of the first YAML line. */
  yamlLine: number
  /** Everything after the closing fence (or the whole file without frontmatter). */
  body: string
  /** 1-based file line of the first body line. */
  bodyLine: number
  /** True when an opening fence has no closing fence. */
  unclosed: boolean
}

const OPEN = /^---[ \t]*$/
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/

/**
 * Splits `---` fenced frontmatter from a Markdown source. Line endings are
 * normalised to `\n` first, so line numbers and slices agree on every platform.
 */
export function splitFrontmatter(raw: string): SplitSource {
  const source = normalizeNewlines(raw)
  const lines = source.split('\n')
  if (!OPEN.test(lines[0] ?? ''))
    return { yaml: undefined, yamlLine: 1, body: source, bodyLine: 1, unclosed: false }
  const close = lines.findIndex((line, i) => i > 0 && CLOSE.test(line))
  if (close === -1)
    return { yaml: lines.slice(1).join('\n'), yamlLine: 2, body: '', bodyLine: lines.length + 1, unclosed: true }
  return {
    yaml: lines.slice(1, close).join('\n'),
    yamlLine: 2,
    body: lines.slice(close + 1).join('\n'),
    bodyLine: close + 2,
    unclosed: false,
  }
}

/** Drops a byte-order mark and turns CRLF and lone CR into LF. */
export function normalizeNewlines(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
}
