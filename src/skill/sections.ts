import type { DiagnosticBag } from '../core/diagnostics'
import type { Heading } from '../core/markdown'
import type { SectionInfo } from '../runtime/skill/types'
import { scanHeadings } from '../core/markdown'
import { slugify, trimEndSpaces } from '../core/text'
import { work } from '../runtime/work'

/** The body of a progressive skill cut into sections. */
export interface SectionLayout {
  /** Sections in document order, level-3 sections after their parent. */
  sections: SectionInfo[]
  /** Body text before the first section heading, trimmed of blank lines. */
  preamble: string
}

const VALID_ID = /^[A-Za-z0-9][\w.:-]*$/

/**
 * Splits a heading text into its title and trailing `{#id}`, if any: the
 * text ends with `}` (spaces and tabs aside), and the ID runs from the first
 * `{#` after the `}` before it. Index arithmetic, not a pattern: a pattern
 * with a leading `[ \t]*` or `[^}]*` backtracks quadratically on long lines.
 */
export function splitHeadingId(text: string): { title: string, id: string | undefined } {
  const end = trimEndSpaces(text)
  if (!end.endsWith('}'))
    return { title: text.trim(), id: undefined }
  const open = end.indexOf('{#', end.lastIndexOf('}', end.length - 2) + 1)
  if (open < 0)
    return { title: text.trim(), id: undefined }
  return { title: text.slice(0, open).trim(), id: end.slice(open + 2, -1).trim() }
}

/**
 * Cuts a progressive body into sections. Every level-2 and level-3 heading
 * must end with a valid, unique `{#id}`; a section runs from its heading to
 * the next heading of the same or a higher level. `bodyLine` is the file line
 * of the body's first line; problems go to `bag` with file positions.
 */
export function layoutSections(body: string, bodyLine: number, bag: DiagnosticBag): SectionLayout {
  const lines = body.split('\n')
  const headings = scanHeadings(lines)
  const fileLine = (index: number) => index + bodyLine
  const idColumn = (heading: Heading) => {
    const line = lines[heading.textLine]!
    const brace = line.lastIndexOf('{#')
    return brace >= 0 ? brace + 1 : line.trimEnd().length + 1
  }

  const seen = new Map<string, number>()
  const sectioned = new Map<Heading, { id: string, title: string }>()
  // Every ID written, valid or not, and every ID suggested: a suggestion is none of them, so applying it makes no duplicate.
  // Gathered at the first suggestion: a valid skill needs none.
  let taken: Set<string> | undefined
  // The next number to try per slug, so that a thousand headings of one title cost no quadratic search.
  const next = new Map<string, number>()
  const suggest = (text: string) => {
    taken ??= new Set(headings.map(h => splitHeadingId(h.text).id).filter(id => id !== undefined))
    const base = slugify(text)
    let n = next.get(base) ?? 1
    let id = n === 1 ? base : `${base}-${n}`
    while (taken.has(id))
      id = `${base}-${++n}`
    next.set(base, n + 1)
    taken.add(id)
    return id
  }
  for (const heading of headings) {
    const { title, id } = splitHeadingId(heading.text)
    const at = { line: fileLine(heading.textLine), column: idColumn(heading) }
    if (heading.level !== 2 && heading.level !== 3) {
      if (id !== undefined)
        bag.warning('section-id-ignored', `Only level-2 and level-3 headings are sections, so "{#${id}}" on this level-${heading.level} heading cannot be read. Remove it, or make the heading level 2 or 3.`, at)
      continue
    }
    if (id === undefined) {
      bag.error('section-id-missing', `Level-${heading.level} heading "${title}" has no section ID. Add {#${suggest(title)}} at the end of the heading line.`, at)
      continue
    }
    if (!VALID_ID.test(id)) {
      bag.error('section-id-invalid', `Section ID "{#${id}}" is not valid: use letters, digits, "-", "_", "." or ":", starting with a letter or digit, e.g. {#${suggest(id || title)}}.`, at)
      continue
    }
    const first = seen.get(id)
    if (first !== undefined) {
      bag.error('section-id-duplicate', `Section ID "${id}" is already used on line ${first}. Section IDs must be unique; rename this one.`, at)
      continue
    }
    seen.set(id, at.line)
    sectioned.set(heading, { id, title })
  }

  const sections: SectionInfo[] = []
  /** First and last line of each section, in pairs. */
  const spans: number[] = []
  // A section's text is cut from the body by offsets instead of joining its lines again.
  const offsets = lineOffsets(lines)
  const nextOf = nextSameOrHigher(headings)
  let parent: SectionInfo | undefined
  for (const heading of headings) {
    work.steps++
    const entry = sectioned.get(heading)
    if (heading.level <= 2)
      parent = undefined
    if (!entry)
      continue
    const next = nextOf.get(heading)
    let end = (next ? next.startLine : lines.length) - 1
    while (end > heading.endLine && lines[end]!.trim() === '')
      end--
    spans.push(heading.startLine, end)
    const section: SectionInfo = {
      id: entry.id,
      title: entry.title,
      level: heading.level,
      parent: heading.level === 3 ? parent?.id ?? null : null,
      children: [],
      content: body.slice(offsets[heading.startLine], offsets[end]! + lines[end]!.length),
      startLine: fileLine(heading.startLine),
      endLine: fileLine(end),
    }
    if (heading.level === 2)
      parent = section
    else parent?.children.push(section.id)
    sections.push(section)
  }

  const firstSection = sections.length > 0 ? sections[0]!.startLine - bodyLine : lines.length
  const preamble = trimBlankLines(lines.slice(0, firstSection)).join('\n')

  // Text governed by a level-1 heading after the first section is in no section and not on the cover.
  // Only a level-1 heading past the first section's start can govern such text: most bodies have none, and skip the scan.
  const stray = headings.some(h => h.level === 1 && h.startLine > firstSection) ? strayLine(lines, headings, covered(lines.length, firstSection, spans)) : -1
  if (stray >= 0)
    bag.warning('content-outside-sections', 'This text follows a level-1 heading after the first section, so it is neither on the cover nor in any section. Move it into a section, or give it a level-2 heading with an ID.', { line: fileLine(stray), column: 1 })

  return { sections, preamble }
}

/** Where each line starts in the text the lines were split from. */
function lineOffsets(lines: readonly string[]): number[] {
  const offsets = new Array<number>(lines.length)
  let offset = 0
  for (let i = 0; i < lines.length; i++) {
    offsets[i] = offset
    offset += lines[i]!.length + 1
  }
  return offsets
}

/** For each heading, the next one of the same or a higher level (where its section ends), in one pass. */
function nextSameOrHigher(headings: readonly Heading[]): Map<Heading, Heading> {
  const next = new Map<Heading, Heading>()
  const open: Heading[] = []
  for (const heading of headings) {
    work.steps++
    while (open.length > 0 && open[open.length - 1]!.level >= heading.level)
      next.set(open.pop()!, heading)
    open.push(heading)
  }
  return next
}

/** Which lines are on the cover (the first `preamble` lines) or in a section (`spans`: first and last line, in pairs). */
function covered(lineCount: number, preamble: number, spans: readonly number[]): boolean[] {
  const lines = new Array<boolean>(lineCount).fill(false)
  lines.fill(true, 0, preamble)
  for (let i = 0; i < spans.length; i += 2)
    lines.fill(true, spans[i], spans[i + 1]! + 1)
  return lines
}

/**
 * The first line that is in no section, not blank, and governed by a level-1
 * heading (the last heading of level 1 to 3 before it) past that heading's
 * own lines; -1 when there is none. Headings are in line order.
 */
function strayLine(lines: readonly string[], headings: readonly Heading[], covered: readonly boolean[]): number {
  let governing: Heading | undefined
  let h = 0
  for (let i = 0; i < lines.length; i++) {
    work.steps++
    for (; h < headings.length && headings[h]!.startLine <= i; h++) {
      if (headings[h]!.level <= 3)
        governing = headings[h]
    }
    if (!covered[i] && lines[i]!.trim() !== '' && governing?.level === 1 && i > governing.endLine)
      return i
  }
  return -1
}

/**
 * `text` without blank lines at both ends: what
 * `trimBlankLines(text.split('\n')).join('\n')` gives, without splitting
 * every line of a body to look at its first and last ones.
 */
export function trimBlankText(text: string): string {
  let start = 0
  for (;;) {
    const end = text.indexOf('\n', start)
    if ((end < 0 ? text.slice(start) : text.slice(start, end)).trim() !== '')
      break
    if (end < 0)
      return ''
    start = end + 1
  }
  // A line that is not blank exists, so this stops at it or after it.
  let stop = text.length
  for (;;) {
    const begin = text.lastIndexOf('\n', stop - 1) + 1
    if (text.slice(begin, stop).trim() !== '')
      return text.slice(start, stop)
    stop = begin - 1
  }
}

/** Drops blank lines at both ends. */
export function trimBlankLines(lines: string[]): string[] {
  let start = 0
  let end = lines.length
  while (start < end && lines[start]!.trim() === '')
    start++
  while (end > start && lines[end - 1]!.trim() === '')
    end--
  return lines.slice(start, end)
}
