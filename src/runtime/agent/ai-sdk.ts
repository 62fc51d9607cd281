// Tools in the AI SDK's shape (`ai`'s ToolSet), without importing `ai`: the
// input schema is a Standard Schema (standardschema.dev) that also carries its
// JSON Schema (Standard JSON Schema), which the AI SDK's `asSchema` reads as
// it reads Zod's, so this runtime stays free of dependencies.

import type { AgentTool, AgentToolParameters, AgentToolResult } from './types'
import { runToolCall, toolsByName } from './dispatch'

/** The Standard Schema result of validating a tool's input. */
type ValidationResult = { readonly value: Record<string, unknown>, readonly issues?: undefined } | { readonly issues: readonly { readonly message: string }[] }

/** A Standard Schema with its JSON Schema (the `~standard` interface the AI SDK reads). */
export interface AgentToolInputSchema {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: 'unplugin-skill-kit'
    readonly validate: (value: unknown) => ValidationResult
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>
      readonly output: (options: { readonly target: string }) => Record<string, unknown>
    }
    readonly types?: { readonly input: Record<string, unknown>, readonly output: Record<string, unknown> }
  }
}

/** One tool of {@link toAISDKTools}: a `Tool` of the AI SDK (`tool()` gives the same object). */
export interface AISDKTool {
  description: string
  inputSchema: AgentToolInputSchema
  /** Runs the call; an error is a result too (`isError`), which {@link AISDKTool.toModelOutput} sends as an error text. */
  execute: (input: Record<string, unknown>) => Promise<AgentToolResult>
  toModelOutput: (options: { output: AgentToolResult }) => { type: 'text' | 'error-text', value: string }
}

/**
 * The input schema of a tool: validation only checks that the input is an
 * object, so that a wrong argument reaches the tool, whose answer says what
 * to send instead (the AI SDK's own error would name a schema path).
 */
function inputSchema(parameters: AgentToolParameters): AgentToolInputSchema {
  const json = () => structuredClone(parameters) as unknown as Record<string, unknown>
  return {
    '~standard': {
      version: 1,
      vendor: 'unplugin-skill-kit',
      validate: value => typeof value === 'object' && value !== null && !Array.isArray(value)
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'The tool\'s input must be a JSON object.' }] },
      jsonSchema: { input: json, output: json },
    },
  }
}

/**
 * Gives tools the AI SDK's shape: pass the result as `tools` to `generateText`
 * or `streamText`. Each tool's description is read now: make the tools again
 * when the skills offered change (an activation, a hot update).
 */
export function toAISDKTools(tools: readonly AgentTool[]): Record<string, AISDKTool> {
  const byName = toolsByName(tools)
  const out: Record<string, AISDKTool> = {}
  for (const tool of tools) {
    out[tool.name] = {
      description: tool.description,
      inputSchema: inputSchema(tool.parameters),
      execute: input => runToolCall(byName, tool.name, input),
      toModelOutput: ({ output }) => ({ type: output.isError ? 'error-text' : 'text', value: output.content }),
    }
  }
  return out
}
