import type { Diagnostic } from '../core/diagnostics'
import type { ListingReport } from '../skill/listing-budget'
import type { Target } from '../skill/targets'
import { realpathSync } from 'node:fs'
import { relative } from 'node:path'
import { codeFrame, formatDiagnostic } from '../core/diagnostics'
import { claudeListing, codexListing, codexListingDiagnostics } from '../skill/listing-budget'
import { SkillLoader } from '../skill/load'
import { CLAUDE_LISTING_BUDGET, CODEX_LISTING_BUDGET, TARGET_LABELS, targetDiagnostics } from '../skill/targets'
import { findSkillFiles, PathError } from './find-skills'

/** Options of `skill-kit validate`. */
export interface ValidateOptions {
  strict: boolean
  format: 'text' | 'json'
  /** Agents and validators to check the skills against, besides our own rules. */
  targets?: readonly Target[]
  /** Claude Code's listing budget in characters (its `SLASH_COMMAND_TOOL_CHAR_BUDGET`); default 8,000. */
  claudeBudget?: number
}

/** What a validation run prints and how it exits. */
export interface ValidateResult {
  stdout: string
  exitCode: number
}

/** `1,234` */
const count = (n: number) => n.toLocaleString('en')

/** One line per listing: its length against the budget, and what is cut. */
function listingSummary(report: ListingReport, claudeBudgetFrom: string): string {
  const skills = `${report.skills} skill${report.skills === 1 ? '' : 's'}`
  if (report.characters <= report.budget)
    return `${TARGET_LABELS[report.target]} listing: ${skills}, ${count(report.characters)} of ${count(report.budget)} characters.`
  const names = report.cut.map(c => c.name).join(', ')
  if (report.target === 'codex')
    return `Codex listing: ${skills}, ${count(report.characters)} characters against its budget of ${count(report.budget)}: ${report.cut.length} left out (${names}).`
  const { min, max } = report.dropped
  return `Claude Code listing: ${skills}, ${count(report.characters)} characters against its budget of ${count(report.budget)} (${claudeBudgetFrom}). It keeps every name and drops the descriptions of the skills invoked least until the listing fits: at least ${min} (${names}, if those are the least invoked), at most ${max}. Shorten descriptions, or set disable-model-invocation: true on skills only you invoke.`
}

/**
 * Lints every skill under `paths` with the plugin's rules and, for each of
 * `options.targets`, what that agent or validator would reject or cut. Exit
 * code 1 when any file has an error.
 */
export function validate(paths: readonly string[], options: ValidateOptions): ValidateResult {
  const loader = new SkillLoader({ strict: options.strict, onInvalid: 'fallback' })
  const cwd = process.cwd()
  const rel = (file: string) => relative(cwd, file).replace(/\\/g, '/') || file
  const files = findSkillFiles(paths.length > 0 ? paths : ['.'])
  if (files.length === 0)
    throw new PathError(`no SKILL.md or *.skill.md under ${paths.length > 0 ? paths.join(', ') : 'the current folder'}.`)
  const targets = options.targets ?? []
  const compiled = files.map(file => loader.load(file).compiled)

  const claudeBudget = options.claudeBudget ?? CLAUDE_LISTING_BUDGET
  const claudeBudgetFrom = options.claudeBudget === undefined ? '1% of the context window; 8,000 by its documentation' : 'SLASH_COMMAND_TOOL_CHAR_BUDGET'
  const listings: ListingReport[] = []
  if (targets.includes('claude'))
    listings.push(claudeListing(compiled, claudeBudget))
  if (targets.includes('codex'))
    listings.push(codexListing(compiled, CODEX_LISTING_BUDGET, file => realpathSync(file)))
  const omitted = listings.filter(l => l.target === 'codex').flatMap(l => codexListingDiagnostics(l, compiled))

  const skills = compiled.map(s => ({
    ...s,
    diagnostics: [...s.diagnostics, ...targets.flatMap(t => targetDiagnostics(s, t)), ...omitted.filter(d => d.file === s.file)]
      .sort((a, b) => a.line - b.line || a.column - b.column),
  }))
  const all: Diagnostic[] = skills.flatMap(s => s.diagnostics)
  const errors = all.filter(d => d.severity === 'error').length
  const warnings = all.length - errors
  const exitCode = errors > 0 ? 1 : 0

  if (options.format === 'json') {
    const report = {
      skills: skills.map(s => ({
        file: rel(s.file),
        name: s.name,
        mode: s.diagnostics.some(d => d.severity === 'error') ? 'invalid' : s.mode,
        diagnostics: s.diagnostics.map(d => ({ ...d, file: rel(d.file) })),
      })),
      errors,
      warnings,
      targets,
      listings: listings.map(l => ({ ...l, cut: l.cut.map(c => ({ ...c, file: rel(c.file) })) })),
    }
    return { stdout: `${JSON.stringify(report, null, 2)}\n`, exitCode }
  }

  const blocks = skills.flatMap(s => s.diagnostics.map(d => `${formatDiagnostic(d, rel)}\n${codeFrame(s.source, d)}`))
  const summaries = listings.map(l => listingSummary(l, claudeBudgetFrom))
  const summary = `${skills.length} skill${skills.length === 1 ? '' : 's'} checked: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}.`
  return { stdout: [...blocks, ...summaries, summary].join('\n\n') + '\n', exitCode }
}
