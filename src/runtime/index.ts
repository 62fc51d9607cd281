export { createActivation } from './activation'
export type { ActivationOptions } from './activation'
export { createSkill } from './create-skill'
export { readSection, resolveSection, SkillReadError, sliceLines } from './read-section'
export { createRegistry } from './registry'
export type { RegistryEntry } from './registry'
export type { SkillReadErrorCode } from './read-section'
export { createKnowledgeBase, KnowledgeError } from './knowledge'
export type { KnowledgeBase, KnowledgeBaseInit, KnowledgeDocumentInfo, KnowledgeErrorCode, KnowledgeSearchMode, KnowledgeSearchOptions, KnowledgeSearchResult } from './knowledge'
export { transformersQueryEmbedder } from './query-embedder'
export type { EmbedQuery, QueryModel, TransformersModule } from './query-embedder'
export { buildLexicalIndex, searchHybrid, searchLexical, tokenize } from './lexical'
export type { HybridHit, HybridOptions, LexicalChunk, LexicalIndex, LexicalSearchOptions } from './lexical'
export { searchVectors } from './search'
export type { VectorSearchOptions } from './search'
export type { SearchHit, SearchResult } from './search-rank'
export { createSkillTool } from './skill-tool'
export type { SkillTool, SkillToolArgs, SkillToolOptions, SkillToolResult } from './skill-tool'
export { chunkHeading, decodeSnapshot, SnapshotError } from './snapshot-reader'
export type { DecodeOptions, Snapshot, SnapshotDocument, SnapshotErrorCode } from './snapshot-reader'
export { estimateTokens, listingLine } from './tokens'
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
