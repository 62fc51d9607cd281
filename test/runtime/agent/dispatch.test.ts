import type { AgentTool } from '../../../src/runtime/agent'
import { describe, expect, it } from 'vitest'
import { toAnthropicTools, toOpenAITools } from '../../../src/runtime/agent'

const echo: AgentTool = {
  name: 'echo',
  description: 'Echoes its text.',
  parameters: { type: 'object', properties: { text: { type: 'string', description: 'What to echo.' } }, required: ['text'], additionalProperties: false },
  execute: async args => ({ content: String((args as { text?: unknown }).text), isError: false }),
}
const broken: AgentTool = { ...echo, name: 'broken', execute: async () => { throw new Error('disk full') } }

describe('running the calls a model makes', () => {
  it('answers an unknown tool, arguments that are not an object, and a tool that throws, with what is wrong', async () => {
    const { runToolUses } = toAnthropicTools([echo, broken])
    const results = await runToolUses([
      { type: 'text' },
      { type: 'tool_use', id: 'a', name: 'echo', input: { text: 'hi' } },
      { type: 'tool_use', id: 'b', name: 'ecko', input: {} },
      { type: 'tool_use', id: 'c', name: 'echo', input: ['hi'] },
      { type: 'tool_use', id: 'd', name: 'broken', input: {} },
    ])
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'hi', is_error: false },
      { type: 'tool_result', tool_use_id: 'b', content: 'There is no tool named "ecko". Tools: echo, broken.', is_error: true },
      { type: 'tool_result', tool_use_id: 'c', content: 'The arguments of echo must be a JSON object.', is_error: true },
      { type: 'tool_result', tool_use_id: 'd', content: 'broken failed: disk full', is_error: true },
    ])
  })

  it('reads OpenAI\'s arguments as JSON, empty ones as {}, and skips custom tool calls', async () => {
    const tools = toOpenAITools([echo])
    expect(await tools.runChatToolCalls([
      { id: '1', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } },
      { id: '2', type: 'custom' },
      { id: '3', type: 'function', function: { name: 'echo', arguments: '' } },
    ])).toEqual([
      { role: 'tool', tool_call_id: '1', content: 'hi' },
      { role: 'tool', tool_call_id: '3', content: 'undefined' },
    ])
    expect(await tools.runChatToolCalls(undefined)).toEqual([])
  })

  it('refuses two tools of one name when the tools are made', () => {
    expect(() => toOpenAITools([echo, echo])).toThrow('Two tools are named "echo": give one of them another name')
  })
})
