// Tools in the Anthropic SDK's shape, as plain JSON, with the `tool_use`
// blocks of a response run to the `tool_result` blocks that answer them.

import type { AgentTool, AgentToolParameters } from './types'
import { runToolCall, toolsByName } from './dispatch'

/** A tool of `client.messages.create` (`Tool`). */
export interface AnthropicTool {
  name: string
  description: string
  input_schema: AgentToolParameters
}

/** A block of a response's `content`; `tool_use` blocks are the tool calls. */
export interface AnthropicContentBlock {
  type: string
  id?: string
  name?: string
  input?: unknown
}

/** The block that answers a `tool_use` block (`ToolResultBlockParam`). */
export interface AnthropicToolResult {
  type: 'tool_result'
  tool_use_id: string
  content: string
  is_error: boolean
}

/** What {@link toAnthropicTools} gives. */
export interface AnthropicTools {
  /** `tools` of `client.messages.create`. */
  tools: AnthropicTool[]
  /**
   * Runs the `tool_use` blocks of a response's `content`, in order: send the
   * results as the next user message's content.
   */
  runToolUses: (content: readonly AnthropicContentBlock[]) => Promise<AnthropicToolResult[]>
}

/**
 * Gives tools the Anthropic SDK's shape and runs the calls a response makes;
 * a tool's error comes back with `is_error: true`. Descriptions are read now:
 * make the tools again when the skills offered change.
 */
export function toAnthropicTools(tools: readonly AgentTool[]): AnthropicTools {
  const byName = toolsByName(tools)
  return {
    tools: tools.map(tool => ({ name: tool.name, description: tool.description, input_schema: structuredClone(tool.parameters) })),
    async runToolUses(content) {
      const results: AnthropicToolResult[] = []
      for (const block of content) {
        if (block.type !== 'tool_use' || block.id === undefined)
          continue
        const result = await runToolCall(byName, block.name ?? '', block.input ?? {})
        results.push({ type: 'tool_result', tool_use_id: block.id, content: result.content, is_error: result.isError })
      }
      return results
    },
  }
}
