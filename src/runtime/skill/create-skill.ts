import type { ReadOptions, Skill, SkillData } from './types'
import { notifySkillUpdate } from './hot'
import { resolveSection, SkillReadError, sliceLines } from './read-section'

/**
 * Turns the data a `SKILL.md` import carries into a {@link Skill}. Section
 * contents are cut from the body on demand, so the module ships each line once.
 */
export function createSkill(data: SkillData): Skill {
  const { body, bodyLine, ranges, unreadable, ...rest } = data
  let lines: string[] | undefined
  return {
    ...rest,
    readSection(ref: string, options?: ReadOptions): string {
      if (unreadable !== undefined)
        throw new SkillReadError('not-progressive', unreadable)
      const [start, end] = ranges[resolveSection(data.sections, ref).id]!
      lines ??= body.split('\n')
      return sliceLines(lines.slice(start - bodyLine, end - bodyLine + 1).join('\n'), options)
    },
  }
}

/**
 * Patches a skill in place with its next version (from a hot update of its
 * module in the Vite dev server), so that whoever holds it sees the new
 * skill; then tells the `onSkillUpdate` handlers.
 */
export function patchSkill(skill: Skill, next: Skill): void {
  for (const key of Object.keys(skill))
    delete (skill as unknown as Record<string, unknown>)[key]
  Object.assign(skill, next)
  notifySkillUpdate({ added: [], changed: [next.name], removed: [] })
}
