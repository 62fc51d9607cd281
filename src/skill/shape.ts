import type { RegistryEntry } from '../runtime/skill/registry'
import type { SectionIndexEntry, SectionMap, SkillData, SkillDiagnostic, SkillMeta, SkillTokens } from '../runtime/skill/types'
import type { CompiledSkill } from './compile'
import { estimateTokens, listingLine } from '../runtime/tokens'
import { trimBlankLines } from './sections'

/** The section index: what a listing shows, without contents. */
export function sectionIndex(skill: CompiledSkill): SectionIndexEntry[] {
  return skill.sections.map(({ id, title, level, parent }) => ({ id, title, level, parent }))
}

/** Everything but cover and section text (`?meta`). Diagnostic paths are made relative by `relativize`. */
export function skillMeta(skill: CompiledSkill, relativize: (file: string) => string): SkillMeta {
  return {
    name: skill.name,
    description: skill.description,
    frontmatter: skill.frontmatter,
    mode: skill.mode,
    triggers: skill.triggers,
    sections: sectionIndex(skill),
    resources: skill.resources,
    diagnostics: skill.diagnostics.map((d): SkillDiagnostic => ({ ...d, file: relativize(d.file) })),
  }
}

/** Section ID to section with content (`?sections`). */
export function sectionMap(skill: CompiledSkill): SectionMap {
  return Object.fromEntries(skill.sections.map(section => [section.id, section]))
}

/** Why `readSection` is unavailable on a skill that is not progressive. */
export function unreadableReason(skill: CompiledSkill): string | undefined {
  if (skill.mode === 'regular')
    return `Skill "${skill.name}" is a regular skill: it has no sections, and loading it returns the whole body.`
  if (skill.mode === 'fallback') {
    const first = skill.diagnostics.find(d => d.severity === 'error')
    return `Skill "${skill.name}" failed validation (${first?.code}: ${first?.message}) and loaded in fallback mode: read_section is unavailable, and loading it returns the whole body.`
  }
  return undefined
}

/** What a `SKILL.md` import hands to `createSkill`. */
export function skillData(skill: CompiledSkill, relativize: (file: string) => string): SkillData {
  const unreadable = unreadableReason(skill)
  return {
    ...skillMeta(skill, relativize),
    cover: skill.cover,
    body: skill.mode === 'progressive' ? skill.body : '',
    bodyLine: skill.bodyLine,
    ranges: Object.fromEntries(skill.sections.map(s => [s.id, [s.startLine, s.endLine]])),
    ...(unreadable === undefined ? {} : { unreadable }),
  }
}

/** Approximate token counts of a skill's listing line, cover and body. */
export function skillTokens(skill: CompiledSkill): SkillTokens {
  return {
    listing: estimateTokens(listingLine(skill)),
    cover: estimateTokens(skill.cover),
    body: estimateTokens(trimBlankLines(skill.body.split('\n')).join('\n')),
  }
}

/** What `virtual:skill-kit/skills` lists of a skill. */
export function registryEntry(skill: CompiledSkill, relativize: (file: string) => string): RegistryEntry {
  return {
    name: skill.name,
    description: skill.description,
    mode: skill.mode,
    triggers: skill.triggers,
    sections: sectionIndex(skill),
    tokens: skillTokens(skill),
    file: relativize(skill.file),
  }
}
