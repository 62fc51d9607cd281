import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions'
import type { ResponseInputItem, Tool } from 'openai/resources/responses/responses'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { createSkillTool } from '../../../src/runtime'
import { createSearchSkillsTool, toOpenAITools } from '../../../src/runtime/agent'
import { registrySkill } from '../../support/registry-skill'
import { ACADEMIC, CODE_REVIEW, RELEASE_NOTES } from '../../support/skill-sources'
import { scriptedFetch } from './scripted-fetch'

const registry = [registrySkill('code-review', CODE_REVIEW), registrySkill('release-notes', RELEASE_NOTES), registrySkill('academic-delivery', ACADEMIC)]
const tools = toOpenAITools([createSearchSkillsTool(registry), createSkillTool(registry, { listSkills: false })])

/** A Chat Completions response whose assistant message calls tools, or says `text`. */
function completion(calls: [string, string, unknown][], text?: string) {
  const toolCalls = calls.map(([id, name, args]) => ({ id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } }))
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'scripted',
    choices: [{ index: 0, finish_reason: toolCalls.length ? 'tool_calls' : 'stop', message: { role: 'assistant', content: text ?? null, refusal: null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) } }],
  }
}

/** A client whose every request is answered by the script; the base URL is never reached. */
const client = (script: ReturnType<typeof scriptedFetch>) => new OpenAI({ apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9/v1', fetch: script.fetch, maxRetries: 0 })

describe('toOpenAITools', () => {
  it('has the SDK\'s types for Chat Completions and the Responses API', () => {
    const chat: ChatCompletionTool[] = tools.chat
    const responses: Tool[] = tools.responses
    expect(chat.map(t => t.type === 'function' && t.function.name)).toEqual(['search_skills', 'skill'])
    expect(responses[1]).toMatchObject({ type: 'function', name: 'skill', strict: false, parameters: { type: 'object', required: ['action', 'skill'] } })
  })

  it('runs a scripted Chat Completions loop: search, load, a wrong call answered with what to do', async () => {
    const script = scriptedFetch([
      completion([['call_1', 'search_skills', { query: 'submission checklist for my academic paper' }]]),
      completion([['call_2', 'skill', { action: 'load', skill: 'academic-delivery' }], ['call_3', 'skill', '{not json']]),
      completion([], 'Your paper is ready.'),
    ])
    const openai = client(script)
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Is my paper ready to submit?' }]
    for (let turn = 0; turn < 5; turn++) {
      const response = await openai.chat.completions.create({ model: 'scripted', messages, tools: tools.chat })
      const message = response.choices[0]!.message
      messages.push(message)
      if (!message.tool_calls?.length)
        break
      messages.push(...await tools.runChatToolCalls(message.tool_calls))
    }
    expect(script.requests).toHaveLength(3)
    expect(script.requests[0]!.tools).toEqual(tools.chat)
    const answers = messages.filter(m => m.role === 'tool')
    expect(answers.map(m => m.tool_call_id)).toEqual(['call_1', 'call_2', 'call_3'])
    expect(answers[0]!.content).toContain('\n- academic-delivery: Deliver academic engagements')
    expect(answers[1]!.content).toBe((await registry[2]!.load()).cover)
    expect(answers[2]!.content).toBe('The arguments of skill must be a JSON object; got "{not json".')
    // The last request carried every answer to the model.
    expect((script.requests[2]!.messages as unknown[]).length).toBe(6)
  })

  it('runs a scripted Responses API loop', async () => {
    const script = scriptedFetch([
      { id: 'resp_1', object: 'response', created_at: 0, model: 'scripted', status: 'completed', output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'skill', arguments: '{"action":"read_section","skill":"academic-delivery","section_id":"submission"}', status: 'completed' }] },
      { id: 'resp_2', object: 'response', created_at: 0, model: 'scripted', status: 'completed', output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done.', annotations: [] }] }] },
    ])
    const openai = client(script)
    const input: ResponseInputItem[] = [{ role: 'user', content: 'Check my submission.' }]
    const first = await openai.responses.create({ model: 'scripted', input, tools: tools.responses })
    const outputs = await tools.runResponsesCalls(first.output)
    const next: ResponseInputItem[] = outputs
    const second = await openai.responses.create({ model: 'scripted', previous_response_id: first.id, input: next, tools: tools.responses })
    expect(second.output_text).toBe('Done.')
    expect(outputs).toEqual([{ type: 'function_call_output', call_id: 'call_1', output: await registry[2]!.readSection('submission') }])
    expect(script.requests[1]!.input).toEqual(outputs)
  })
})
