import { work } from '../runtime/work'
import { trimEndSpaces } from './text'

/** A top-level Markdown heading found by {@link scanHeadings}. */
export interface Heading {
  /** 1–6. */
  level: number
  /** Heading text without the `#` markers or closing sequence; setext lines joined by a space. */
  text: string
  /** 0-based index of the heading's first line. */
  startLine: number
  /** 0-based index of the line holding the end of the heading text (the line before a setext underline). */
  textLine: number
  /** 0-based index of the heading's last line (the underline, for setext headings). */
  endLine: number
}

const ATX = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/
const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/
const SETEXT_1 = /^ {0,3}=+[ \t]*$/
const SETEXT_2 = /^ {0,3}-+[ \t]*$/
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/
const LIST_ITEM = /^( {0,3})([-+*]|\d{1,9}[.)])([ \t]+|$)/
const BLOCKQUOTE = /^ {0,3}>/
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/
const HTML_UNTIL: [RegExp, RegExp][] = [
  [/^ {0,3}<(?:script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Z]/i, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
]
const HTML_BLOCK_TAG = /^ {0,3}<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[\s/>]|$)/i
const FENCE_CLOSE = /^ {0,3}(`+|~+)[ \t]*$/
/** Characters a line must start with (after indentation) to be anything but paragraph text, by char code. */
const MARKUP_START = new Uint8Array(128)
for (const char of '#`~-*_>+<=|:0123456789')
  MARKUP_START[char.charCodeAt(0)] = 1
const HTML_LONE_TAG = /^ {0,3}(?:<[A-Z][\w-]*(?:\s[^<>]*)?\/?>|<\/[A-Z][\w-]*\s*>)[ \t]*$/i

/** Index of the first character of `line` that is not a space or a tab (its length for a blank line). */
function blanksBefore(line: string): number {
  let i = 0
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9))
    i++
  return i
}

/** Width in columns of the first `count` characters of `line` (spaces and tabs), with tabs stopping at multiples of 4. */
function indentOf(line: string, count: number): number {
  let width = 0
  for (let i = 0; i < count; i++)
    width += line.charCodeAt(i) === 9 ? 4 - (width % 4) : 1
  return width
}

/**
 * A line that starts a block and so ends a paragraph, a list or a quote.
 * `marker` is its first character after spaces and tabs: each pattern needs
 * its own one there, so only that pattern is tried.
 */
function startsBlock(line: string, marker: string): boolean {
  switch (marker) {
    case '#':
      return ATX.test(line)
    case '`':
    case '~':
      return FENCE_OPEN.test(line)
    case '-':
    case '*':
    case '_':
      return THEMATIC_BREAK.test(line)
    case '>':
      return BLOCKQUOTE.test(line)
    case '<':
      return HTML_BLOCK_TAG.test(line) || HTML_UNTIL.some(([open]) => open.test(line))
    default:
      return false
  }
}

/** Whether a line whose first character after spaces and tabs is `marker` may be a list item. */
function mayBeListItem(marker: string): boolean {
  return marker === '-' || marker === '+' || marker === '*' || (marker >= '0' && marker <= '9')
}

/**
 * Finds the top-level headings of a Markdown body, following CommonMark's
 * block rules where they decide what is a heading: fenced and indented code,
 * HTML blocks, block quotes and list items hide headings; setext headings need
 * a paragraph above their underline. A line scanner rather than a full parser,
 * because skills are parsed on every build and need exact line numbers.
 */
export function scanHeadings(lines: readonly string[]): Heading[] {
  const headings: Heading[] = []
  let fence: { char: string, length: number } | undefined
  let htmlEnd: RegExp | 'blank' | undefined
  let paragraph = -1
  let table = false
  let quote = false
  let listIndent = -1
  let previousBlank = true

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    work.steps += line.length + 1
    // Character tests instead of a pattern per line: most lines are prose or code.
    const first = blanksBefore(line)
    const isBlank = first === line.length
    if (fence) {
      // Only a line whose first character is the fence's can close it.
      const close = line[first] === fence.char ? FENCE_CLOSE.exec(line) : null
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.length)
        fence = undefined
      continue
    }
    if (htmlEnd) {
      if (htmlEnd === 'blank' ? isBlank : htmlEnd.test(line))
        htmlEnd = undefined
      previousBlank = isBlank
      continue
    }
    if (isBlank) {
      paragraph = -1
      table = false
      quote = false
      previousBlank = true
      continue
    }
    const blank = previousBlank
    previousBlank = false
    const indent = indentOf(line, first)
    // Most lines are prose: skip every block test for them. Each pattern below needs its own first character.
    const prose = MARKUP_START[line.charCodeAt(first)] !== 1
    const marker = line[first]!

    if (listIndent >= 0) {
      const item = !prose && mayBeListItem(marker) ? LIST_ITEM.exec(line) : null
      if (indent >= listIndent || (!blank && !item && (prose || !startsBlock(line, marker))))
        continue
      if (item) {
        listIndent = listItemIndent(item)
        continue
      }
      listIndent = -1
    }
    if (quote && (prose || !startsBlock(line, marker)))
      continue
    quote = false

    if (indent >= 4) {
      // Indented code, unless it continues an open paragraph.
      continue
    }
    if (prose) {
      if (paragraph < 0)
        paragraph = i
      continue
    }
    if (paragraph >= 0 && !table && (marker === '=' || marker === '-') && (SETEXT_1.test(line) || SETEXT_2.test(line))) {
      const text = lines.slice(paragraph, i).map(l => l.trim()).join(' ')
      headings.push({ level: SETEXT_1.test(line) ? 1 : 2, text, startLine: paragraph, textLine: i - 1, endLine: i })
      paragraph = -1
      continue
    }
    const atx = marker === '#' ? ATX.exec(line) : null
    if (atx) {
      const text = withoutClosingHashes(atx[2]!).trim()
      headings.push({ level: atx[1]!.length, text, startLine: i, textLine: i, endLine: i })
      paragraph = -1
      continue
    }
    const open = marker === '`' || marker === '~' ? FENCE_OPEN.exec(line) : null
    if (open && !(open[2]![0] === '`' && open[3]!.includes('`'))) {
      fence = { char: open[2]![0]!, length: open[2]!.length }
      paragraph = -1
      continue
    }
    const html = marker === '<' ? HTML_UNTIL.find(([start]) => start.test(line)) : undefined
    if (html || (marker === '<' && (HTML_BLOCK_TAG.test(line) || (paragraph < 0 && HTML_LONE_TAG.test(line))))) {
      htmlEnd = html ? html[1] : 'blank'
      if (html && html[1].test(line.replace(html[0], '')))
        htmlEnd = undefined
      paragraph = -1
      continue
    }
    if ((marker === '-' || marker === '*' || marker === '_') && THEMATIC_BREAK.test(line)) {
      paragraph = -1
      continue
    }
    if (marker === '>' && BLOCKQUOTE.test(line)) {
      quote = true
      paragraph = -1
      continue
    }
    const item = mayBeListItem(marker) ? LIST_ITEM.exec(line) : null
    if (item) {
      listIndent = listItemIndent(item)
      paragraph = -1
      continue
    }
    if (paragraph >= 0 && !table && line.includes('|') && TABLE_DELIMITER.test(line)) {
      table = true
      continue
    }
    if (paragraph < 0)
      paragraph = i
  }
  return headings
}

/** Column where a list item's content starts: marker plus 1–4 spaces. */
/**
 * An ATX heading's text without its optional closing sequence (`## Title ##`):
 * trailing `#`s that stand alone or after a space or tab. By index, since the
 * equivalent pattern backtracks quadratically on long runs of spaces.
 */
function withoutClosingHashes(text: string): string {
  const trimmed = trimEndSpaces(text)
  let start = trimmed.length
  while (start > 0 && trimmed[start - 1] === '#')
    start--
  if (start === trimmed.length)
    return text
  if (start === 0)
    return ''
  const before = trimmed[start - 1]
  return before === ' ' || before === '\t' ? trimmed.slice(0, start) : text
}

function listItemIndent(item: RegExpExecArray): number {
  const spaces = item[3]!.length
  return item[1]!.length + item[2]!.length + (spaces >= 1 && spaces <= 4 ? spaces : 1)
}
