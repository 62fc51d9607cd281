export { createSkill } from './create-skill'
export { readSection, resolveSection, SkillReadError, sliceLines } from './read-section'
export type { SkillReadErrorCode } from './read-section'
export type {
  ReadOptions,
  SectionIndexEntry,
  SectionInfo,
  SectionMap,
  Skill,
  SkillData,
  SkillDiagnostic,
  SkillMeta,
  SkillMode,
} from './types'
