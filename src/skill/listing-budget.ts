// The listing an agent puts in its prompt for a skills folder, measured
// against that agent's budget, and what it cuts. The facts and their sources
// are in targets.ts.

import type { Diagnostic } from '../core/diagnostics'
import type { YamlValue } from '../core/yaml-value'
import type { CompiledSkill } from './compile'
import { basename } from 'node:path'
import { DiagnosticBag } from '../core/diagnostics'
import { isYamlMapping } from '../core/yaml-value'
import { listingLine } from '../runtime/tokens'
import { expectedSkillName } from './compile'
import { CLAUDE_ENTRY_MAX, claudeEntryText, codePoints, CODEX_SHORT_DESCRIPTION_MAX, collapseWhitespace, frontmatterDoc } from './targets'
import { DESCRIPTION_MAX, NAME_MAX } from './spec'

/** A skill the target leaves out of its listing, or lists without its description. */
export interface ListingCut {
  name: string
  /** Absolute path of the skill file. */
  file: string
  /** Characters the cut saves. */
  characters: number
  /** `skill`: the whole entry is left out; `description`: the name stays. */
  cut: 'skill' | 'description'
}

/** A folder's listing for one target. */
export interface ListingReport {
  target: 'claude' | 'codex'
  /** Skills the target would list. */
  skills: number
  /** Characters of the whole listing, one line and its newline per skill. */
  characters: number
  /** The target's budget in characters. */
  budget: number
  /**
   * How many entries the target cuts: the fewest and the most. Equal when
   * the target's order is known (Codex); Claude Code drops the descriptions of
   * the skills invoked least, which depends on use.
   */
  dropped: { min: number, max: number }
  /** What is cut: Codex's left-out skills; for Claude Code, the fewest descriptions that make the listing fit (the longest). */
  cut: ListingCut[]
}

/** Whether a frontmatter field holds a true boolean, as Claude Code reads booleans (`true`, `yes`, `on`, `1`, any case). */
function isTrue(value: YamlValue | undefined): boolean {
  return value === true || value === 1 || (typeof value === 'string' && ['true', 'yes', 'on', '1'].includes(value.toLowerCase()))
}

/** The first `max` code points of a text. */
function firstCodePoints(text: string, max: number): string {
  return codePoints(text) <= max ? text : [...text].slice(0, max).join('')
}

/**
 * Claude Code's listing: every skill it loads (`<name>/SKILL.md`, not
 * `disable-model-invocation`), its description and `when_to_use` cut at
 * 1,536 characters, counted as `- name: description` lines (the real format is
 * not public). Over budget, descriptions go and names stay.
 */
export function claudeListing(skills: readonly CompiledSkill[], budget: number): ListingReport {
  const entries = skills
    .filter(s => basename(s.file) === 'SKILL.md' && Object.keys(s.frontmatter).length > 0 && !isTrue(s.frontmatter['disable-model-invocation']))
    .map((s) => {
      const fm = s.frontmatter
      const name = typeof fm.name === 'string' && fm.name ? fm.name : expectedSkillName(s.file).name
      const description = firstCodePoints(claudeEntryText(fm), CLAUDE_ENTRY_MAX)
      const line = description ? listingLine({ name, description }) : `- ${name}`
      return { name, file: s.file, characters: codePoints(line) + 1, saves: description ? codePoints(line) - codePoints(`- ${name}`) : 0 }
    })
  const characters = entries.reduce((sum, e) => sum + e.characters, 0)
  const over = characters - budget
  const droppable = entries.filter(e => e.saves > 0)
  /** How many drops, taken in this order, bring the listing within budget (all of them when none does). */
  const dropsNeeded = (order: typeof droppable) => {
    let saved = 0
    let count = 0
    for (const entry of order) {
      if (saved >= over)
        break
      saved += entry.saves
      count++
    }
    return count
  }
  const longestFirst = [...droppable].sort((a, b) => b.saves - a.saves || a.name.localeCompare(b.name))
  const min = over > 0 ? dropsNeeded(longestFirst) : 0
  const max = over > 0 ? dropsNeeded([...longestFirst].reverse()) : 0
  return {
    target: 'claude',
    skills: entries.length,
    characters,
    budget,
    dropped: { min, max },
    cut: longestFirst.slice(0, min).map(e => ({ name: e.name, file: e.file, characters: e.saves, cut: 'description' })),
  }
}

/**
 * Codex's listing: every skill it loads, as `- name: description (file:
 * path)` lines in name order (one folder is one scope), each kept when it
 * still fits the budget and left out whole when not. `pathOf` gives the
 * absolute, resolved path Codex would show for a skill file.
 */
export function codexListing(skills: readonly CompiledSkill[], budget: number, pathOf: (file: string) => string): ListingReport {
  const entries = skills.flatMap((s) => {
    const fm = s.frontmatter
    const metadata = fm.metadata
    const short = isYamlMapping(metadata) ? metadata['short-description'] : undefined
    const loads = basename(s.file) === 'SKILL.md'
      && Object.keys(fm).length > 0
      && (fm.name === undefined || typeof fm.name === 'string')
      && typeof fm.description === 'string'
      && (metadata === undefined || isYamlMapping(metadata))
      && (short === undefined || (typeof short === 'string' && codePoints(collapseWhitespace(short)) <= CODEX_SHORT_DESCRIPTION_MAX))
    if (!loads)
      return []
    const name = collapseWhitespace(typeof fm.name === 'string' ? fm.name : '') || collapseWhitespace(expectedSkillName(s.file).name)
    const description = collapseWhitespace(fm.description as string)
    if (!description || codePoints(name) > NAME_MAX || codePoints(description) > DESCRIPTION_MAX)
      return []
    const path = pathOf(s.file).replace(/\\/g, '/')
    return [{ name, file: s.file, path, characters: codePoints(`- ${name}: ${description} (file: ${path})`) + 1 }]
  }).sort((a, b) => compareCodeUnits(a.name, b.name) || compareCodeUnits(a.path, b.path))

  let used = 0
  const cut: ListingCut[] = []
  for (const entry of entries) {
    if (used + entry.characters <= budget)
      used += entry.characters
    else cut.push({ name: entry.name, file: entry.file, characters: entry.characters, cut: 'skill' })
  }
  return {
    target: 'codex',
    skills: entries.length,
    characters: entries.reduce((sum, e) => sum + e.characters, 0),
    budget,
    dropped: { min: cut.length, max: cut.length },
    cut,
  }
}

/** Byte-wise order of ASCII names, as Rust sorts strings. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** A warning on each skill Codex leaves out of its listing, at its description. */
export function codexListingDiagnostics(report: ListingReport, skills: readonly CompiledSkill[]): Diagnostic[] {
  return report.cut.flatMap((cut) => {
    const skill = skills.find(s => s.file === cut.file)!
    const bag = new DiagnosticBag(skill.file)
    bag.warning(
      'codex-listing-omitted',
      `Codex leaves this skill out of its listing: the ${report.skills} skills it would load need ${report.characters.toLocaleString('en')} characters, one "- name: description (file: path)" line each, against its budget of ${report.budget.toLocaleString('en')} characters, filled in name order. Shorten descriptions, or disable skills you do not use.`,
      frontmatterDoc(skill)?.locate(['description']) ?? { line: 1, column: 1 },
    )
    return bag.items
  })
}
