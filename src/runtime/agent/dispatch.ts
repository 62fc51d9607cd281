import type { AgentTool, AgentToolResult } from './types'
import { quoteForMessage } from '../redact'

/** Tools by name; two tools of one name are a mistake of the app, said at once. */
export function toolsByName(tools: readonly AgentTool[]): Map<string, AgentTool> {
  const byName = new Map<string, AgentTool>()
  for (const tool of tools) {
    if (byName.has(tool.name))
      throw new TypeError(`Two tools are named "${tool.name}": give one of them another name (createSearchSkillsTool and createKnowledgeTool take a name option).`)
    byName.set(tool.name, tool)
  }
  return byName
}

/**
 * Runs the tool a model called, with arguments as it sent them: an object, or
 * a JSON string (OpenAI). An unknown tool or arguments that are not JSON come
 * back as an error result the model can act on, never as an exception.
 */
export async function runToolCall(byName: ReadonlyMap<string, AgentTool>, name: string, args: unknown): Promise<AgentToolResult> {
  const tool = byName.get(name)
  if (!tool)
    return { content: `There is no tool named ${quoteForMessage(name)}. Tools: ${[...byName.keys()].join(', ')}.`, isError: true }
  let input = args
  if (typeof args === 'string') {
    try {
      input = args.trim() === '' ? {} : JSON.parse(args)
    }
    catch {
      return { content: `The arguments of ${tool.name} must be a JSON object; got ${quoteForMessage(args)}.`, isError: true }
    }
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    return { content: `The arguments of ${tool.name} must be a JSON object.`, isError: true }
  try {
    return await tool.execute(input)
  }
  catch (error) {
    return { content: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true }
  }
}
