/** A JSON Schema property of an agent tool's parameters. */
export interface AgentToolProperty {
  type: 'string' | 'integer'
  description: string
  enum?: string[]
  minimum?: number
  maximum?: number
}

/**
 * An agent tool's parameters: a JSON Schema object that every SDK takes as is.
 * A type, not an interface: the SDKs type a schema as an object of any keys,
 * which only a type literal is assignable to.
 */
export type AgentToolParameters = {
  type: 'object'
  properties: Record<string, AgentToolProperty>
  required: string[]
  additionalProperties: false
}

/** What a tool call gives back; errors are results too (`isError`), never exceptions. */
export interface AgentToolResult {
  content: string
  isError: boolean
}

/**
 * A tool in no SDK's shape: the skill tool, `search_skills` and the knowledge
 * tool all are; `toAISDKTools`, `toOpenAITools` and `toAnthropicTools` give it
 * each SDK's shape.
 */
export interface AgentTool {
  readonly name: string
  /** Read when a tool list is made: a getter may list what is available now. */
  readonly description: string
  readonly parameters: AgentToolParameters
  /**
   * Runs a call with the arguments the model sent (not trusted: every tool
   * checks them). A method, so that tools with their own argument type (the
   * skill tool's) are agent tools too.
   */
  execute(args: object): Promise<AgentToolResult>
}
