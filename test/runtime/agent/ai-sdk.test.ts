import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider'
import type { ToolSet } from 'ai'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { createSkillTool } from '../../../src/runtime'
import { createSearchSkillsTool, toAISDKTools } from '../../../src/runtime/agent'
import { registrySkill } from '../../support/registry-skill'
import { ACADEMIC, CODE_REVIEW, RELEASE_NOTES } from '../../support/skill-sources'

const registry = [registrySkill('code-review', CODE_REVIEW), registrySkill('release-notes', RELEASE_NOTES), registrySkill('academic-delivery', ACADEMIC)]

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }

/** A model turn that calls one tool. */
function callTool(id: string, toolName: string, input: unknown): LanguageModelV3GenerateResult {
  return { content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }], finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage, warnings: [] }
}

/** A scripted model: its turns in order, and every prompt it was sent. */
function scriptedModel(turns: LanguageModelV3GenerateResult[]) {
  const prompts: LanguageModelV3CallOptions[] = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options)
      return turns[prompts.length - 1] ?? { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
    },
  })
  return { model, prompts }
}

/** The tool results the model was sent in a prompt, by tool call ID. */
function toolResults(options: LanguageModelV3CallOptions): Record<string, { type: string, value: unknown }> {
  const out: Record<string, { type: string, value: unknown }> = {}
  for (const message of options.prompt) {
    if (message.role !== 'tool')
      continue
    for (const part of message.content) {
      if (part.type === 'tool-result')
        out[part.toolCallId] = part.output as { type: string, value: unknown }
    }
  }
  return out
}

describe('toAISDKTools', () => {
  const tools = toAISDKTools([createSearchSkillsTool(registry), createSkillTool(registry, { listSkills: false })])

  it('is a ToolSet of the AI SDK, with JSON Schemas the model is sent', async () => {
    const set: ToolSet = tools
    const { model, prompts } = scriptedModel([])
    await generateText({ model, tools: set, prompt: 'Hello' })
    const sent = prompts[0]!.tools!
    expect(sent.map(t => t.name)).toEqual(['search_skills', 'skill'])
    const search = sent[0]!
    expect(search.type === 'function' && search.inputSchema).toMatchObject({ type: 'object', required: ['query'], properties: { query: { type: 'string' } } })
    // No listing of skills in any description: search_skills finds them.
    expect(sent.every(t => t.type === 'function' && !t.description!.includes('code-review'))).toBe(true)
  })

  it('runs a scripted agent: search_skills finds a skill, the skill tool loads it and reads a section', async () => {
    const { model, prompts } = scriptedModel([
      callTool('c1', 'search_skills', { query: 'the submission checklist of an academic paper' }),
      callTool('c2', 'skill', { action: 'load', skill: 'academic-delivery' }),
      callTool('c3', 'skill', { action: 'read_section', skill: 'academic-delivery', section_id: 'submission' }),
    ])
    const result = await generateText({ model, tools, prompt: 'Is my paper ready to submit?', stopWhen: stepCountIs(5) })
    expect(result.text).toBe('Done.')
    expect(prompts).toHaveLength(4)
    const found = toolResults(prompts[1]!).c1!
    expect(found.type).toBe('text')
    expect(String(found.value).split('\n')[1]).toBe('- academic-delivery: Deliver academic engagements - citation style, formatting and the submission checklist.')
    const cover = toolResults(prompts[2]!).c2!
    expect(cover).toEqual({ type: 'text', value: (await registry[2]!.load()).cover })
    expect(cover.value).toContain('Cite in APA 7th edition.')
    expect(toolResults(prompts[3]!).c3).toEqual({ type: 'text', value: await registry[2]!.readSection('submission') })
    expect(toolResults(prompts[3]!).c3!.value).toContain('References checked against their DOIs.')
  })

  it('sends a tool\'s error as an error text the model can act on', async () => {
    const { model, prompts } = scriptedModel([
      callTool('c1', 'skill', { action: 'load', skill: 'relase-notes' }),
      callTool('c2', 'search_skills', { query: '' }),
    ])
    await generateText({ model, tools, prompt: 'Go', stopWhen: stepCountIs(4) })
    const unknown = toolResults(prompts[1]!).c1!
    expect(unknown.type).toBe('error-text')
    expect(unknown.value).toBe('Unknown skill "relase-notes". Did you mean "release-notes"? Find skills with the search_skills tool, and load one by a name it returns.')
    expect(toolResults(prompts[2]!).c2).toEqual({ type: 'error-text', value: '"query" must be the task in a few words, e.g. {"query": "extract tables from a PDF"}.' })
  })
})
