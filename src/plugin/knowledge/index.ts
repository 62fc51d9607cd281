// Knowledge bases: `virtual:skill-kit/knowledge/<name>` and `./folder?knowledge`,
// their document bodies, the dev server's rebuilds, and the Vite `api` that
// follows them.

export { knowledgeViteApi, watchKnowledge } from './dev-server'
export type { KnowledgeRebuildEvent, KnowledgeViteApi } from './dev-server'
export { knowledgeDocumentKind } from './document-kind'
export { knowledgeKind } from './knowledge-kind'
