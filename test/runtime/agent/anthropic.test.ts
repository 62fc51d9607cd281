import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages'
import Anthropic from '@anthropic-ai/sdk'
import { describe, expect, it } from 'vitest'
import { createSkillTool } from '../../../src/runtime'
import { createSearchSkillsTool, toAnthropicTools } from '../../../src/runtime/agent'
import { registrySkill } from '../../support/registry-skill'
import { ACADEMIC, CODE_REVIEW, RELEASE_NOTES } from '../../support/skill-sources'
import { scriptedFetch } from './scripted-fetch'

const registry = [registrySkill('code-review', CODE_REVIEW), registrySkill('release-notes', RELEASE_NOTES), registrySkill('academic-delivery', ACADEMIC)]
const tools = toAnthropicTools([createSearchSkillsTool(registry), createSkillTool(registry, { listSkills: false })])

/** A Messages API response with these content blocks. */
function message(content: unknown[], stop: 'tool_use' | 'end_turn') {
  return { id: 'msg_1', type: 'message', role: 'assistant', model: 'scripted', content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }
}

describe('toAnthropicTools', () => {
  it('has the SDK\'s tool type', () => {
    const typed: Tool[] = tools.tools
    expect(typed.map(t => t.name)).toEqual(['search_skills', 'skill'])
    expect(typed[0]!.input_schema).toMatchObject({ type: 'object', required: ['query'] })
  })

  it('runs a scripted Messages loop: search, load, and an unknown skill answered with is_error', async () => {
    const script = scriptedFetch([
      message([{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_1', name: 'search_skills', input: { query: 'review a pull request' } }], 'tool_use'),
      message([{ type: 'tool_use', id: 'toolu_2', name: 'skill', input: { action: 'load', skill: 'code-review' } }, { type: 'tool_use', id: 'toolu_3', name: 'skill', input: { action: 'load', skill: 'code-reveiw-2' } }], 'tool_use'),
      message([{ type: 'text', text: 'Reviewed.' }], 'end_turn'),
    ])
    const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: 'http://127.0.0.1:9', fetch: script.fetch, maxRetries: 0 })
    const messages: MessageParam[] = [{ role: 'user', content: 'Review my pull request.' }]
    for (let turn = 0; turn < 5; turn++) {
      const response = await client.messages.create({ model: 'scripted', max_tokens: 1024, messages, tools: tools.tools })
      messages.push({ role: 'assistant', content: response.content })
      if (response.stop_reason !== 'tool_use')
        break
      messages.push({ role: 'user', content: await tools.runToolUses(response.content) })
    }
    expect(script.requests).toHaveLength(3)
    expect(script.requests[0]!.tools).toEqual(tools.tools)
    expect(messages[2]!.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('\n- code-review: Review a pull request'), is_error: false }])
    expect(messages[4]!.content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_2', content: (await registry[0]!.load()).cover, is_error: false },
      { type: 'tool_result', tool_use_id: 'toolu_3', content: 'Unknown skill "code-reveiw-2". Did you mean "code-review"? Find skills with the search_skills tool, and load one by a name it returns.', is_error: true },
    ])
    expect(script.requests[2]!.messages).toEqual(messages.slice(0, 5))
  })
})
