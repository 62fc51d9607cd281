import type { KnowledgeProject } from '../../knowledge/project'
import type { PublishedIndex } from '../../knowledge/publish'
import type { EmbedQuery } from '../../runtime/knowledge/query-embedder'
import type { KnowledgeBase } from '../../runtime/knowledge/knowledge'
import { createKnowledgeBase } from '../../runtime/knowledge/knowledge'
import { decodeSnapshot } from '../../runtime/knowledge/format/snapshot-reader'

/**
 * The published index as the runtime's knowledge base, so that the CLI ranks,
 * retrieves and suggests IDs exactly as a bundled knowledge import does.
 * Bodies come from the published documents, never from the knowledge folder,
 * so they always belong to the vectors that ranked them.
 */
export function publishedKnowledgeBase(project: KnowledgeProject, published: PublishedIndex, embedQuery?: EmbedQuery): KnowledgeBase {
  // The metadata only: the knowledge base decodes (and verifies) the whole snapshot when it searches.
  const { documents, encoding } = decodeSnapshot(published.snapshot, { verify: false })
  const bodies = new Map(published.documents.map(d => [d.id, d.body]))
  return createKnowledgeBase({
    name: project.config.name,
    documents,
    loadSnapshot: async () => published.snapshot,
    bodies: documents.map(d => async () => bodies.get(d.id) ?? ''),
    search: project.config.search,
    embedQuery,
    vectors: encoding !== 'none',
  })
}
