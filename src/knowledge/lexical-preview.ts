// The Vite dev server's first index of a folder whose vectors are not all
// cached: embedding a cold folder takes seconds to minutes, reading and
// indexing its words a fraction of one. The preview is the lexical index
// alone (the index of a build with no model), written beside the vector
// cache, never published: the manifest only ever names a complete index.

import type { KnowledgeBuildFailure } from './build'
import type { KnowledgeProject, ProjectBuild } from './project'
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hash } from '../core/hash'
import { SNAPSHOT_VERSION } from '../runtime/knowledge/format/snapshot-layout'
import { lexicalOnlyIndex } from './build'
import { chunkDocument } from './chunk'
import { loadKnowledgeFolder } from './load-folder'
import { settingsDigest } from './project'
import { readManifest } from './publish'

/**
 * What the dev server serves first: the preview, the lexical index of a
 * project with a model to serve while its complete build embeds (or the
 * folder's problems, when it cannot be built); `fresh` when the published
 * index matches the folder and settings (its vectors are cached: the
 * complete build is quick, and worth waiting for).
 */
export type LexicalPreview = { kind: 'preview', build: ProjectBuild | KnowledgeBuildFailure } | { kind: 'fresh' }

/** The {@link LexicalPreview} of a project with a model. */
export function lexicalPreview(project: KnowledgeProject): LexicalPreview {
  const { config } = project
  const folder = loadKnowledgeFolder(config.knowledge, { maxDocumentBytes: config.maxDocumentBytes })
  if (folder.diagnostics.some(d => d.severity === 'error'))
    return { kind: 'preview', build: { diagnostics: folder.diagnostics, files: folder.files } }
  const manifest = readManifest(config.output)
  if (manifest && (manifest.snapshotFormat ?? 1) === SNAPSHOT_VERSION && manifest.settings === settingsDigest(config) && manifest.digest === folder.digest)
    return { kind: 'fresh' }
  const index = lexicalOnlyIndex(folder, folder.documents.flatMap((document, i) => chunkDocument(document, i)))
  // Named by the folder and the content: two folders sharing a cache never collide, and an unchanged preview is the same file.
  const prefix = `preview-${hash(config.knowledge).slice(0, 8)}-`
  const name = `${prefix}${hash(index.snapshot).slice(0, 12)}.skillkit`
  // In the cache folder, which builds write and the dev server's watcher ignores.
  const dir = join(config.cache, 'preview')
  mkdirSync(dir, { recursive: true })
  // This folder's earlier previews are no longer served by anything (a dev server's modules name the newest).
  for (const old of readdirSync(dir)) {
    if (old.startsWith(prefix) && old !== name)
      rmSync(join(dir, old), { force: true })
  }
  const snapshotFile = join(dir, name)
  writeFileSync(snapshotFile, index.snapshot)
  return { kind: 'preview', build: { ...index, snapshotFile, documentsFile: '' } }
}
