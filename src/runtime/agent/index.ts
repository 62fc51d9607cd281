// Agent tools for the SDKs apps run agents with: search_skills (a registry too
// large to list), the knowledge tool, and the adapters that give any of them
// (and the skill tool) the AI SDK's, OpenAI's or Anthropic's shape.
export { toAISDKTools } from './ai-sdk'
export type { AgentToolInputSchema, AISDKTool } from './ai-sdk'
export { toAnthropicTools } from './anthropic'
export type { AnthropicContentBlock, AnthropicTool, AnthropicToolResult, AnthropicTools } from './anthropic'
export { toOpenAITools } from './openai'
export type { OpenAIChatTool, OpenAIChatToolCall, OpenAIFunctionCallOutput, OpenAIResponsesItem, OpenAIResponsesTool, OpenAITools, OpenAIToolMessage } from './openai'
export { createKnowledgeTool, MAX_KNOWLEDGE_RESULTS } from './knowledge-tool'
export type { KnowledgeToolHit, KnowledgeToolOptions } from './knowledge-tool'
export { createSearchSkillsTool, DEFAULT_SKILL_RESULTS, MAX_SKILL_RESULTS } from './search-skills'
export type { SearchSkillsToolOptions } from './search-skills'
export { createSkillRanking, skillText } from './skill-ranking'
export type { RankedSkillInput, SkillMatch, SkillRanking, SkillRankingOptions } from './skill-ranking'
export type { AgentTool, AgentToolParameters, AgentToolProperty, AgentToolResult } from './types'
