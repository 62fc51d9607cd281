// A document's body cut at its headings, in the browser: the sections a
// search result's sub-results link to, and the text its excerpts are cut from.
// A line scanner (ATX and setext headings, fenced code skipped), not a
// Markdown parser: the runtime has none, and a result needs only where its
// headings are.

/** The text under one heading (or before the first one). */
export interface BodySection {
  /** The heading's Markdown text (`{#id}` and inline markup included); `undefined` for the text before the first heading. */
  heading?: string
  /** 1–6; 0 for the text before the first heading. */
  level: number
  /** The section's Markdown, its heading line(s) excluded. */
  text: string
}

const ATX_OPEN = /^ {0,3}(#{1,6})(?=[ \t]|$)/
const FENCE = /^ {0,3}(`{3,}|~{3,})/
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/

/**
 * An ATX heading's level and text, its closing `#`s dropped; `undefined` for
 * any other line. By hand, not one pattern: a lazy match before an optional
 * closing sequence is quadratic on a long run of spaces (80 kB took 30 s).
 */
function atxHeading(line: string): { level: number, text: string } | undefined {
  const open = ATX_OPEN.exec(line)
  if (!open)
    return undefined
  const text = line.slice(open[0].length).trim()
  let end = text.length
  while (end > 0 && text[end - 1] === '#')
    end--
  // A closing sequence is all of the text, or follows a space or a tab.
  const closed = end === 0 ? '' : end < text.length && (text[end - 1] === ' ' || text[end - 1] === '\t') ? text.slice(0, end).trimEnd() : text
  return { level: open[1]!.length, text: closed }
}

/** Whether `line` may be a setext heading's text: not blank, not a list item, quote, table or fence. */
function mayBeSetextText(line: string): boolean {
  return line.trim() !== '' && !/^ {0,3}(?:[-+*>|]|\d{1,9}[.)]|`{3}|~{3}|#)/.test(line)
}

/**
 * Sections a body is cut into at most: the rest of it is the last one's text.
 * A real page has tens of headings; one of a hundred thousand (hostile or
 * generated) then costs what a long real one does.
 */
export const MAX_SECTIONS = 1000

/** Cuts `body` at its headings (its first {@link MAX_SECTIONS}), in order; fenced code never holds one. */
export function bodySections(body: string): BodySection[] {
  const lines = body.split(/\r\n|\r|\n/)
  const sections: BodySection[] = []
  let current: BodySection = { level: 0, text: '' }
  let text: string[] = []
  let fence: string | undefined
  const open = (heading: string, level: number) => {
    current.text = text.join('\n').trim()
    if (current.heading !== undefined || current.text !== '')
      sections.push(current)
    current = { heading: heading.trim(), level, text: '' }
    text = []
  }
  for (let i = 0; i < lines.length; i++) {
    if (sections.length === MAX_SECTIONS - 1) {
      text = text.concat(lines.slice(i))
      break
    }
    const line = lines[i]!
    const fenceMark = FENCE.exec(line)?.[1]
    if (fence) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length && line.trim() === fenceMark)
        fence = undefined
      text.push(line)
      continue
    }
    if (fenceMark) {
      fence = fenceMark
      text.push(line)
      continue
    }
    const atx = atxHeading(line)
    if (atx) {
      open(atx.text, atx.level)
      continue
    }
    const next = lines[i + 1]
    const underline = next === undefined ? undefined : SETEXT.exec(next)
    // A paragraph's last line above `===` or `---` (a blank line before `---` makes it a rule instead).
    if (underline && mayBeSetextText(line) && (text.length === 0 || text[text.length - 1]!.trim() === '')) {
      open(line, underline[1]![0] === '=' ? 1 : 2)
      i++
      continue
    }
    text.push(line)
  }
  open('', 0)
  return sections
}
