// A routed export: the routed pages of a project as a skill folder an agent
// reads as files. SKILL.md, llms.txt, indexes/ and the original documents
// under references/; no runtime, model or script.

import type { KnowledgeProject } from '../knowledge/project'
import type { RoutedSkill } from '../routing/layout'
import type { ExportFile } from './folder'
import { fileOf } from './folder'
import { licenseFiles, originalDocuments } from './sources'

/**
 * The files of a routed export of `project`: its routed pages `routes`, made
 * from the documents of its knowledge folder as they were when their digest
 * was `digest` (the originals are read now and checked).
 */
export async function routedExportFiles(project: Pick<KnowledgeProject, 'dir' | 'config'>, routes: RoutedSkill, digest: string): Promise<ExportFile[]> {
  const { knowledge, maxDocumentBytes } = project.config
  const paths = [...new Set(Object.values(routes.cards).map(card => card.path))]
  return [
    fileOf('SKILL.md', routes.skill),
    fileOf('llms.txt', routes.llmsTxt),
    ...[...Object.entries(routes.pages), ...Object.entries(routes.catalog)].map(([path, text]) => fileOf(path, text)),
    ...licenseFiles(project.dir),
    ...await originalDocuments(knowledge, paths, digest, maxDocumentBytes),
  ]
}
