import type { ReadOptions, SectionIndexEntry, SectionMap } from './types'
import { work } from '../work'

/** Why a section read failed, for callers (such as an agent tool) that answer differently per case. */
export type SkillReadErrorCode = 'unknown-section' | 'ambiguous-heading' | 'not-progressive' | 'invalid-range'

/** A section read that cannot be answered; the message says what to do instead. */
export class SkillReadError extends Error {
  override name = 'SkillReadError'
  constructor(
    readonly code: SkillReadErrorCode,
    message: string,
    /** The section IDs the caller can use instead. */
    readonly ids: string[] = [],
  ) {
    super(message)
  }
}

/**
 * Resolves a section reference: an exact ID first, else a heading title
 * compared case-insensitively. A title shared by several headings is an error,
 * because only IDs are stable.
 */
export function resolveSection(sections: readonly SectionIndexEntry[], ref: string): SectionIndexEntry {
  if (typeof ref !== 'string') {
    const ids = sections.map(s => s.id)
    throw new SkillReadError('unknown-section', `A section is read by its ID or heading, a string; got ${typeof ref}. Known section IDs: ${ids.join(', ') || '(none)'}.`, ids)
  }
  work.steps += sections.length
  const byId = sections.find(s => s.id === ref)
  if (byId)
    return byId
  const wanted = ref.trim().toLowerCase()
  const byTitle = sections.filter(s => s.title.trim().toLowerCase() === wanted)
  if (byTitle.length === 1)
    return byTitle[0]!
  if (byTitle.length > 1) {
    const ids = byTitle.map(s => s.id)
    throw new SkillReadError('ambiguous-heading', `Several sections are titled "${ref}": ${ids.join(', ')}. Pass one of these section IDs instead.`, ids)
  }
  const ids = sections.map(s => s.id)
  throw new SkillReadError('unknown-section', `No section has the ID or heading "${ref}". Known section IDs: ${ids.join(', ') || '(none)'}.`, ids)
}

/** Lines `offset … offset + limit` of `text`. */
export function sliceLines(text: string, { offset = 0, limit }: ReadOptions = {}): string {
  if (!Number.isInteger(offset) || offset < 0)
    throw new SkillReadError('invalid-range', `offset must be a non-negative integer, got ${String(offset)}.`)
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
    throw new SkillReadError('invalid-range', `limit must be a non-negative integer, got ${String(limit)}.`)
  if (offset === 0 && limit === undefined)
    return text
  const lines = text.split('\n')
  return lines.slice(offset, limit === undefined ? undefined : offset + limit).join('\n')
}

/** Reads a section from a `?sections` map by ID or heading, optionally a range of its lines. */
export function readSection(sections: SectionMap, ref: string, options?: ReadOptions): string {
  const section = resolveSection(Object.values(sections), ref)
  return sliceLines(sections[section.id]!.content, options)
}
