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
  const firstBreak = source.indexOf('\n')
  if (!OPEN.test(firstBreak < 0 ? source : source.slice(0, firstBreak)))
    return { yaml: undefined, yamlLine: 1, body: source, bodyLine: 1, unclosed: false }
  // Search for the closing fence instead of splitting the whole file into lines.
  const fence = new RegExp(CLOSE.source, 'gm')
  fence.lastIndex = firstBreak + 1
  const close = firstBreak < 0 ? null : fence.exec(source)
  if (!close) {
    const yaml = firstBreak < 0 ? '' : source.slice(firstBreak + 1)
    return { yaml, yamlLine: 2, body: '', bodyLine: source.split('\n').length + 1, unclosed: true }
  }
  const closeLine = countLines(source.slice(0, close.index))
  const afterClose = source.indexOf('\n', close.index)
  return {
    yaml: source.slice(firstBreak + 1, Math.max(firstBreak + 1, close.index - 1)),
    yamlLine: 2,
    body: afterClose < 0 ? '' : source.slice(afterClose + 1),
    bodyLine: closeLine + 1,
    unclosed: false,
  }
}

/** The 1-based line a text ending here would be on: its line breaks plus one. */
function countLines(text: string): number {
  let lines = 1
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1))
    lines++
  return lines
}

/** Drops a byte-order mark and turns CRLF and lone CR into LF. */
export function normalizeNewlines(text: string): string {
  const unmarked = text.charCodeAt(0) === 0xFEFF ? text.slice(1) : text
  return unmarked.includes('\r') ? unmarked.replace(/\r\n?/g, '\n') : unmarked
}
