// Skills at run time: section reading, the registry, activation and the agent's skill tool.
export { createActivation } from './activation'
export type { ActivationOptions } from './activation'
export { createSkill } from './create-skill'
export { readSection, resolveSection, SkillReadError, sliceLines } from './read-section'
export { onSkillUpdate } from './hot'
export type { SkillUpdate } from './hot'
export { createRegistry } from './registry'
export type { RegistryEntry } from './registry'
export type { SkillReadErrorCode } from './read-section'
export { createSkillTool } from './skill-tool'
export type { SkillTool, SkillToolArgs, SkillToolOptions, SkillToolResult } from './skill-tool'
export type {
  Activated,
  Activation,
  ActivationSkill,
  ActivationStats,
  ListingOptions,
  MatchedTrigger,
  ReadOptions,
  RegistrySkill,
  SectionIndexEntry,
  SectionInfo,
  SectionMap,
  Skill,
  SkillData,
  SkillDiagnostic,
  SkillMeta,
  SkillMode,
  SkillTokens,
  SkillTriggers,
} from './types'
export { estimateTokens, listingLine } from '../tokens'
