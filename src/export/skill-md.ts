// The SKILL.md of a semantic export: Agent Skills frontmatter from the
// project's name and description, and instructions that name exactly the
// commands the folder has.

import type { KnowledgeConfig } from '../knowledge/config'
import type { ExportedServer } from './settings'
import { DESCRIPTION_MAX, toSkillName } from '../skill/spec'
import { REFERENCES_DIR } from './sources'

/** The Agent Skills `name` of a project: its name made valid (lowercase letters, digits, single hyphens, at most 64). */
export function exportSkillName(name: string): string {
  return toSkillName(name) || 'knowledge'
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

/** The `description`: the project's, on one line, within the specification's 1,024 characters. */
export function exportSkillDescription(config: Pick<KnowledgeConfig, 'name' | 'description'>): string {
  const text = oneLine(config.description) || `Search the ${config.name} knowledge base, then read only the documents that answer the question.`
  return text.length <= DESCRIPTION_MAX ? text : `${text.slice(0, DESCRIPTION_MAX - 1).replace(/\s+\S*$/, '')}…`
}

/** How the export's search ranks, as its SKILL.md tells the agent. */
export type SearchKind = 'lexical-only' | 'model-included' | 'model-absent' | 'server'

/** The commands of a semantic export, exactly as SKILL.md names them. */
export const SEARCH_COMMAND = 'node search.mjs'

export interface SemanticSkillInput {
  config: Pick<KnowledgeConfig, 'name' | 'description'>
  documents: number
  search: SearchKind
  modelId?: string
  /** The embedding server that embeds queries (`server`). */
  server?: Pick<ExportedServer, 'baseUrl' | 'apiKeyEnv'>
}

/** What SKILL.md says of the install: the folder's settings skip install scripts, so any package manager works offline from the CUDA host. */
const INSTALL_NOTE = 'its .npmrc and .yarnrc.yml skip install scripts, so no CUDA libraries are downloaded; pnpm install or yarn install work too'

/** SKILL.md of a semantic export. */
export function semanticSkillMarkdown({ config, documents, search, modelId, server }: SemanticSkillInput): string {
  const ranking = {
    'lexical-only': 'Search ranks documents by their words (BM25) and needs Node.js only.',
    'model-included': `Search needs Node.js only, and ranks by meaning with the embedding model in \`models/\` once its one package is installed: run \`npm ci\` in this folder once (${INSTALL_NOTE}). Until then it ranks by words (BM25) and says so on stderr.`,
    'server': `Search needs Node.js only, and ranks by meaning through the embedding server at ${server?.baseUrl} (model ${modelId}), which each search sends its query to; set \`${server?.apiKeyEnv}\` to its API key when it needs one. When the server cannot be reached, search ranks by words (BM25) and says so on stderr.`,
    'model-absent': `Search needs Node.js only. This export has no embedding model, so it ranks by words (BM25) and says so on stderr; to rank by meaning, run \`npm ci\` in this folder once (${INSTALL_NOTE}) and set \`SKILL_KIT_MODEL_PATH\` to a folder that holds ${modelId}/.`,
  }[search]
  return [
    '---',
    `name: ${exportSkillName(config.name)}`,
    `description: ${JSON.stringify(exportSkillDescription(config))}`,
    '---',
    '',
    `# ${oneLine(config.name)}`,
    '',
    exportSkillDescription(config),
    '',
    `Answer from the ${documents} documents of this knowledge base, not from memory. Run these commands in this skill's folder:`,
    '',
    `1. Search: \`${SEARCH_COMMAND} "<the question, or its key words>"\`. It prints a JSON array of the best documents, best first: \`id\`, \`description\`, \`path\`, \`heading\` (the section that matched) and \`score\`, never their text. \`--top-k <n>\` asks for more.`,
    `2. Retrieve only the documents that fit the question, by the \`id\` the search printed: \`${SEARCH_COMMAND} retrieve <id>\` prints that document's complete text.`,
    '3. Apply what those documents say to the task, and name the ones you used. When no result fits, search again with other words; when still nothing fits, say that the knowledge base does not cover it.',
    '',
    ranking,
    '',
    `The original documents are in \`${REFERENCES_DIR}/\`; the search index is in \`index/\`.`,
    '',
  ].join('\n')
}
