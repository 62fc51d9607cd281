// Tools in the OpenAI SDK's shapes, as plain JSON: Chat Completions'
// `{ type: 'function', function: {…} }` and the Responses API's flat
// `{ type: 'function', name, … }`, with the calls of either run to the
// messages or items that answer them.

import type { AgentTool, AgentToolParameters } from './types'
import { runToolCall, toolsByName } from './dispatch'

/** A Chat Completions tool (`ChatCompletionFunctionTool`). */
export interface OpenAIChatTool {
  type: 'function'
  function: { name: string, description: string, parameters: AgentToolParameters, strict: false }
}

/** A Responses API tool (`FunctionTool`). */
export interface OpenAIResponsesTool {
  type: 'function'
  name: string
  description: string
  parameters: AgentToolParameters
  /** Strict mode would make every argument required: the tools have optional ones. */
  strict: false
}

/** A Chat Completions tool call, as `message.tool_calls` holds it (custom tool calls are skipped). */
export interface OpenAIChatToolCall {
  id: string
  type: string
  function?: { name: string, arguments: string }
}

/** The message that answers a Chat Completions tool call (`ChatCompletionToolMessageParam`). */
export interface OpenAIToolMessage {
  role: 'tool'
  tool_call_id: string
  content: string
}

/** A Responses API output item; `function_call` items are the tool calls. */
export interface OpenAIResponsesItem {
  type: string
  call_id?: string | null
  name?: string | null
  /** A JSON string for `function_call` items (other items may hold anything). */
  arguments?: unknown
}

/** The input item that answers a Responses API function call (`ResponseInputItem.FunctionCallOutput`). */
export interface OpenAIFunctionCallOutput {
  type: 'function_call_output'
  call_id: string
  output: string
}

/** What {@link toOpenAITools} gives. */
export interface OpenAITools {
  /** `tools` of `client.chat.completions.create`. */
  chat: OpenAIChatTool[]
  /** `tools` of `client.responses.create`. */
  responses: OpenAIResponsesTool[]
  /** Runs an assistant message's `tool_calls`, in order: append the messages to the conversation. */
  runChatToolCalls: (calls: readonly OpenAIChatToolCall[] | null | undefined) => Promise<OpenAIToolMessage[]>
  /** Runs the `function_call` items of a response's `output`, in order: send them as the next `input`. */
  runResponsesCalls: (output: readonly OpenAIResponsesItem[]) => Promise<OpenAIFunctionCallOutput[]>
}

/**
 * Gives tools the OpenAI SDK's shapes, for Chat Completions and the Responses
 * API, and runs the calls a response makes. A tool's error comes back as the
 * answer's text (OpenAI has no error flag), saying what to do instead.
 * Descriptions are read now: make the tools again when the skills offered change.
 */
export function toOpenAITools(tools: readonly AgentTool[]): OpenAITools {
  const byName = toolsByName(tools)
  return {
    chat: tools.map(tool => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: structuredClone(tool.parameters), strict: false },
    })),
    responses: tools.map(tool => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: structuredClone(tool.parameters),
      strict: false,
    })),
    async runChatToolCalls(calls) {
      const messages: OpenAIToolMessage[] = []
      for (const call of calls ?? []) {
        if (call.type !== 'function' || !call.function)
          continue
        const result = await runToolCall(byName, call.function.name, call.function.arguments)
        messages.push({ role: 'tool', tool_call_id: call.id, content: result.content })
      }
      return messages
    },
    async runResponsesCalls(output) {
      const items: OpenAIFunctionCallOutput[] = []
      for (const item of output) {
        if (item.type !== 'function_call' || typeof item.call_id !== 'string')
          continue
        const result = await runToolCall(byName, item.name ?? '', typeof item.arguments === 'string' ? item.arguments : '')
        items.push({ type: 'function_call_output', call_id: item.call_id, output: result.content })
      }
      return items
    },
  }
}
